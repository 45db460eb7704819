"""Neural-network layers of flax.linen, flax.nnx and equinox: the shape each gives its input,
and what the library refuses when it builds the layer's parameters from that input.

A linen layer's parameters are made from the first input it sees (`model.init`), so most
mismatches cannot happen: what is checked is what the library itself raises at trace time with
known shapes (a Dense layer on a scalar, groups that do not divide the features). An nnx or
equinox layer is built with its sizes, and an input of another size is refused. The formulas
are the libraries' own (flax `linen/linear.py`, `linen/normalization.py`, `linen/attention.py`,
`nnx/nn/linear.py`, `nnx/nn/normalization.py`; equinox `nn/_linear.py`, `nn/_normalisation.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra import linalg
from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.outcome import Outcome, Problem, normalize_axis
from shapecheck.algebra.promotion import Typed, shown
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim, format_shape, product
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType


def _unknown(dtype: str | None, x: ArrayType | None = None) -> ArrayType:
    return _like(x, dtype, (), ellipsis=0)


def _like(x: ArrayType | None, dtype: str | None, dims: tuple[Dim, ...], ellipsis: int | None = None) -> ArrayType:
    """A result with `x`'s named axes (vmap's hidden ones among them), its own positional dims."""
    if x is None:
        return ArrayType(dtype, dims, ellipsis=ellipsis)
    return ArrayType(dtype, dims, x.named, ellipsis, x.named_open)


def dense(x: ArrayType, features: Dim, dtype: str | None, what: str = "flax.linen.Dense") -> Outcome:
    """`nn.Dense(features)(x)`: `x.shape[:-1] + (features,)`; flax reads `x.shape[-1]` for the
    kernel, which a scalar lacks (an IndexError)."""
    if x.rank == 0 and x.ellipsis is None:
        return Outcome(_unknown(dtype, x), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what} needs an input with a last dim to contract, but its input is a "
            "scalar; reshape it to (1,) or use a layer per element", axes=(-1,), operands=(0,)),))
    if x.rank is None:
        return Outcome(_unknown(dtype, x))
    return Outcome(_like(x, dtype, (*x.dims[:-1], features)))


def haiku_linear(x: ArrayType, size: Dim, what: str) -> Outcome:
    """`hk.Linear(size)(x)`: `x.shape[:-1] + (size,)`, its weights of x's dtype (unknown for
    integers, which haiku's initialisers do not make); a scalar is refused ("Input must not be
    scalar.")."""
    dtype = x.dtype if x.dtype is not None and kind_of(x.dtype) in ("f", "c") else None
    if x.rank == 0 and x.ellipsis is None:
        return Outcome(_unknown(dtype, x), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what}: the input is a scalar; haiku's linear layers need at least one dim"),))
    return Outcome(ArrayType(dtype, (*x.dims[:-1], size), x.named, x.ellipsis, x.named_open))


def kernel_linear(x: ArrayType, in_features: Dim, out_features: Dim, dtype: str | None, what: str) -> Outcome:
    """`nnx.Linear(in_features, out_features)(x)`: x's last dim contracted with a kernel
    `(in_features, out_features)` (`lax.dot_general`), the leading dims kept."""
    if x.rank == 0 and x.ellipsis is None:
        return Outcome(_unknown(dtype, x), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what} contracts its input's last dim, but its input is a scalar; "
            "reshape it to (1,)", axes=(-1,), operands=(0,)),))
    if x.rank is None or x.ellipsis is not None:
        return Outcome(_unknown(dtype, x))
    last = x.dims[-1]
    if certainly_differ(last, in_features):
        return Outcome(_unknown(dtype, x), (Problem(
            Code.CONTRACTION_MISMATCH, f"{what}: its kernel takes {format_dim(in_features)} input features, but its "
            f"input's last dim is {format_dim(last)}", sizes=(last, in_features), operands=(0,)),))
    return Outcome(_like(x, dtype, (*x.dims[:-1], out_features)))


def feature_count(x: ArrayType, features: Dim, what: str) -> Problem | None:
    """A normalisation built for `features` (nnx's `LayerNorm(num_features)`, `BatchNorm`,
    `RMSNorm`) on an input whose last dim is another size: its scale and bias do not fit it (a
    TypeError)."""
    if x.rank is None or x.ellipsis is not None or x.rank == 0:
        return None
    if certainly_differ(x.dims[-1], features):
        return Problem(Code.ANNOTATION_MISMATCH,
                       f"{what} normalises {format_dim(features)} features, but its input's last dim is "
                       f"{format_dim(x.dims[-1])} (input shape {format_shape(x.dims)})",
                       sizes=(x.dims[-1], features), operands=(0,))
    return None


def dense_general(x: ArrayType, features: Sequence[Dim], axis: Sequence[int], dtype: str | None) -> Outcome:
    """`nn.DenseGeneral(features, axis)(x)`: the dims not contracted, in order, then `features`.
    An axis beyond the input's rank leaves the result unknown."""
    if x.rank is None:
        return Outcome(_unknown(dtype, x))
    places = [normalize_axis(a, x.rank) for a in axis]
    if any(place is None for place in places) or len(set(places)) != len(places):
        return Outcome(_unknown(dtype, x))
    kept = tuple(d for index, d in enumerate(x.dims) if index not in places)
    return Outcome(_like(x, dtype, (*kept, *features)))


def embed(ids: ArrayType, features: Dim, dtype: str | None) -> Outcome:
    """`nn.Embed(num_embeddings, features)(ids)`: one row of the table per id."""
    if ids.rank is None:
        return Outcome(_unknown(dtype, ids))
    return Outcome(_like(ids, dtype, (*ids.dims, features)))


def integer_ids(ids: ArrayType, what: str) -> Problem | None:
    """flax's embeddings look rows up by integer ids, and refuse any other dtype (a ValueError:
    floats are not rounded, booleans not counted)."""
    kind = kind_of(ids.dtype)
    if kind is None or kind in ("i", "u"):
        return None
    return Problem(Code.DTYPE_MISMATCH, f"{what} looks rows up by integer ids, but its input is "
                   f"{shown(Typed(ids.dtype))}; convert it (`.astype(jnp.int32)`)", operands=(0,))


def attend(query: ArrayType, num_embeddings: Dim, dtype: str | None) -> Outcome:
    """`embed.attend(query)`: `query @ table.T`, the last dim (the features) becoming the ids."""
    if query.rank is None or query.rank == 0:
        return Outcome(_unknown(dtype, query))
    return Outcome(_like(query, dtype, (*query.dims[:-1], num_embeddings)))


def groups_divide(features: Dim, groups: Dim, what: str, unit: str = "channels", parts: str = "groups",
                  where: str = "of its input's last dim") -> Problem | None:
    """flax's `GroupNorm` splits the last dim into groups, and attention its features into
    heads (linen's those of its input, nnx's those it is built with): a count that does not
    divide them is refused (a ValueError or an AssertionError)."""
    if isinstance(features, int) and isinstance(groups, int) and groups > 0 and features % groups:
        return Problem(Code.RESHAPE_MISMATCH,
                       f"{what}: {groups} {parts} do not divide the {features} {unit} {where}",
                       sizes=(features, groups), operands=(0,))
    return None


def instance_norm_rank(x: ArrayType, what: str) -> Problem | None:
    """flax's `InstanceNorm` (linen's and nnx's) normalises each example over its dims between
    the batch dim and the features (the last): a scalar has no features (an IndexError), and
    one dim is the batch's, which cannot be the features too (a ValueError)."""
    if x.rank is not None and x.ellipsis is None and x.rank < 2:
        return Problem(Code.AXIS_OUT_OF_RANGE, f"{what} normalises each example of a batch over all but its "
                       f"features (the last dim), so its input needs a batch dim and a feature dim, but it is "
                       f"{x.positional_text()}", axes=(-1,), operands=(0,))
    return None


def multi_head_attention(query: ArrayType, key: ArrayType | None, num_heads: Dim, qkv_features: Dim | None,
                         out_features: Dim | None, dtype: str | None, what: str) -> Outcome:
    """`nn.MultiHeadDotProductAttention(num_heads)(q, kv)`: the query's shape with its last dim
    `out_features` (default the query's); the query/key/value features (default the query's
    last dim) are split into `num_heads` heads."""
    if query.rank is None or query.ellipsis is not None:
        return Outcome(_unknown(dtype, query))
    if query.rank == 0:
        return Outcome(_unknown(dtype, query), (_no_length(query, what),))
    features = qkv_features if qkv_features is not None else query.dims[-1]
    problem = groups_divide(features, num_heads, what, "query/key/value features", "heads")
    if problem is not None:
        return Outcome(_unknown(dtype, query), (problem,))
    if query.rank == 1:
        # Checked after the heads (flax asserts they divide the features first): the heads'
        # projection is (heads, head features), and the attention reads the length before it.
        return Outcome(_unknown(dtype, query), (_no_length(query, what),))
    out = out_features if out_features is not None else query.dims[-1]
    del key  # the key and value are projected to the same features: their sizes do not show
    return Outcome(_like(query, dtype, (*query.dims[:-1], out)))


def projected_attention(query: ArrayType, key: ArrayType, in_features: Dim, kv_features: Dim, out_features: Dim,
                        dtype: str | None, what: str) -> Outcome:
    """nnx's `MultiHeadAttention(num_heads, in_features, ...)(q, k)`: the query's last dim is
    `in_features` and the key's (its value's too) `in_kv_features`, each projected by a kernel
    built for it; the query and key share their batch dims (their lengths may differ). The
    result is the query's shape with `out_features` last."""
    if query.rank is None or query.ellipsis is not None or key.rank is None or key.ellipsis is not None:
        return Outcome(_unknown(dtype, query))
    if query.rank and certainly_differ(query.dims[-1], in_features):
        return Outcome(_unknown(dtype, query), (Problem(
            Code.CONTRACTION_MISMATCH, f"{what} projects {format_dim(in_features)} query features, but its query's "
            f"last dim is {format_dim(query.dims[-1])}", sizes=(query.dims[-1], in_features), operands=(0,)),))
    if query.rank < 2:
        return Outcome(_unknown(dtype, query), (_no_length(query, what),))
    if key.rank and certainly_differ(key.dims[-1], kv_features):
        return Outcome(_unknown(dtype, query), (Problem(
            Code.CONTRACTION_MISMATCH, f"{what} projects {format_dim(kv_features)} key/value features, but its key's "
            f"last dim is {format_dim(key.dims[-1])}", sizes=(key.dims[-1], kv_features), operands=(1,)),))
    if key.rank != query.rank or any(certainly_differ(a, b) for a, b in zip(query.dims[:-2], key.dims[:-2], strict=False)):
        if key.rank < 2 or key.rank != query.rank:
            return Outcome(_unknown(dtype, query))  # another rank: nnx's own error, not followed
        return Outcome(_unknown(dtype, query), (Problem(
            Code.BROADCAST_MISMATCH, f"{what}: the query's batch dims {format_shape(query.dims[:-2])} and the key's "
            f"{format_shape(key.dims[:-2])} must be the same", operands=(0, 1)),))
    return Outcome(_like(query, dtype, (*query.dims[:-1], out_features)))


def _no_length(query: ArrayType, what: str) -> Problem:
    """Attention over a query without a length axis (flax: IndexError, tuple index out of range)."""
    return Problem(Code.AXIS_OUT_OF_RANGE,
                   f"{what} attends over (..., length, features), but its input has shape "
                   f"{format_shape(query.dims)}: no length axis before the features (make it (1, "
                   f"features) for one position)", axes=(-2,), operands=(0,))


def linear(x: ArrayType, in_features: Dim | str, out_features: Dim | str, dtype: str | None,
           what: str = "equinox.nn.Linear", bias: bool | None = True) -> Outcome:
    """`eqx.nn.Linear(in_features, out_features)(x)`: `weight @ x + bias`, the weight
    `(out_features, in_features)`; "scalar" for a size is a 0-d input or output. `bias`: whether
    it has one (None: not known)."""
    out: tuple[Dim, ...] = () if isinstance(out_features, str) else (out_features,)
    if isinstance(in_features, str):
        if x.rank == 0:
            return Outcome(_like(x, dtype, out))
        return Outcome(_unknown(dtype, x))  # equinox raises a ValueError: not a shape rule we report
    weight = ArrayType(x.dtype, (*out, in_features))
    product = linalg.matmul(weight, x, (f"{what}'s weight", "its input"))
    if product.problems:
        shown = f"{what}({format_dim(in_features)}, {out_features if isinstance(out_features, str) else format_dim(out_features)})"
        return Outcome(_unknown(dtype, x), tuple(
            Problem(p.code, f"{shown}: {p.message}", p.axes, p.sizes, (0,)) for p in product.problems))
    if bias is False:
        return Outcome(_like(x, dtype, product.type.dims, product.type.ellipsis))
    summed = broadcast([product.type, ArrayType(product.type.dtype, out)])
    if summed.problems and bias:
        # A batch given to a layer of one example: `weight @ x` keeps the batch last, where the
        # bias does not fit (equinox's users vmap the layer instead).
        shown = f"{what}({format_dim(in_features)}, {out_features if isinstance(out_features, str) else format_dim(out_features)})"
        return Outcome(_unknown(dtype, x), (Problem(
            Code.BROADCAST_MISMATCH,
            f"{shown}: its bias {format_shape(out)} does not broadcast with `weight @ x` of shape "
            f"{format_shape(product.type.dims)}: it takes one example of shape ({format_dim(in_features)},); "
            "jax.vmap it over the batch", operands=(0,)),))
    if summed.problems:
        return Outcome(_unknown(dtype, x))
    return Outcome(_like(x, dtype, summed.type.dims, summed.type.ellipsis))


def layer_norm_shape(x: ArrayType, shape: tuple[Dim, ...], what: str = "equinox.nn.LayerNorm") -> Problem | None:
    """`eqx.nn.LayerNorm(shape)(x)` requires `x.shape == shape` (a ValueError)."""
    if x.rank is None:
        return None
    if x.rank != len(shape) or any(certainly_differ(a, b) for a, b in zip(x.dims, shape, strict=True)):
        return Problem(Code.ANNOTATION_MISMATCH,
                       f"{what}{format_shape(shape)} normalises arrays of shape {format_shape(shape)}, but its input "
                       f"has shape {format_shape(x.dims)}; build it with the input's shape (vmap it over batch dims)",
                       operands=(0,))
    return None



def unbatched_attention(query: ArrayType, key: ArrayType, value: ArrayType, mask: ArrayType | None,
                        num_heads: Dim, in_sizes: tuple[Dim, Dim, Dim], output_size: Dim, dtype: str | None,
                        what: str) -> Outcome:
    """equinox's `MultiheadAttention(num_heads, query_size, ...)(query, key, value, mask)`: each
    of the three is one unbatched `(length, features)` sequence (a ValueError otherwise), its
    features the size its projection was built for (`in_sizes`: a contraction); the key and the
    value have one length; a mask is `(query length, key length)`, or that per head. Each
    projection is reshaped to `(length, num_heads, -1)`, which a length of 0 cannot be. The
    result is `(query length, output_size)`."""
    names = ("query", "key", "value")
    operands = (query, key, value)
    if any(x.rank is None or x.ellipsis is not None for x in operands):
        return Outcome(_unknown(dtype, query))
    for index, x in enumerate(operands):
        if len(x.dims) != 2:
            return Outcome(_unknown(dtype, query), (Problem(
                Code.ANNOTATION_MISMATCH, f"{what} takes one unbatched (length, features) sequence each for the "
                f"query, key and value, but its {names[index]} has shape {format_shape(x.dims)}"
                + ("; vmap it over the batch dims" if len(x.dims) > 2 else ""), operands=(index,)),))
    if certainly_differ(key.dims[0], value.dims[0]):
        return Outcome(_unknown(dtype, query), (Problem(
            Code.CONTRACTION_MISMATCH, f"{what}: the key's length {format_dim(key.dims[0])} and the value's "
            f"{format_dim(value.dims[0])} must be equal", sizes=(key.dims[0], value.dims[0]), operands=(1, 2)),))
    for index, (x, size) in enumerate(zip(operands, in_sizes, strict=True)):
        if certainly_differ(x.dims[1], size):
            return Outcome(_unknown(dtype, query), (Problem(
                Code.CONTRACTION_MISMATCH, f"{what} projects {format_dim(size)} {names[index]} features, but its "
                f"{names[index]}'s last dim is {format_dim(x.dims[1])}", sizes=(x.dims[1], size), operands=(index,)),))
        if x.dims[0] == 0:
            return Outcome(_unknown(dtype, query), (Problem(
                Code.RESHAPE_MISMATCH, f"{what}: its {names[index]} has length 0, which its heads' reshape to "
                f"(0, {format_dim(num_heads)}, -1) cannot infer -1 from", operands=(index,)),))
    if mask is not None and mask.rank is not None and mask.ellipsis is None:
        wanted = [(query.dims[0], key.dims[0]), (num_heads, query.dims[0], key.dims[0])]
        if not any(len(shape) == mask.rank and not any(certainly_differ(a, b) for a, b in zip(mask.dims, shape, strict=True))
                   for shape in wanted):
            return Outcome(_unknown(dtype, query), (Problem(
                Code.ANNOTATION_MISMATCH, f"{what}: the mask must have shape {format_shape(wanted[0])} (query length, "
                f"key length) or {format_shape(wanted[1])} per head, but it has shape {format_shape(mask.dims)}",
                operands=(3,)),))
    return Outcome(_like(query, dtype, (query.dims[0], output_size)))


def broadcast_attention(query: ArrayType, key: ArrayType, value: ArrayType, mask: ArrayType | None,
                        heads: Dim, value_size: Dim, model_size: Dim, dtype: str | None,
                        what: str) -> tuple[Outcome, Dim]:
    """haiku's `MultiHeadAttention(num_heads, key_size, ...)(query, key, value, mask)`: each is
    `(..., length, features)`, projected to the heads whatever its features; the leading dims of
    the three broadcast (two einsums), as do the key's and the value's lengths (a size-1 label
    broadcasts in `jnp.einsum`), and the mask (of the logits' rank, `(..., heads, query length,
    key length)`) with the logits. The heads' values are reshaped to the query's leading dims and
    length (`-1` for the rest: not from a zero size) and projected to `model_size`. Also the
    features that last projection takes (the heads' `heads * value_size`, times what broadcasting
    added to the leading dims), for its parameter."""
    names = ("query", "key", "value")
    operands = (query, key, value)
    if any(x.rank is None or x.ellipsis is not None for x in operands):
        return Outcome(_unknown(dtype, query)), None
    for index, x in enumerate(operands):
        if len(x.dims) < 2:
            return Outcome(_unknown(dtype, query), (Problem(
                Code.AXIS_OUT_OF_RANGE, f"{what} attends over (..., length, features), but its {names[index]} has "
                f"shape {format_shape(x.dims)}: no length axis before the features", axes=(-2,),
                operands=(index,)),)), None
    leading = query.dims[:-2]
    logits, problem = _leading(leading, key.dims[:-2], what, "query", "key")
    if problem is None and mask is not None and mask.rank is not None and mask.ellipsis is None and logits is not None:
        shape = (*logits, heads, query.dims[-2], key.dims[-2])
        if mask.rank != len(shape):
            problem = Problem(Code.ANNOTATION_MISMATCH, f"{what}: the mask must have the logits' {len(shape)} dims "
                              f"(..., heads, query length, key length), but it has shape {format_shape(mask.dims)}",
                              operands=(3,))
        else:
            masked = broadcast([ArrayType(None, shape), ArrayType(None, mask.dims)], ("the logits", "the mask"))
            if masked.problems:
                problem = masked.problems[0]
            elif masked.type.dims != shape:
                return Outcome(_unknown(dtype, query)), None  # the mask widens the logits: not followed
    if problem is not None:
        return Outcome(_unknown(dtype, query), (problem,)), None
    length, value_length = key.dims[-2], value.dims[-2]
    if certainly_differ(length, value_length) and length != 1 and value_length != 1:
        return Outcome(_unknown(dtype, query), (Problem(
            Code.CONTRACTION_MISMATCH, f"{what}: the key's length {format_dim(length)} and the value's "
            f"{format_dim(value_length)} must be equal (or 1)", sizes=(length, value_length), operands=(1, 2)),)), None
    widened, problem = _leading(logits, value.dims[:-2], what, "query and key", "value") if logits is not None \
        else (None, None)
    if problem is not None:
        return Outcome(_unknown(dtype, query), (problem,)), None
    if 0 in (*leading, query.dims[-2]):
        return Outcome(_unknown(dtype, query), (Problem(
            Code.RESHAPE_MISMATCH, f"{what} reshapes the attended values to the query's {format_shape((*leading, query.dims[-2]))} "
            "and -1, which a zero size cannot infer", operands=(0,)),)), None
    features: Dim = None
    whole, kept = product(widened) if widened is not None else None, product(leading)
    if whole is not None and kept and isinstance(heads, int) and isinstance(value_size, int):
        features = whole // kept * heads * value_size
    return Outcome(_like(query, dtype, (*leading, query.dims[-2], model_size))), features


def _leading(a: tuple[Dim, ...], b: tuple[Dim, ...], what: str, first: str,
             second: str) -> tuple[tuple[Dim, ...] | None, Problem | None]:
    """Two operands' leading dims broadcast, as an einsum's `...` does."""
    outcome = broadcast([ArrayType(None, a), ArrayType(None, b)])
    if outcome.problems:
        return None, Problem(Code.BROADCAST_MISMATCH, f"{what}: the {first}'s leading dims {format_shape(a)} and the "
                             f"{second}'s {format_shape(b)} do not broadcast", operands=(0, 1))
    return (outcome.type.dims if outcome.type.ellipsis is None else None), None
