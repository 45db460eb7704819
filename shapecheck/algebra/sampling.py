"""Random sampling (`jax.random`): the shape a sampler draws, and the checks JAX makes of it.

A sampler given `shape=` draws that shape, and its parameters must broadcast *to* it
(`jax._src.random.core._check_shape`: broadcasting the parameters with the shape must give the
shape back, so no parameter may add or widen a dim); without `shape=` it draws the parameters'
broadcast shape. `categorical`, `choice` and `permutation` take their shapes from an array;
`split` stacks new keys along leading dims.
"""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra import broadcast as algebra_broadcast
from shapecheck.algebra.outcome import Outcome, Problem, label, normalize_axis, out_of_range
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim, product
from shapecheck.types import ArrayType


def _text(dims: Sequence[Dim]) -> str:
    return ArrayType(None, tuple(dims)).positional_text()


def to_shape(shape: Sequence[Dim], params: Sequence[ArrayType], what: str,
             labels: Sequence[str] | None = None) -> list[Problem]:
    """SC101 for each parameter that does not broadcast to `shape` (a sampler's `shape=`)."""
    problems = []
    for index, param in enumerate(params):
        if param.ellipsis is not None:
            continue
        dims = param.dims
        too_long = len(dims) > len(shape)
        aligned = zip(reversed(dims), reversed(tuple(shape)), strict=False)
        if too_long or any(isinstance(p, int) and p != 1 and certainly_differ(p, s) for p, s in aligned):
            problems.append(Problem(
                Code.BROADCAST_MISMATCH,
                f"{what}: {label(labels, index)} of shape {param.positional_text()} does not broadcast to "
                f"shape {_text(shape)}: a parameter may have fewer dims and 1s, but broadcasting it must give "
                "the shape back", sizes=tuple(dims), operands=(index,)))
    return problems


def drawn(shape: Sequence[Dim] | None, params: Sequence[ArrayType], dtype: str | None, what: str,
          labels: Sequence[str] | None = None, *, compatible: bool = False) -> Outcome:
    """What a sampler with parameters draws: `shape`, or (None) the parameters' broadcast shape.

    `compatible`: the parameters need only broadcast *with* `shape`, not to it (NumPy's
    `integers` and `randint` draw `size` from `low` of shape `(2, 1)` and `size=(3,)`)."""
    named = algebra_broadcast.union_named([p.named for p in params])
    named_open = any(p.named_open for p in params)
    if shape is not None:
        if compatible:
            problems = list(algebra_broadcast.broadcast(
                [*params, ArrayType(None, tuple(shape))], [*(labels or ()), "size"]).problems)
        else:
            problems = to_shape(shape, params, what, labels)
        return Outcome(ArrayType(dtype, tuple(shape), named, None, named_open), tuple(problems))
    if not params:
        return Outcome(ArrayType(dtype, ()))
    joined = algebra_broadcast.broadcast(params, labels)
    return Outcome(ArrayType(dtype, joined.type.dims, named, joined.type.ellipsis, named_open), joined.problems)


def vectors(shape: Sequence[Dim] | None, batches: Sequence[ArrayType], size: Dim, dtype: str | None, what: str,
            labels: Sequence[str] | None = None) -> Outcome:
    """A sampler of vectors of `size` (`multivariate_normal`, `dirichlet`): one per element of
    `shape`, which the parameters' batches (`batches`, their dims before the vector's) broadcast
    to, or of their broadcast batch."""
    drawn_ = drawn(shape, batches, dtype, what, labels)
    if drawn_.type.ellipsis is not None:
        return drawn_
    return Outcome(drawn_.type.with_dims((*drawn_.type.dims, size)), drawn_.problems)


def multivariate_normal(mean: ArrayType, cov: ArrayType, shape: Sequence[Dim] | None, dtype: str | None,
                        labels: Sequence[str] | None = None) -> Outcome:
    """`jax.random.multivariate_normal(key, mean, cov, shape)`: `mean` (..., n), `cov` (..., n, n)."""
    what = "jax.random.multivariate_normal"
    unknown = ArrayType(dtype, (), ellipsis=0)
    if mean.ellipsis is not None or cov.ellipsis is not None:
        return Outcome(unknown)
    if not mean.dims or len(cov.dims) < 2:
        which, needed = ("mean", "(..., n)") if not mean.dims else ("cov", "(..., n, n)")
        return Outcome(unknown, (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what} takes a {which} of shape {needed}, but it has shape "
            f"{_text((mean if which == 'mean' else cov).dims)}"),))
    size = mean.dims[-1]
    if any(certainly_differ(size, dim) for dim in cov.dims[-2:]):
        return Outcome(unknown, (Problem(
            Code.CONTRACTION_MISMATCH, f"{what} takes cov of shape (..., n, n) for the mean's n = {format_dim(size)}, "
            f"but cov has shape {_text(cov.dims)}", sizes=(size, *cov.dims[-2:])),))
    return vectors(shape, [mean.with_dims(mean.dims[:-1]), cov.with_dims(cov.dims[:-2])], size, dtype, what,
                   labels)


def split(key: ArrayType, num: Sequence[Dim]) -> ArrayType | None:
    """`jax.random.split(key, num)`: `num` (a count or a shape) keys, stacked in front.

    A raw key (`PRNGKey`, uint32 `(2,)`) keeps its trailing `(2,)`; a typed key (`key`, shape
    `()`, whose dtype the annotation language cannot write) has none. Anything else is unknown.
    """
    if key.dims == (2,) and key.ellipsis is None and key.dtype == "u32":
        return ArrayType("u32", (*num, 2), key.named, None, key.named_open)
    if key.dims == () and key.ellipsis is None and key.dtype is None:
        return ArrayType(None, tuple(num), key.named, None, key.named_open)
    return None


def categorical(logits: ArrayType, axis: int, shape: Sequence[Dim] | None, replace: bool | None,
                dtype: str | None) -> Outcome:
    """`jax.random.categorical(key, logits, axis, shape)`: one draw per row of `axis` (the
    logits' other dims, the batch), or `shape`, which the batch must broadcast to."""
    what = "jax.random.categorical"
    if logits.ellipsis is not None:
        return Outcome(ArrayType(dtype, tuple(shape) if shape is not None else (), logits.named,
                                 None if shape is not None else 0, logits.named_open))
    rank = len(logits.dims)
    position = normalize_axis(axis, rank)
    if position is None:
        return Outcome(ArrayType(dtype, tuple(shape) if shape is not None else (), logits.named, None if shape
                                 is not None else 0, logits.named_open),
                       (out_of_range(axis, rank, f"{what}'s logits"),))
    batch = logits.dims[:position] + logits.dims[position + 1:]
    if shape is None:
        return Outcome(ArrayType(dtype, batch, logits.named, None, logits.named_open))
    problems = to_shape(shape, [ArrayType(None, batch)], what, [f"the logits' batch (all dims but axis {axis})"])
    if not problems and replace is False and (len(shape) < len(batch) or any(
            certainly_differ(size, wanted) for size, wanted in zip(shape[len(shape) - len(batch):], batch, strict=True))):
        # Without replacement the draws are taken per row, so the shape ends with the batch
        # itself, nothing broadcast (JAX asserts shape == prefix + batch).
        problems.append(Problem(
            Code.BROADCAST_MISMATCH,
            f"{what} without replacement draws per row of the logits: its shape {_text(shape)} must end with "
            f"the logits' batch {_text(batch)} itself (all dims but axis {axis}), not one it broadcasts to",
            sizes=()))
    if not problems and replace is False:
        draws = product(tuple(shape[:len(shape) - len(batch)]))
        classes = logits.dims[position]
        if draws is not None and isinstance(classes, int) and draws > classes:
            problems.append(Problem(
                Code.SIZE_ARGUMENT_MISMATCH,
                f"{what}: {draws} draws without replacement from {classes} categories (shape "
                f"{_text(shape)} over the batch {_text(batch)}); pass replace=True or draw at most {classes}",
                sizes=(draws, classes)))
    return Outcome(ArrayType(dtype, tuple(shape), logits.named, None, logits.named_open), tuple(problems))


def permutation(x: ArrayType | int, axis: int) -> Outcome:
    """`jax.random.permutation(key, x, axis)`: `x`'s type (an int n: a permutation of range(n))."""
    what = "jax.random.permutation"
    if isinstance(x, int):
        # A range: one dim, which `axis` must name.
        problems = (out_of_range(axis, 1, f"{what}'s range"),) if normalize_axis(axis, 1) is None else ()
        return Outcome(ArrayType(None, (x,)), problems)
    if x.ellipsis is not None:
        return Outcome(x)
    rank = len(x.dims)
    if rank == 0:
        return Outcome(x, (Problem(Code.AXIS_OUT_OF_RANGE, f"{what}: x is a 0-d array; permute an int "
                                   "(a range) or an array of at least one dim", operands=(1,)),))
    if normalize_axis(axis, rank) is None:
        return Outcome(x, (out_of_range(axis, rank, f"{what}'s x"),))
    return Outcome(x)


def choice(a: ArrayType | Dim, shape: Sequence[Dim], replace: bool | None, p: ArrayType | None,
           axis: int, default_int: str | None) -> Outcome:
    """`jax.random.choice(key, a, shape, replace, p, axis)`: `shape` draws from `range(a)` (an
    int) or from `a`'s rows along `axis`, which the draws replace."""
    what = "jax.random.choice"
    problems: list[Problem] = []
    if isinstance(a, ArrayType):
        if a.ellipsis is not None:
            return Outcome(ArrayType(a.dtype, (), a.named, 0, a.named_open))
        if not a.dims:
            return Outcome(ArrayType(None, tuple(shape)))  # a 0-d array is range(a): its value decides
        position = normalize_axis(axis, len(a.dims))
        if position is None:
            return Outcome(ArrayType(a.dtype, (), a.named, 0, a.named_open), (out_of_range(axis, len(a.dims),
                                                                                       f"{what}'s a"),))
        inputs: Dim = a.dims[position]
        dims = (*a.dims[:position], *shape, *a.dims[position + 1:])
        result = ArrayType(a.dtype, dims, a.named, None, a.named_open)
    else:
        inputs = a
        result = ArrayType(default_int, tuple(shape))
    draws = product(tuple(shape))
    if draws == 0:
        # JAX returns zeros of `shape` at once, whatever `a`'s other dims.
        return Outcome(ArrayType(result.dtype, tuple(shape), result.named, None, result.named_open))
    if isinstance(inputs, int) and draws is not None and inputs <= 0:
        problems.append(Problem(Code.SIZE_ARGUMENT_MISMATCH,
                                f"{what}: {draws} draws from an empty population (a has {inputs} entries)",
                                sizes=(draws, inputs)))
    elif isinstance(inputs, int) and draws is not None and replace is False and draws > inputs:
        problems.append(Problem(Code.SIZE_ARGUMENT_MISMATCH,
                                f"{what}: {draws} draws without replacement from {inputs} entries; pass "
                                f"replace=True or draw at most {inputs}", sizes=(draws, inputs)))
    if p is not None and p.ellipsis is None and (len(p.dims) != 1 or certainly_differ(p.dims[0], inputs)):
        problems.append(Problem(Code.SIZE_ARGUMENT_MISMATCH,
                                f"{what}: p of shape {p.positional_text()} must be a vector of one probability "
                                f"per entry: shape ({format_dim(inputs)},)", operands=(4,)))
    return Outcome(result, tuple(problems))

