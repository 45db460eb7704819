"""Picking elements by index: `jnp.take`, `jnp.take_along_axis`, `lax.top_k`, and the segment
reductions of `jax.ops` (`segment_sum`, `segment_max`, ...), which scatter rows by segment id.

Each rule is JAX 0.10.2's, checked against it (tests/test_gather_differential.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.broadcast import broadcasts_to, union_named
from shapecheck.algebra.outcome import Outcome, Pieces, Problem, axis_position, label
from shapecheck.codes import Code
from shapecheck.dims import Dim, broadcast_dim, format_dim, product
from shapecheck.dtypes import KINDS, NUMPY_OF, narrowed
from shapecheck.types import ArrayType

TOP_K_INDICES = "i32"
"""`lax.top_k`'s indices are int32 whatever the x64 mode."""


def take(a: ArrayType, indices: ArrayType, axis: int | None, labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.take(a, indices, axis)`: the indices' dims replace dim `axis` of `a` (all of `a`,
    flattened, where `axis` is None). Out-of-range indices are filled, never an error, but an empty
    axis has nothing to take from (IndexError: SC106). Indices that are not integers are refused
    after that, where there are some to take (JAX returns at once for none)."""
    outcome = _take(a, indices, axis, labels)
    inexact = inexact_indices(indices, label(labels, 1), "jnp.take")
    if inexact is None or outcome.problems or indices.ellipsis is not None or not _nonzero(product(indices.dims)):
        return outcome
    return Outcome(outcome.type.with_dims((), 0), (inexact,))


def _take(a: ArrayType, indices: ArrayType, axis: int | None, labels: Sequence[str] | None) -> Outcome:
    problems: list[Problem] = []
    named = union_named([a.named, indices.named], labels, problems)
    open_named = a.named_open or indices.named_open
    taken = indices.ellipsis is None and _nonzero(product(indices.dims))
    if axis is None:
        if a.ellipsis is None and product(a.dims) == 0:
            # An empty axis gives nothing to take: JAX returns the (flattened) array as it is,
            # or refuses indices that are not empty.
            if taken:
                problems.append(_empty("take", a, None))
            return Outcome(ArrayType(a.dtype, (0,), named, None, open_named), tuple(problems))
        return Outcome(ArrayType(a.dtype, indices.dims, named, indices.ellipsis, open_named), tuple(problems))
    where = axis_position(a, axis, "take")
    if isinstance(where, Problem):
        return Outcome(ArrayType(a.dtype, (), named, 0, open_named), (*problems, where))
    if where is None or (a.ellipsis is not None and indices.ellipsis is not None):
        return Outcome(ArrayType(a.dtype, (), named, 0, open_named), tuple(problems))
    if a.dims[where] == 0:
        if taken:
            problems.append(_empty("take", a, axis))
        return Outcome(ArrayType(a.dtype, a.dims, named, a.ellipsis, open_named), tuple(problems))
    dims = a.dims[:where] + indices.dims + a.dims[where + 1:]
    if a.ellipsis is not None:
        ellipsis: int | None = a.ellipsis if where >= a.ellipsis else a.ellipsis - 1 + len(indices.dims)
    else:
        ellipsis = None if indices.ellipsis is None else where + indices.ellipsis
    return Outcome(ArrayType(a.dtype, dims, named, ellipsis, open_named), tuple(problems))


def _nonzero(count: int | None) -> bool:
    return count is not None and count > 0


def _empty(what: str, a: ArrayType, axis: int | None) -> Problem:
    where = "the array" if axis is None else f"axis {axis}"
    return Problem(Code.AXIS_OUT_OF_RANGE, f"{what}: {where} of {a.positional_text()} is empty: there is nothing "
                   "to take", axes=() if axis is None else (axis,), sizes=(0,))


def inexact_indices(indices: ArrayType, which: str, what: str) -> Problem | None:
    """SC301 where indices are floats or complex numbers: JAX gathers with integers only."""
    dtype = indices.dtype
    if dtype is None or dtype not in KINDS or KINDS[dtype][0] not in ("f", "c"):
        return None
    return Problem(Code.DTYPE_MISMATCH, f"{what}: indices must be of an integer type, but {which} is "
                                        f"{NUMPY_OF[narrowed(dtype)]} (cast it: `.astype(jnp.int32)`)")


def take_along_axis(arr: ArrayType, indices: ArrayType, axis: int | None,
                    labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.take_along_axis(arr, indices, axis)`: `indices` has `arr`'s rank; along `axis` its
    dim is the result's, and the other dims broadcast (SC101 where they cannot)."""
    inexact = inexact_indices(indices, label(labels, 1), "jnp.take_along_axis")
    if inexact is not None:
        return Outcome(arr.with_dims((), 0), (inexact,))
    problems: list[Problem] = []
    named = union_named([arr.named, indices.named], labels, problems)
    open_named = arr.named_open or indices.named_open
    if axis is None:
        if indices.rank is not None and indices.rank != 1:
            problems.append(Problem(
                Code.BROADCAST_MISMATCH, f"take_along_axis: with axis=None, {label(labels, 1)} must be 1-d, "
                f"but has shape {indices.positional_text()}", operands=(1,)))
            return Outcome(ArrayType(arr.dtype, (None,), named, None, open_named), tuple(problems))
        return Outcome(ArrayType(arr.dtype, indices.dims, named, indices.ellipsis, open_named), tuple(problems))
    where = axis_position(arr, axis, "take_along_axis")
    if isinstance(where, Problem):
        return Outcome(ArrayType(arr.dtype, (), named, 0, open_named), (*problems, where))
    if arr.ellipsis is not None or indices.ellipsis is not None:
        rank = arr.rank if arr.rank is not None else indices.rank
        dims: tuple[Dim, ...] = (None,) * rank if rank is not None else ()
        return Outcome(ArrayType(arr.dtype, dims, named, None if rank is not None else 0, open_named),
                       tuple(problems))
    assert where is not None
    if len(indices.dims) != len(arr.dims):
        problems.append(Problem(
            Code.BROADCAST_MISMATCH, f"take_along_axis: {label(labels, 1)} of shape {indices.positional_text()} "
            f"must have as many dims as {label(labels, 0)} of shape {arr.positional_text()}", operands=(0, 1)))
        return Outcome(ArrayType(arr.dtype, (None,) * len(arr.dims), named, None, open_named), tuple(problems))
    result: list[Dim] = []
    for i, (size, picked) in enumerate(zip(arr.dims, indices.dims, strict=True)):
        if i == where:
            result.append(picked)
            continue
        merged, ok = broadcast_dim(size, picked)
        if not ok:
            problems.append(Problem(
                Code.BROADCAST_MISMATCH, f"take_along_axis: axis {i} has size {format_dim(size)} in "
                f"{label(labels, 0)} but {format_dim(picked)} in {label(labels, 1)}; the dims other than "
                f"axis {axis} must broadcast", axes=(i,), sizes=(size, picked), operands=(0, 1)))
            merged = None
        result.append(merged)
    return Outcome(ArrayType(arr.dtype, tuple(result), named, None, open_named), tuple(problems))


def top_k(operand: ArrayType, k: Dim, axis: int = -1) -> Pieces:
    """`lax.top_k(operand, k, axis=axis)`: values and int32 indices, with `k` along `axis`."""
    if isinstance(k, int) and k < 0:
        return Pieces(None, (Problem(Code.SIZE_ARGUMENT_MISMATCH, f"top_k: k is {k}; it must not be negative"),))
    where = axis_position(operand, axis, "top_k")
    if isinstance(where, Problem):
        return Pieces(None, (where,))
    if where is None:
        values = operand.with_dims((), 0)
    else:
        size = operand.dims[where]
        if isinstance(k, int) and isinstance(size, int) and k > size:
            return Pieces(None, (Problem(
                Code.SIZE_ARGUMENT_MISMATCH, f"top_k: k is {k}, larger than axis {axis} of "
                f"{operand.positional_text()}", axes=(axis,), sizes=(size,)),))
        dims = list(operand.dims)
        dims[where] = k
        values = operand.with_dims(dims, operand.ellipsis)
    return Pieces((values, values.with_dtype(TOP_K_INDICES)))


def segment(data: ArrayType, segment_ids: ArrayType, num_segments: Dim, what: str,
            labels: Sequence[str] | None = None) -> Outcome:
    """`jax.ops.segment_sum(data, segment_ids, num_segments)` and its kin: `num_segments` rows
    (None: counted from the ids at run time) of `data`'s trailing dims. JAX scatters `data` into
    the rows, so it must broadcast to `segment_ids`' shape followed by `data`'s trailing dims:
    one row of data per segment id (SC101 otherwise)."""
    inexact = inexact_indices(segment_ids, label(labels, 1), what)
    if inexact is not None:
        return Outcome(data.with_dims((), 0), (inexact,))
    problems: list[Problem] = []
    named = union_named([data.named, segment_ids.named], labels, problems)
    open_named = data.named_open or segment_ids.named_open
    dtype = data.dtype  # a strong dtype: JAX builds the result with jnp.full(..., dtype=data.dtype)
    if isinstance(num_segments, int) and num_segments < 0:
        problems.append(Problem(Code.SIZE_ARGUMENT_MISMATCH, f"{what}: num_segments is {num_segments}; it must "
                                "not be negative"))
        num_segments = None
    if data.ellipsis == 0:
        return Outcome(ArrayType(dtype, (num_segments,), named, 1, open_named), tuple(problems))
    trailing = data.dims[1:]
    ellipsis = None if data.ellipsis is None else data.ellipsis
    result = ArrayType(dtype, (num_segments, *trailing), named, ellipsis, open_named)
    if segment_ids.rank == 0 and num_segments == 0:
        problems.append(Problem(Code.AXIS_OUT_OF_RANGE, f"{what}: a single segment id indexes the result, which "
                                "has no rows (num_segments is 0)", sizes=(0,)))
    if data.ellipsis is None and segment_ids.ellipsis is None:
        target = segment_ids.dims + trailing
        # JAX skips the scatter, and its check, when there is nothing to write.
        writes = all(isinstance(d, int) and d > 0 for d in target)
        if writes and not broadcasts_to(data.dims, target):
            problems.append(Problem(
                Code.BROADCAST_MISMATCH, f"{what}: {label(labels, 0)} of shape {data.positional_text()} does not fit "
                f"{label(labels, 1)} of shape {segment_ids.positional_text()}: the data must have one row per "
                f"segment id (it must broadcast to {_text(target)})", operands=(0, 1)))
    return Outcome(result, tuple(problems))


def _text(dims: tuple[Dim, ...]) -> str:
    return "(" + ", ".join(format_dim(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
