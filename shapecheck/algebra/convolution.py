"""Convolutions and windowed reductions: `lax.conv_general_dilated` and `lax.reduce_window`.

Each spatial dim's output size is the one XLA computes (`jax._src.lax.convolution.
conv_shape_tuple`, `windowed_reductions.reduce_window_shape_tuple`): the input dilated, then
padded, then windowed by the dilated kernel at the given stride, never below 0. String
padding is resolved as `lax.padtype_to_pads` resolves it. The checks are those JAX makes
before it computes anything: the feature counts of the two operands (SC104), and options that
do not fit the operands or are malformed (SC002).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum, IntEnum
from typing import Final, Literal, NamedTuple, TypeAlias

from shapecheck.algebra.broadcast import union_named
from shapecheck.algebra.outcome import Outcome, Problem, label
from shapecheck.algebra.promotion import promoted
from shapecheck.codes import Code
from shapecheck.dims import Dim, Sym, certainly_differ, format_dim
from shapecheck.types import ArrayType


class Default(Enum):
    """An option left to JAX's default (None, or not passed): unit dilations, unit strides."""

    DEFAULT = "default"


DEFAULT: Final = Default.DEFAULT

Window: TypeAlias = tuple[Dim, ...] | None
"""Strides, dilations, window sizes: one entry per spatial dim (an entry None where unknown);
the whole None where the checker cannot read it."""

Padding: TypeAlias = str | tuple[tuple[Dim, Dim], ...] | None
"""`'SAME'`, `'VALID'`, `'SAME_LOWER'` (any case), or `(low, high)` pairs; None: unknown."""

PADDING_MODES: Final = ("SAME", "VALID", "SAME_LOWER")


class ConvArg(IntEnum):
    """The arguments of `conv_general_dilated`, as `Problem.operands` names them."""

    LHS = 0
    RHS = 1
    WINDOW_STRIDES = 2
    PADDING = 3
    LHS_DILATION = 4
    RHS_DILATION = 5
    DIMENSION_NUMBERS = 6
    FEATURE_GROUP_COUNT = 7
    BATCH_GROUP_COUNT = 8


class WindowArg(IntEnum):
    """The arguments of `reduce_window`, as `Problem.operands` names them."""

    OPERAND = 0
    WINDOW_DIMENSIONS = 1
    WINDOW_STRIDES = 2
    PADDING = 3
    BASE_DILATION = 4
    WINDOW_DILATION = 5


class Layout(NamedTuple):
    """`lax.ConvDimensionNumbers`: where each operand keeps its dims, in XLA's order
    (lhs and out: batch, feature, spatial...; rhs: out feature, in feature, spatial...)."""

    lhs: tuple[int, ...]
    rhs: tuple[int, ...]
    out: tuple[int, ...]


def channels_last(spatial: int) -> Layout:
    """NHWC, HWIO, NHWC for `spatial` window dims: the layout flax's and haiku's convolutions use."""
    last = spatial + 1
    return Layout((0, last, *range(1, last)), (last, spatial, *range(spatial)), (0, last, *range(1, last)))


def default_layout(rank: int) -> Layout:
    """`dimension_numbers=None`: NCHW, OIHW, NCHW (for two spatial dims)."""
    order = tuple(range(rank))
    return Layout(order, order, order)


def parse_layout(specs: Sequence[str], rank: int | None, what: str = "lax.conv_general_dilated") -> Layout | Problem:
    """`dimension_numbers=('NHWC', 'HWIO', 'NHWC')`, as `lax.conv_dimension_numbers` reads it:
    spatial dims are ordered as the rhs spec lists them."""
    if len(specs) != 3:
        return _option(ConvArg.DIMENSION_NUMBERS,
                       f"{what}: dimension_numbers must be three strings (lhs, rhs, out), got {len(specs)}")
    expected = rank if rank is not None else len(specs[0])
    for index, (spec, operand) in enumerate(zip(specs, ("lhs", "rhs", "out"), strict=True)):
        if len(spec) != expected:
            return _option(ConvArg.DIMENSION_NUMBERS,
                           f"{what}: dimension_numbers[{index}] {spec!r} has {len(spec)} letters, but the {operand} "
                           f"has {expected} dims{' (as the lhs spec says)' if rank is None else ''}")
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for index, (spec, (a, b)) in enumerate(zip(specs, pairs, strict=True)):
        if spec.count(a) != 1 or spec.count(b) != 1:
            return _option(ConvArg.DIMENSION_NUMBERS,
                           f"{what}: dimension_numbers[{index}] {spec!r} must contain {a!r} and {b!r} exactly once")
        if len(set(spec)) != len(spec):
            return _option(ConvArg.DIMENSION_NUMBERS, f"{what}: dimension_numbers[{index}] {spec!r} repeats a letter")
    spatial = [set(spec) - set(pair) for spec, pair in zip(specs, pairs, strict=True)]
    if not spatial[0] == spatial[1] == spatial[2]:
        return _option(ConvArg.DIMENSION_NUMBERS,
                       f"{what}: dimension_numbers {tuple(specs)!r} must name the same spatial dims in all three")
    rhs_spec = specs[1]

    def order(spec: str, pair: tuple[str, str]) -> tuple[int, ...]:
        places = sorted((i for i, c in enumerate(spec) if c not in pair), key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1]), *places)

    lhs, rhs, out = (order(spec, pair) for spec, pair in zip(specs, pairs, strict=True))
    return Layout(lhs, rhs, out)


def conv_general_dilated(
    lhs: ArrayType, rhs: ArrayType, window_strides: Window, padding: Padding,
    lhs_dilation: Window | Default = DEFAULT, rhs_dilation: Window | Default = DEFAULT,
    dimension_numbers: Layout | Sequence[str] | Default | None = DEFAULT,
    feature_group_count: Dim = 1, batch_group_count: Dim = 1,
    preferred_element_type: str | Literal[False] | None = False,
    what: str = "lax.conv_general_dilated",
) -> Outcome:
    """The type of `lax.conv_general_dilated(lhs, rhs, ...)`, and what JAX refuses in it.

    `dimension_numbers` None is one the checker cannot read (DEFAULT is JAX's None);
    `preferred_element_type` False when not given, None when given but unreadable.
    """
    problems: list[Problem] = []
    dtype = lhs.dtype if lhs.dtype == rhs.dtype else None  # JAX refuses two dtypes (a TypeError)
    if preferred_element_type is not False:
        dtype = preferred_element_type
    named = union_named([lhs.named, rhs.named], None, problems)
    named_open = lhs.named_open or rhs.named_open
    if lhs.rank is not None and rhs.rank is not None and lhs.rank != rhs.rank:
        problems.append(Problem(
            Code.CONTRACTION_MISMATCH,
            f"{what}: lhs {lhs.positional_text()} has {lhs.rank} dims but rhs {rhs.positional_text()} has "
            f"{rhs.rank}; the kernel needs the input's rank (batch and feature dims, then the same "
            "spatial dims)", operands=(ConvArg.LHS, ConvArg.RHS)))
        return Outcome(ArrayType(dtype, (), named, 0, named_open), tuple(problems))
    rank = lhs.rank if lhs.rank is not None else rhs.rank
    layout: Layout | None = None
    if dimension_numbers is DEFAULT:
        layout = default_layout(rank) if rank is not None else None
    elif isinstance(dimension_numbers, Layout):
        layout = dimension_numbers if rank is None or len(dimension_numbers.lhs) == rank else None
    elif dimension_numbers is not None:
        parsed = parse_layout(dimension_numbers, rank, what)
        if isinstance(parsed, Problem):
            problems.append(parsed)
        else:
            layout = parsed
    if layout is not None and rank is None:
        rank = len(layout.lhs)
    unknown = Outcome(ArrayType(dtype, (None,) * rank if rank is not None else (), named,
                                None if rank is not None else 0, named_open), ())
    if layout is None or rank is None or rank < 2:
        return Outcome(unknown.type, tuple(problems))
    spatial = rank - 2
    lhs_dims = _dims(lhs, rank)
    rhs_dims = _dims(rhs, rank)
    batch, features = lhs_dims[layout.lhs[0]], lhs_dims[layout.lhs[1]]
    out_features, in_features = rhs_dims[layout.rhs[0]], rhs_dims[layout.rhs[1]]
    _groups(feature_group_count, batch_group_count, batch, features, out_features, in_features, what, problems)
    _counts(((ConvArg.WINDOW_STRIDES, "window_strides", window_strides),
             (ConvArg.LHS_DILATION, "lhs_dilation", lhs_dilation),
             (ConvArg.RHS_DILATION, "rhs_dilation", rhs_dilation)), spatial, what, problems)
    if isinstance(padding, str):
        _padding_mode(padding, ConvArg.PADDING, what, problems)
        if isinstance(lhs_dilation, tuple) and any(isinstance(d, int) and d > 1 for d in lhs_dilation) \
                and not any(isinstance(d, int) and d <= 0 for d in lhs_dilation):  # that one is reported
            problems.append(_option(ConvArg.PADDING, f"{what}: string padding {padding!r} cannot be combined with "
                                    f"lhs_dilation {_text(lhs_dilation)}; pass explicit (low, high) pairs, or use "
                                    "lax.conv_transpose"))
    elif padding is not None and len(padding) != spatial:
        problems.append(_option(ConvArg.PADDING, f"{what}: padding has {len(padding)} (low, high) pairs for "
                                f"{spatial} spatial dim{'s' if spatial != 1 else ''}"))
    if problems:
        return Outcome(unknown.type, tuple(problems))
    # A dilation of another length means something else to JAX (see `_counts`): not followed.
    lhs_dilation, rhs_dilation = (d if not isinstance(d, tuple) or len(d) == spatial else None
                                  for d in (lhs_dilation, rhs_dilation))
    out_batch: Dim = batch
    if batch_group_count != 1:
        out_batch = batch // batch_group_count if isinstance(batch, int) and isinstance(batch_group_count, int) \
            else None
    sizes: list[Dim] = [out_batch, out_features]
    for index in range(spatial):
        size, window = lhs_dims[layout.lhs[2 + index]], rhs_dims[layout.rhs[2 + index]]
        pad = padding if isinstance(padding, str) or padding is None else padding[index]
        out, negative = window_output(
            size, window, _entry(window_strides, index), pad,
            _entry(lhs_dilation, index), _entry(rhs_dilation, index))
        if negative:
            problems.append(_option(ConvArg.PADDING, f"{what}: padding {_pair(pad)} removes more than the "
                                    f"{format_dim(size)} elements of spatial dim {index} of lhs"))
        sizes.append(out)
    result: list[Dim] = [None] * rank
    for place, size in zip(layout.out, sizes, strict=True):
        result[place] = size
    return Outcome(ArrayType(dtype, tuple(result), named, None, named_open), tuple(problems))


def convolve(a: ArrayType, v: ArrayType, mode: str, what: str, labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.convolve(a, v, mode)` and `jnp.correlate`: two non-empty 1-d arrays; `full` is
    `n + m - 1` long, `same` the longer one's length, `valid` their difference plus one."""
    for index, value in enumerate((a, v)):
        if value.ellipsis is not None:
            return Outcome(value.with_dims((), 0))
        if len(value.dims) != 1:
            return Outcome(value.with_dims((), 0), (Problem(
                Code.AXIS_OUT_OF_RANGE, f"{what} takes 1-d arrays, but {label(labels, index)} has shape "
                f"{value.positional_text()}", operands=(index,)),))
        if value.dims[0] == 0:
            return Outcome(value.with_dims((), 0), (Problem(
                Code.SIZE_ARGUMENT_MISMATCH, f"{what} takes non-empty arrays, but {label(labels, index)} has shape "
                "(0,)", sizes=(0,), operands=(index,)),))
    n, m = a.dims[0], v.dims[0]
    dtype = promoted((a, v))
    problems: list[Problem] = []
    named = union_named([a.named, v.named], None, problems)
    length: Dim = None
    if isinstance(n, int) and isinstance(m, int):
        length = {"full": n + m - 1, "same": max(n, m), "valid": max(n, m) - min(n, m) + 1}[mode]
    return Outcome(ArrayType(dtype.dtype, (length,), named, None, a.named_open or v.named_open, dtype.weak),
                   tuple(problems))


def conv_transpose(
    lhs: ArrayType, rhs: ArrayType, strides: Window, padding: Padding,
    rhs_dilation: Window | Default = DEFAULT, dimension_numbers: Layout | Sequence[str] | Default | None = DEFAULT,
    transpose_kernel: bool | None = False, use_consistent_padding: bool | None = False,
    preferred_element_type: str | Literal[False] | None = False,
) -> Outcome:
    """`lax.conv_transpose`: a convolution of `lhs` dilated by `strides` (a fractionally
    strided one), with the padding of the forward convolution it undoes, as
    `jax._src.lax.convolution.conv_transpose` computes it. Channels last by default."""
    what = "lax.conv_transpose"
    if lhs.rank is not None and rhs.rank is not None and lhs.rank != rhs.rank:
        return conv_general_dilated(lhs, rhs, None, None, what=what)  # reports the ranks
    rank = lhs.rank if lhs.rank is not None else rhs.rank
    if dimension_numbers is DEFAULT:
        if rank is None:
            return Outcome(ArrayType(None, (), (), 0, True))
        if not 2 <= rank <= 5:
            return Outcome(ArrayType(None, (None,) * rank), (_option(
                ConvArg.DIMENSION_NUMBERS, f"{what}: no default dimension_numbers for {rank} dims (JAX has them for "
                "2 to 5); pass them"),))
        dimension_numbers = ("N" + "HWD"[:rank - 2] + "C", "HWD"[:rank - 2] + "IO", "N" + "HWD"[:rank - 2] + "C")
    if dimension_numbers is None or isinstance(dimension_numbers, Layout):
        layout = dimension_numbers
    else:
        parsed = parse_layout(dimension_numbers, rank, what)
        if isinstance(parsed, Problem):
            return Outcome(ArrayType(None, (None,) * rank if rank is not None else (), (), None if rank is not None
                                     else 0), (parsed,))
        layout = parsed
    if layout is None or rank is None:
        return conv_general_dilated(lhs, rhs, None, None, dimension_numbers=layout, what=what)
    spatial = rank - 2
    kernel = _dims(rhs, rank)
    if transpose_kernel is None:
        kernel = (None,) * rank
    elif transpose_kernel:
        # The kernel's in- and out-feature dims swap roles (its spatial dims are flipped).
        swapped = list(kernel)
        swapped[layout.rhs[0]], swapped[layout.rhs[1]] = kernel[layout.rhs[1]], kernel[layout.rhs[0]]
        kernel = tuple(swapped)
    pads: Padding = padding
    if use_consistent_padding is None:
        pads = None
    elif use_consistent_padding or padding in ("SAME", "VALID"):
        if strides is None or padding is None:
            pads = None
        else:
            forward: list[str | tuple[Dim, Dim]] = [padding] * len(strides) if isinstance(padding, str) \
                else list(padding)
            computed = []
            for index, (stride, pad) in enumerate(zip(strides, forward, strict=False)):
                if isinstance(pad, str) and pad not in ("SAME", "VALID"):
                    return Outcome(ArrayType(None, (None,) * rank), (_option(
                        ConvArg.PADDING, f"{what}: padding {pad!r} is neither 'SAME' nor 'VALID' nor (low, high) "
                        "pairs of the forward convolution"),))
                window = _dilate(kernel[layout.rhs[2 + index]] if index < spatial else None,
                                 _entry(rhs_dilation, index))
                computed.append(_transpose_padding(window, stride, pad))
            pads = tuple(computed)
    ones: tuple[Dim, ...] = (1,) * spatial
    return conv_general_dilated(
        lhs, ArrayType(rhs.dtype, kernel, rhs.named, None, rhs.named_open), ones, pads,
        lhs_dilation=strides if strides is not None else None, rhs_dilation=rhs_dilation,
        dimension_numbers=layout, preferred_element_type=preferred_element_type, what=what)


def _transpose_padding(window: Dim, stride: Dim, padding: str | tuple[Dim, Dim]) -> tuple[Dim, Dim]:
    """`convolution._conv_transpose_padding`: the padding of the dilated input that undoes a
    forward convolution's `padding`."""
    if not isinstance(window, int) or not isinstance(stride, int):
        return None, None
    if padding == "SAME":
        total = window + stride - 2
        before = window - 1 if stride > window - 1 else -(-total // 2)
    elif padding == "VALID":
        total = window + stride - 2 + max(window - stride, 0)
        before = window - 1
    elif isinstance(padding, str):
        return None, None
    else:
        low, high = padding
        if not isinstance(low, int) or not isinstance(high, int):
            return None, None
        before, total = window - low - 1, 2 * window - low - high - 2
    return before, total - before


def gradient_padding(kernel: Window, strides: Window, dilation: Window, extra: Window,
                     padding: Padding) -> tuple[tuple[int, int], ...] | None:
    """The padding of the convolution a transposed convolution runs on its input dilated by
    `strides` (equinox's `ConvTranspose`, after the paper of Dumoulin and Visin): `(k - 1) *
    dilation - p` on each side, the output padding `extra` added at the end. 'SAME' and
    'SAME_LOWER' pad to give `n * stride` (the extra part lower for the latter), 'VALID' none.
    None where a size is not a known int."""
    windows = [_known(window) for window in (kernel, strides, dilation, extra)]
    if any(window is None for window in windows):
        return None
    k, s, d, a = (list(window) for window in windows if window is not None)
    rank = len(k)
    if any(len(window) != rank for window in (s, d, a)):
        return None
    pairs: list[tuple[int, int]] = []
    for i in range(rank):
        if isinstance(padding, str) and padding.upper() in ("SAME", "SAME_LOWER"):
            total = d[i] * (k[i] - 1) - s[i] + a[i] + 1
            a[i], total = (-total, 0) if total < 0 else (0, total)
            low = (total + (padding.upper() == "SAME_LOWER")) // 2
            pairs.append((low, total - low))
        elif isinstance(padding, str) and padding.upper() == "VALID":
            pairs.append((0, 0))
        else:
            pair = _known(padding[i]) if isinstance(padding, tuple) and len(padding) == rank else None
            if pair is None:
                return None
            pairs.append((pair[0], pair[1]))
    return tuple((d[i] * (k[i] - 1) - low, d[i] * (k[i] - 1) - high + a[i]) for i, (low, high) in enumerate(pairs))


def _known(window: Window) -> tuple[int, ...] | None:
    """A window of known ints, else None."""
    if window is None or not all(isinstance(n, int) for n in window):
        return None
    return tuple(n for n in window if isinstance(n, int))


def reduce_window(
    operand: ArrayType, window_dimensions: Window, window_strides: Window | Default = DEFAULT,
    padding: Padding = "VALID", base_dilation: Window | Default = DEFAULT,
    window_dilation: Window | Default = DEFAULT, what: str = "lax.reduce_window",
) -> Outcome:
    """The type of `lax.reduce_window(operand, init, computation, window_dimensions, ...)`:
    pooling, one window per dim of `operand` (a window of 1 and stride 1 keep a dim)."""
    problems: list[Problem] = []
    rank = operand.rank
    count = len(window_dimensions) if window_dimensions is not None else rank
    unknown = ArrayType(operand.dtype, (None,) * count if count is not None else (), operand.named,
                        None if count is not None else 0, operand.named_open)
    if window_dimensions is not None and rank is not None and len(window_dimensions) != rank:
        problems.append(_option(WindowArg.WINDOW_DIMENSIONS,
                                f"{what}: window_dimensions {_text(window_dimensions)} has {len(window_dimensions)} "
                                f"entries for an operand of shape {operand.positional_text()}; give one window "
                                "size per dim (1 for the dims not pooled)"))
    if count is not None:
        _counts(((WindowArg.WINDOW_STRIDES, "window_strides", window_strides),
                 (WindowArg.BASE_DILATION, "base_dilation", base_dilation),
                 (WindowArg.WINDOW_DILATION, "window_dilation", window_dilation)), count, what, problems,
                against="window_dimensions")
    for arg, name, values in ((WindowArg.WINDOW_DIMENSIONS, "window_dimensions", window_dimensions),
                              (WindowArg.WINDOW_STRIDES, "window_strides", window_strides)):
        if isinstance(values, tuple) and any(isinstance(v, int) and v <= 0 for v in values):
            problems.append(_option(arg, f"{what}: every entry of {name} must be positive, got {_text(values)}"))
    if isinstance(padding, str):
        _padding_mode(padding, WindowArg.PADDING, what, problems)
        if padding.upper() != "VALID" and window_strides is DEFAULT and count:
            problems.append(_option(WindowArg.PADDING, f"{what}: padding {padding!r} needs window_strides "
                                    "(JAX resolves it against the strides, and None has none)"))
    elif padding is not None and count is not None and len(padding) != count:
        problems.append(_option(WindowArg.PADDING, f"{what}: padding has {len(padding)} (low, high) pairs for "
                                f"{count} window dims"))
    if problems or count is None:
        return Outcome(unknown, tuple(problems))
    dims = _dims(operand, count)
    sizes = []
    for index in range(count):
        pad = padding if isinstance(padding, str) or padding is None else padding[index]
        out, _ = window_output(
            dims[index], _entry(window_dimensions, index), _entry(window_strides, index), pad,
            _entry(base_dilation, index), _entry(window_dilation, index))
        sizes.append(out)  # padding below zero is no error here: XLA makes an empty dim
    return Outcome(ArrayType(operand.dtype, tuple(sizes), operand.named, None, operand.named_open), ())


def window_output(size: Dim, window: Dim, stride: Dim, padding: str | tuple[Dim, Dim] | None,
                  base_dilation: Dim = 1, window_dilation: Dim = 1) -> tuple[Dim, bool]:
    """One spatial dim's output size, and whether the padding leaves fewer than 0 elements.

    `(size dilated + low + high - window dilated) // stride + 1`, at least 0. A stride of 1
    with padding that makes up for the window (`'SAME'`, or `(1, 1)` around a window of 3)
    keeps a symbolic or unknown size as it is.
    """
    effective = _dilate(window, window_dilation)
    if not isinstance(stride, int) or stride <= 0 or (isinstance(window_dilation, int) and window_dilation <= 0):
        return None, False  # a stride or dilation JAX does not reject here has no meaning to follow
    if isinstance(base_dilation, int) and base_dilation <= 0:
        return None, False
    low: Dim
    high: Dim
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            low, high = 0, 0
        elif isinstance(size, int) and isinstance(effective, int):
            total = max((-(-size // stride) - 1) * stride + effective - size, 0)  # lax.padtype_to_pads
            low, high = total // 2, total - total // 2
        else:
            # SAME keeps ceil(size / stride) for any window of at least one element.
            if stride == 1 and base_dilation == 1 and effective != 0:
                return size, False
            return None, False
    elif padding is None:
        return None, False
    else:
        low, high = padding
    dilated = _dilate(size, base_dilation)
    if isinstance(dilated, int) and isinstance(low, int) and isinstance(high, int):
        padded = dilated + low + high
        if padded < 0:
            return 0, True
        if isinstance(effective, int):
            return max((padded - effective) // stride + 1, 0), False
        return None, False
    if stride == 1 and isinstance(low, int) and isinstance(high, int) and isinstance(effective, int) \
            and low + high + 1 == effective and isinstance(dilated, Sym | None):
        return dilated, False
    return None, False


def _dilate(size: Dim, dilation: Dim) -> Dim:
    """`core.dilate_dim`: a dilation of d puts d - 1 holes between neighbours."""
    if dilation == 1:
        return size
    if isinstance(size, int) and isinstance(dilation, int):
        return 0 if size == 0 else 1 + dilation * (size - 1)
    return None


def _groups(feature_groups: Dim, batch_groups: Dim, batch: Dim, features: Dim, out_features: Dim,
            in_features: Dim, what: str, problems: list[Problem]) -> None:
    """The checks of `_conv_general_dilated_shape_rule` on the feature and batch dims."""
    for arg, name, count in ((ConvArg.FEATURE_GROUP_COUNT, "feature_group_count", feature_groups),
                             (ConvArg.BATCH_GROUP_COUNT, "batch_group_count", batch_groups)):
        if isinstance(count, int) and count <= 0:
            problems.append(_option(arg, f"{what}: {name} must be a positive integer, got {count}"))
            return
    if isinstance(feature_groups, int) and isinstance(batch_groups, int) and feature_groups > 1 and batch_groups > 1:
        problems.append(_option(ConvArg.BATCH_GROUP_COUNT, f"{what}: at most one of feature_group_count "
                                f"({feature_groups}) and batch_group_count ({batch_groups}) may be above 1"))
        return
    grouped = f" in {feature_groups} groups" if feature_groups != 1 else ""
    if feature_groups == 1:
        if certainly_differ(features, in_features):
            problems.append(_features(
                f"{what}: lhs has {_features_text(features)} but rhs expects {format_dim(in_features)} (its 'I' "
                "dim); the kernel's in-features must equal the input's features", features, in_features))
    elif isinstance(feature_groups, int) and isinstance(features, int):
        quotient, remainder = divmod(features, feature_groups)
        if remainder:
            problems.append(_features(
                f"{what}: feature_group_count {feature_groups} does not divide lhs's {features} input features",
                features, feature_groups))
        elif certainly_differ(quotient, in_features):
            problems.append(_features(
                f"{what}: lhs has {features} input features{grouped}, {quotient} per group, but rhs expects "
                f"{format_dim(in_features)} (its 'I' dim must be features ÷ feature_group_count)",
                quotient, in_features))
    for name, count in (("feature_group_count", feature_groups), ("batch_group_count", batch_groups)):
        if isinstance(count, int) and count > 1 and isinstance(out_features, int) and out_features % count:
            problems.append(_features(
                f"{what}: rhs has {out_features} output features (its 'O' dim), not a multiple of {name} {count}",
                out_features, count))
    if isinstance(batch_groups, int) and batch_groups > 1 and isinstance(batch, int) and batch % batch_groups:
        problems.append(_features(
            f"{what}: batch_group_count {batch_groups} does not divide lhs's batch of {batch}", batch, batch_groups))


def _features_text(count: Dim) -> str:
    return f"{format_dim(count)} input feature{'' if count == 1 else 's'}"


def _features(message: str, *sizes: Dim) -> Problem:
    return Problem(Code.CONTRACTION_MISMATCH, message, sizes=sizes, operands=(ConvArg.LHS, ConvArg.RHS))


def _counts(options: Sequence[tuple[int, str, Window | Default]], count: int, what: str,
            problems: list[Problem], against: str = "") -> None:
    """Options with one entry per spatial dim (per window dim): the count, and dilations > 0.

    A dilation of the wrong length is no error to JAX (it pads it with leading 1s); its meaning
    is left unknown (`_entry`), only a non-positive entry is refused."""
    for arg, name, values in options:
        if not isinstance(values, tuple):
            continue
        if "dilation" in name:
            if any(isinstance(v, int) and v <= 0 for v in values):
                problems.append(_option(arg, f"{what}: every entry of {name} must be positive, got {_text(values)}"))
            if not against:
                continue
        if len(values) != count:
            where = f"{len(values)} entr{'y' if len(values) == 1 else 'ies'} for {count} " + (
                f"{against} entries" if against else f"spatial dim{'s' if count != 1 else ''}")
            problems.append(_option(arg, f"{what}: {name} {_text(values)} has {where}"))


def _padding_mode(padding: str, arg: int, what: str, problems: list[Problem]) -> None:
    if padding.upper() not in PADDING_MODES:
        problems.append(_option(arg, f"{what}: padding {padding!r} is none of 'SAME', 'VALID', 'SAME_LOWER' "
                                "(or give (low, high) pairs)"))


def _entry(values: Window | Default, index: int) -> Dim:
    if values is DEFAULT:
        return 1
    if values is None or index >= len(values):
        return None
    return values[index]


def _dims(value: ArrayType, rank: int) -> tuple[Dim, ...]:
    return value.dims if value.rank == rank else (None,) * rank


def _option(arg: int, message: str) -> Problem:
    return Problem(Code.INVALID_AXIS_SPEC, message, operands=(arg,))


def _text(values: tuple[Dim, ...]) -> str:
    return "(" + ", ".join(format_dim(v) for v in values) + ("," if len(values) == 1 else "") + ")"


def _pair(pad: str | tuple[Dim, Dim] | None) -> str:
    return repr(pad) if not isinstance(pad, tuple) else _text(pad)
