"""`jax.nn.dot_product_attention`: query `(B, T, N, H)`, key and value `(B, S, K, H)`.

The checks are JAX's own (`jax._src.nn.functions.dot_product_attention`): operands of fewer
than 4 dims gain leading 1s; value has key's shape exactly; query has key's batch and head
size; the query heads N are a multiple of the key/value heads K (grouped-query attention);
bias and mask broadcast to the logits `(B, N, T, S)` without gaining dims; sequence lengths
are one per batch element. The result has the query's shape.
"""

from __future__ import annotations

from enum import IntEnum

from shapecheck.algebra.broadcast import union_named
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim
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
    key_value_seq_lengths: ArrayType | None = None,
) -> Outcome:
    """The attention output's type (the query's), and the problems JAX raises for these operands."""
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
                f"{WHAT}: {arg.name.lower()} has {array.rank} dims {array.positional_text()}; it takes at most 4 "
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
                                  f"{key.positional_text()} (B, S, K, H)", AttentionArg.VALUE))
    target, heads = None, None
    if query4 is not None:
        target, heads = query4[1], query4[2]
        for name, index, want in (("batch", 0, batch), ("head size", 3, head)):
            if certainly_differ(query4[index], want):
                problems.append(_operands(
                    f"query {query.positional_text()} has {name} {format_dim(query4[index])} but key "
                    f"{key.positional_text()} has {format_dim(want)} (query is (B, T, N, H), key (B, S, K, H))",
                    AttentionArg.QUERY))
    if isinstance(heads, int) and isinstance(kv_heads, int) and (kv_heads == 0 or heads % kv_heads):
        problems.append(_operands(f"{heads} query heads are not a multiple of the {kv_heads} key/value heads",
                                  AttentionArg.QUERY))
    logits = (batch, heads, target, source)
    for arg in (AttentionArg.BIAS, AttentionArg.MASK):
        dims = padded.get(arg)
        # Where S is 1 the logits broadcast to the bias instead, and the product with value
        # broadcasts again (JAX accepts it); a B or T that grows no longer fits the query.
        if dims is not None and any(_refuses(d, want) and not (index == 3 and want == 1)
                                    for index, (d, want) in enumerate(zip(dims, logits, strict=True))):
            array = arrays[arg]
            assert array is not None
            problems.append(Problem(
                Code.BROADCAST_MISMATCH,
                f"{WHAT}: {arg.name.lower()} {array.positional_text()} does not broadcast to the logits "
                f"(B, N, T, S) = ({', '.join(format_dim(d) for d in logits)}): each dim must be 1 or the "
                "logits' size", operands=(arg,)))
    for arg, lengths in ((AttentionArg.QUERY_SEQ_LENGTHS, query_seq_lengths),
                         (AttentionArg.KEY_VALUE_SEQ_LENGTHS, key_value_seq_lengths)):
        if lengths is not None and lengths.rank is not None and (
                lengths.rank != 1 or certainly_differ(lengths.dims[0], batch)):
            problems.append(Problem(
                Code.BROADCAST_MISMATCH,
                f"{WHAT}: {arg.name.lower()} {lengths.positional_text()} must hold one length per batch "
                f"element: shape ({format_dim(batch)},)", operands=(arg,)))
    return Outcome(result, tuple(problems))


_LAYOUT = {AttentionArg.QUERY: "B, T, N, H", AttentionArg.KEY: "B, S, K, H", AttentionArg.VALUE: "B, S, K, H",
           AttentionArg.BIAS: "B, N, T, S", AttentionArg.MASK: "B, N, T, S"}


def _refuses(size: Dim, want: Dim) -> bool:
    """A bias or mask dim that cannot broadcast to the logits' `want` (no new dims come in front)."""
    return isinstance(size, int) and size != 1 and certainly_differ(size, want)


def _operands(message: str, arg: AttentionArg) -> Problem:
    return Problem(Code.CONTRACTION_MISMATCH, f"{WHAT}: {message}", operands=(arg,))
