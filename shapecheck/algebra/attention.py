"""`jax.nn.dot_product_attention`: query `(B, T, N, H)`, key and value `(B, S, K, H)`.

The checks are JAX's own (`jax._src.nn.functions.dot_product_attention`): operands of fewer
than 4 dims gain leading 1s; value has key's shape exactly; query has key's batch and head
size; the query heads N are a multiple of the key/value heads K (grouped-query attention);
bias and mask broadcast to the logits `(B, N, T, S)` without gaining dims; sequence lengths
are one per batch element. The result has the query's shape.

flax's attention (`flax.linen`'s and `flax.nnx`'s `dot_product_attention`, which their attention
layers call on the projected heads, and `make_attention_mask`) has the same layout but its own
checks: nnx without dropout runs jax.nn's (its batch dims flattened into one), linen, and nnx
with dropout, mask the weights themselves with `jnp.where` (`flax/linen/attention.py`,
`flax/nnx/nn/attention.py`).
"""

from __future__ import annotations

from enum import IntEnum

from shapecheck.algebra.broadcast import broadcast, union_named
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.algebra.promotion import Typed, inexact, result_type
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim, format_shape, product
from shapecheck.types import ArrayType

WHAT = "jax.nn.dot_product_attention"


class AttentionArg(IntEnum):
    """The arguments, as `Problem.operands` names them."""

    QUERY = 0
    KEY = 1
    VALUE = 2
    BIAS = 3
    MASK = 4
    QUERY_SEQ_LENGTHS = 5
    KEY_VALUE_SEQ_LENGTHS = 6


def dot_product_attention(
    query: ArrayType, key: ArrayType, value: ArrayType, bias: ArrayType | None = None,
    mask: ArrayType | None = None, query_seq_lengths: ArrayType | None = None,
    key_value_seq_lengths: ArrayType | None = None, what: str = WHAT,
) -> Outcome:
    """The attention output's type (the query's), and the problems JAX raises for these operands;
    `what` names the API called (flax's attention runs this one)."""
    problems: list[Problem] = []
    arrays = {AttentionArg.QUERY: query, AttentionArg.KEY: key, AttentionArg.VALUE: value,
              AttentionArg.BIAS: bias, AttentionArg.MASK: mask}
    padded: dict[AttentionArg, tuple[Dim, ...] | None] = {}
    for arg, array in arrays.items():
        if array is None:
            continue
        if array.rank is not None and array.rank > 4:
            problems.append(Problem(
                Code.AXIS_OUT_OF_RANGE,
                f"{what}: {arg.name.lower()} has {array.rank} dims {array.positional_text()}; it takes at most 4 "
                f"({_LAYOUT[arg]}), fewer gaining leading 1s", operands=(arg,)))
        padded[arg] = (1,) * (4 - array.rank) + array.dims if array.rank is not None and array.rank <= 4 else None
    named = union_named([a.named for a in (query, key, value)], None, problems)
    dtype = query.dtype if query.dtype == key.dtype == value.dtype else None
    result = ArrayType(dtype, query.dims, named, query.ellipsis, query.named_open or key.named_open
                       or value.named_open)
    key4, value4, query4 = padded.get(AttentionArg.KEY), padded.get(AttentionArg.VALUE), padded.get(AttentionArg.QUERY)
    batch, source, kv_heads, head = key4 if key4 is not None else (None, None, None, None)
    if key4 is not None and value4 is not None and any(certainly_differ(a, b) for a, b in zip(value4, key4, strict=True)):
        problems.append(_operands(f"value's shape {value.positional_text()} must equal key's "
                                  f"{key.positional_text()} (B, S, K, H)", AttentionArg.VALUE, what))
    target, heads = None, None
    if query4 is not None:
        target, heads = query4[1], query4[2]
        for name, index, want in (("batch", 0, batch), ("head size", 3, head)):
            if certainly_differ(query4[index], want):
                problems.append(_operands(
                    f"query {query.positional_text()} has {name} {format_dim(query4[index])} but key "
                    f"{key.positional_text()} has {format_dim(want)} (query is (B, T, N, H), key (B, S, K, H))",
                    AttentionArg.QUERY, what))
    if isinstance(heads, int) and isinstance(kv_heads, int) and (kv_heads == 0 or heads % kv_heads):
        problems.append(_operands(f"{heads} query heads are not a multiple of the {kv_heads} key/value heads",
                                  AttentionArg.QUERY, what))
    logits = (batch, heads, target, source)
    for arg in (AttentionArg.BIAS, AttentionArg.MASK):
        dims, array = padded.get(arg), arrays[arg]
        if dims is not None and array is not None and not _fits_logits(dims, logits):
            problems.append(_unfit(f"{what}: {arg.name.lower()} {array.positional_text()}", logits, arg))
    for arg, lengths in ((AttentionArg.QUERY_SEQ_LENGTHS, query_seq_lengths),
                         (AttentionArg.KEY_VALUE_SEQ_LENGTHS, key_value_seq_lengths)):
        if lengths is not None and lengths.rank is not None and (
                lengths.rank != 1 or certainly_differ(lengths.dims[0], batch)):
            problems.append(Problem(
                Code.BROADCAST_MISMATCH,
                f"{what}: {arg.name.lower()} {lengths.positional_text()} must hold one length per batch "
                f"element: shape ({format_dim(batch)},)", operands=(arg,)))
    return Outcome(result, tuple(problems))


_LAYOUT = {AttentionArg.QUERY: "B, T, N, H", AttentionArg.KEY: "B, S, K, H", AttentionArg.VALUE: "B, S, K, H",
           AttentionArg.BIAS: "B, N, T, S", AttentionArg.MASK: "B, N, T, S"}


def _fits_logits(dims: tuple[Dim, ...], logits: tuple[Dim, ...]) -> bool:
    """Whether a bias or mask of 4 dims may broadcast to the logits (no new dims come in front):
    each dim 1 or the logits'. Where S is 1 the logits broadcast to it instead, and the product
    with value broadcasts again (JAX accepts it); a B or T that grows no longer fits the query."""
    return not any(_refuses(d, want) and not (index == 3 and want == 1)
                   for index, (d, want) in enumerate(zip(dims, logits, strict=True)))


def _unfit(shown: str, logits: tuple[Dim, ...], arg: AttentionArg, note: str = "") -> Problem:
    """A bias or mask (`shown`: the API and the operand) that does not fit the logits."""
    return Problem(Code.BROADCAST_MISMATCH,
                   f"{shown} does not broadcast to the logits (B, N, T, S) = ({', '.join(format_dim(d) for d in logits)})"
                   f": each dim must be 1 or the logits' size{note}", operands=(arg,))


def _refuses(size: Dim, want: Dim) -> bool:
    """A bias or mask dim that cannot broadcast to the logits' `want` (no new dims come in front)."""
    return isinstance(size, int) and size != 1 and certainly_differ(size, want)


def _operands(message: str, arg: AttentionArg, what: str) -> Problem:
    return Problem(Code.CONTRACTION_MISMATCH, f"{what}: {message}", operands=(arg,))


# -- flax's attention ---------------------------------------------------------------------------

_WEIGHTS = "(batch..., heads, q_length, kv_length)"


def fused_mask(mask: ArrayType, batch: tuple[Dim, ...], heads: Dim, target: Dim, source: Dim,
               what: str) -> Problem | None:
    """The mask of flax's attention where it runs `jax.nn.dot_product_attention` (nnx's
    `dot_product_attention` and `MultiHeadAttention` without dropout or sown weights) on heads
    `(*batch, length, heads, depth)`: with several batch dims, flax first flattens them into
    one, and the mask's dims before its last three likewise; then jax.nn's rule holds (at most 4
    dims, fewer gaining leading 1s, each 1 or the logits' size)."""
    if mask.rank is None or mask.ellipsis is not None:
        return None
    dims, note = mask.dims, _padding_hint(mask)
    if len(batch) > 1:
        dims = (product(dims[:-3]), *dims[-3:])
        note = (f" (flax flattens the batch dims {format_shape(batch)} into one, and the mask's dims before its "
                f"last three likewise: {format_shape(dims)})")
    if len(dims) > 4:
        return Problem(Code.AXIS_OUT_OF_RANGE,
                       f"{what}: the mask {mask.positional_text()} has {len(dims)} dims, but {WHAT}, which flax "
                       f"runs here, takes at most 4 ({_LAYOUT[AttentionArg.MASK]}), fewer gaining leading 1s",
                       operands=(AttentionArg.MASK,))
    logits = (product(batch), heads, target, source)
    if _fits_logits((1,) * (4 - len(dims)) + dims, logits):
        return None
    return _unfit(f"{what}: the mask {mask.positional_text()}", logits, AttentionArg.MASK, note)


def masked_weights(mask: ArrayType, weights: tuple[Dim, ...], what: str) -> tuple[Problem | None, bool]:
    """The mask of flax's attention where it masks the weights `(*batch, heads, q_length,
    kv_length)` itself (linen's attention, nnx's with dropout or sown weights):
    `jnp.where(mask, weights, big_neg)`, NumPy's broadcasting. The problem where they do not
    broadcast; and whether the mask widens the weights (more dims, or a size where they have 1),
    which flax then carries on to the output (JAX accepts it; not followed)."""
    if mask.rank is None or mask.ellipsis is not None:
        return None, False
    if broadcast([ArrayType(None, weights), ArrayType(None, mask.dims)]).problems:
        return Problem(Code.BROADCAST_MISMATCH,
                       f"{what}: the mask {mask.positional_text()} does not broadcast with the attention weights "
                       f"{_WEIGHTS} = {format_shape(weights)}, which flax masks with jnp.where: each of its dims, "
                       f"counted from the last, must be 1 or the weights' size{_padding_hint(mask)}",
                       operands=(AttentionArg.MASK,)), False
    widened = mask.rank > len(weights) or any(
        size == 1 and isinstance(dim, int) and dim != 1
        for dim, size in zip(reversed(mask.dims), reversed(weights), strict=False))
    return None, widened


def _padding_hint(mask: ArrayType) -> str:
    """The usual mistake: a padding mask `(batch, length)` given as it is."""
    if mask.rank != 2:
        return ""
    return ("; make a (batch, length) padding mask (batch, 1, q_length, kv_length) with "
            "make_attention_mask(padding, padding)")


def flax_attention(query: ArrayType, key: ArrayType, value: ArrayType, bias: ArrayType | None,
                   mask: ArrayType | None, dtype: str | None, what: str, *, nnx: bool, fused: bool) -> Outcome:
    """flax's `dot_product_attention(query, key, value, bias, mask)` on `(*batch, length, heads,
    depth)`: the three of one rank and of the same batch dims, the key and the value of one
    length (nnx: a ValueError; linen: an AssertionError, its heads equal too). nnx without
    dropout (`fused`) then runs jax.nn's attention, its batch dims (and the bias's and mask's
    leading dims) flattened into one where there are several; otherwise the weights `(*batch,
    heads, q_length, kv_length)` take the bias and mask by broadcasting (nnx: query heads a
    multiple of the key's and value's, grouped-query attention). The result is `(*batch,
    q_length, heads, value depth)`; `dtype` is flax's promotion of the three."""
    unknown = ArrayType(dtype, (), ellipsis=0)
    operands = (query, key, value)
    if any(x.rank is None or x.ellipsis is not None or x.rank < 3 for x in operands):
        return Outcome(unknown)
    problem = _same_layout(query, key, value, what)
    if problem is not None:
        return Outcome(unknown, (problem,))
    batch = query.dims[:-3]
    if fused:
        flat = [_flattened(x) if x is not None and len(batch) > 1 else x for x in (*operands, bias, mask)]
        q, k, v, b, m = flat
        assert q is not None and k is not None and v is not None
        ran = dot_product_attention(q, k, v, b, m, what=f"{what} (by {WHAT})")
        return Outcome(ArrayType(dtype, query.dims, ran.type.named, None, ran.type.named_open), ran.problems)
    heads, target, source = query.dims[-2], query.dims[-3], key.dims[-3]
    for other, name in ((key, "key"), (value, "value")):
        kept = other.dims[-2]
        grouped = nnx and isinstance(heads, int) and isinstance(kept, int) and kept > 0 and heads % kept == 0
        if certainly_differ(heads, kept) and not grouped:
            return Outcome(unknown, (_operands(
                f"the query's {format_dim(heads)} heads and the {name}'s {format_dim(kept)} must be equal"
                + (" (or the query's a multiple of them, grouped-query attention)" if nnx else ""),
                AttentionArg.KEY if name == "key" else AttentionArg.VALUE, what),))
    if certainly_differ(query.dims[-1], key.dims[-1]):
        return Outcome(unknown, (_operands(
            f"the query's depth {format_dim(query.dims[-1])} and the key's {format_dim(key.dims[-1])} must be equal "
            "(the weights contract them)", AttentionArg.KEY, what),))
    weights = (*batch, heads, target, source)
    widened = False
    if bias is not None and bias.rank is not None and bias.ellipsis is None:
        summed = broadcast([ArrayType(None, weights), ArrayType(None, bias.dims)])
        if summed.problems:
            return Outcome(unknown, (Problem(
                Code.BROADCAST_MISMATCH, f"{what}: the bias {bias.positional_text()} does not broadcast with the "
                f"attention weights {_WEIGHTS} = {format_shape(weights)}, which flax adds it to",
                operands=(AttentionArg.BIAS,)),))
        widened = summed.type.ellipsis is not None or summed.type.dims != weights
    if mask is not None:
        problem, masked_wider = masked_weights(mask, weights, what)
        if problem is not None:
            return Outcome(unknown, (problem,))
        widened = widened or masked_wider
    if widened:
        return Outcome(unknown)
    named = union_named([x.named for x in operands], None, [])
    return Outcome(ArrayType(dtype, (*batch, target, heads, value.dims[-1]), named, None,
                             any(x.named_open for x in operands)))


def flax_dtype(*operands: ArrayType) -> str | None:
    """flax's `promote_dtype` of the operands: their promoted dtype, a float where it is not one
    (flax asks for an inexact dtype: ints and bools promote with float32)."""
    joint = result_type(*(Typed(x.dtype, x.weak) for x in operands))
    if joint.dtype is None or inexact(joint) == joint:
        return joint.dtype
    return result_type(joint, Typed("f32")).dtype


def _same_layout(query: ArrayType, key: ArrayType, value: ArrayType, what: str) -> Problem | None:
    """flax's first checks of `(*batch, length, heads, depth)` operands: one rank, the same batch
    dims (exactly: flax compares them, nothing broadcasts), one length for the key and value."""
    if not query.rank == key.rank == value.rank:
        return _operands(f"the query {query.positional_text()}, key {key.positional_text()} and value "
                         f"{value.positional_text()} must have one rank (batch..., length, heads, depth)",
                         AttentionArg.KEY, what)
    for other, name in ((key, "key"), (value, "value")):
        if any(certainly_differ(a, b) for a, b in zip(query.dims[:-3], other.dims[:-3], strict=True)):
            return _operands(f"the query's batch dims {format_shape(query.dims[:-3])} and the {name}'s "
                             f"{format_shape(other.dims[:-3])} must be equal", AttentionArg.KEY, what)
    if certainly_differ(key.dims[-3], value.dims[-3]):
        return _operands(f"the key's length {format_dim(key.dims[-3])} and the value's {format_dim(value.dims[-3])} "
                         "must be equal", AttentionArg.VALUE, what)
    return None


def _flattened(x: ArrayType) -> ArrayType:
    """flax's `reshape_4d`: the dims before the last three made one."""
    if x.rank is None or x.ellipsis is not None:
        return x
    return ArrayType(x.dtype, (product(x.dims[:-3]), *x.dims[-3:]), x.named, None, x.named_open, x.weak)


def attention_mask(query_input: ArrayType, key_input: ArrayType, extra_batch_dims: int, dtype: str | None,
                   what: str) -> Outcome:
    """flax's `make_attention_mask(query_input, key_input)`: `pairwise_fn` (elementwise) of the
    query input with a new last axis and the key input with a new axis before its last,
    `(batch..., q_length, 1)` against `(batch..., 1, kv_length)` (their batch dims broadcast), a
    1 for the heads inserted before the last two dims and `extra_batch_dims` 1s in front:
    `(1, ..., batch..., 1, q_length, kv_length)` of `dtype`."""
    unknown = ArrayType(dtype, (), ellipsis=0)
    if any(x.rank is None or x.ellipsis is not None for x in (query_input, key_input)):
        return Outcome(unknown)
    if key_input.rank == 0:
        return Outcome(unknown, (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what}: the key input is a scalar, but its last dim is the key length "
            "(batch..., kv_length) to pair with each query position", axes=(-1,), operands=(1,)),))
    rows = ArrayType(None, (*query_input.dims, 1), query_input.named, None, query_input.named_open)
    columns = ArrayType(None, (*key_input.dims[:-1], 1, key_input.dims[-1]), key_input.named, None,
                        key_input.named_open)
    paired = broadcast([rows, columns])
    if paired.problems:
        return Outcome(unknown, (Problem(
            Code.BROADCAST_MISMATCH, f"{what}: the query input {query_input.positional_text()} and the key input "
            f"{key_input.positional_text()} pair as {rows.positional_text()} and {columns.positional_text()} "
            "(batch..., q_length, kv_length), whose batch dims do not broadcast", operands=(0, 1)),))
    if paired.type.ellipsis is not None:
        return Outcome(unknown)
    dims = paired.type.dims
    return Outcome(ArrayType(dtype, ((1,) * max(extra_batch_dims, 0) + dims[:-2] + (1,) + dims[-2:]),
                             paired.type.named, None, paired.type.named_open))
