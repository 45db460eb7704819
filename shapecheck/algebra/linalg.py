"""Contractions: dot, matmul (`@`), lax.batch_matmul, tensordot, vdot."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from shapecheck.algebra.broadcast import broadcast, union_named
from shapecheck.algebra.outcome import Outcome, Problem, label, normalize_axis, out_of_range
from shapecheck.algebra.promotion import promoted
from shapecheck.codes import Code
from shapecheck.dims import (
    CONFLICT,
    Dim,
    broadcast_dim,
    certainly_differ,
    format_dim,
    product,
    unify,
)
from shapecheck.types import ArrayType


def _combine(
    a: ArrayType, b: ArrayType, dims: Sequence[Dim], labels: Sequence[str] | None,
    problems: list[Problem], *, open_rank: bool = False,
) -> Outcome:
    named = union_named([a.named, b.named], labels, problems)
    typed = promoted((a, b))  # weak where JAX's promotion leaves it weak (an int array by 2.0)
    if any(problem.code is Code.CONTRACTION_MISMATCH for problem in problems):
        # Which operand is wrong is not known, so neither's free dims are certain: the result
        # keeps its rank and nothing built from it reports the same mistake again.
        dims = [None] * len(dims)
    result = ArrayType(typed.dtype, tuple(dims), named, 0 if open_rank else None, a.named_open or b.named_open,
                       typed.weak)
    return Outcome(result, tuple(problems))


def _contract(
    left: Dim, right: Dim, labels: Sequence[str] | None, where: str, problems: list[Problem],
    shapes: tuple[ArrayType, ArrayType] | None = None,
) -> None:
    if certainly_differ(left, right):
        a, b = (f" of shape {t.positional_text()}" for t in shapes) if shapes else ("", "")
        problems.append(
            Problem(
                Code.CONTRACTION_MISMATCH,
                f"{where}: contracted dims differ: {format_dim(left)} in {label(labels, 0)}{a} "
                f"but {format_dim(right)} in {label(labels, 1)}{b}",
                sizes=(left, right),
                operands=(0, 1),
            )
        )


def matmul(a: ArrayType, b: ArrayType, labels: Sequence[str] | None = None) -> Outcome:
    """`a @ b` with NumPy's rules: 1-d operands promoted, leading dims broadcast."""
    problems: list[Problem] = []
    if a.ellipsis is not None or b.ellipsis is not None:
        return _combine(a, b, (), labels, problems, open_rank=True)
    for index, t in enumerate((a, b)):
        if not t.dims:
            problems.append(
                Problem(Code.AXIS_OUT_OF_RANGE, f"matmul: {label(labels, index)} is a scalar; matmul needs at least one "
                        "positional dim (use * for scalars)", operands=(index,))
            )
    if problems:
        return _combine(a, b, (), labels, problems, open_rank=True)
    ad = a.dims if len(a.dims) > 1 else (1, *a.dims)
    bd = b.dims if len(b.dims) > 1 else (*b.dims, 1)
    _contract(ad[-1], bd[-2], labels, "matmul", problems, (a, b))
    batch_a, batch_b = ad[:-2], bd[:-2]
    batch: list[Dim] = []
    for back in range(1, max(len(batch_a), len(batch_b)) + 1):
        x = batch_a[-back] if back <= len(batch_a) else 1
        y = batch_b[-back] if back <= len(batch_b) else 1
        size, ok = broadcast_dim(x, y)
        if not ok:
            problems.append(
                Problem(Code.BROADCAST_MISMATCH, f"matmul: batch dims {format_dim(x)} and {format_dim(y)} cannot "
                        "broadcast", sizes=(x, y), operands=(0, 1))
            )
            size = CONFLICT  # reported here; unknown in the result rather than one side's size
        batch.append(size)
    batch.reverse()
    dims = list(batch)
    if len(a.dims) > 1:
        dims.append(ad[-2])
    if len(b.dims) > 1:
        dims.append(bd[-1])
    return _combine(a, b, dims, labels, problems)


def batch_matmul(a: ArrayType, b: ArrayType, labels: Sequence[str] | None = None) -> Outcome:
    """`lax.batch_matmul(a, b)`: stacks of matrices `(*batch, m, k)` and `(*batch, k, n)` of one
    rank, at least 2, giving `(*batch, m, n)`. Unlike `matmul` nothing is broadcast or promoted:
    it is a `dot_general` whose batch dims must be equal, as its contracted dims must."""
    problems: list[Problem] = []
    if a.ellipsis is not None or b.ellipsis is not None:
        return _lax_dtype(_combine(a, b, (), labels, problems, open_rank=True), a, b)
    for index, t in enumerate((a, b)):
        if len(t.dims) < 2:
            problems.append(Problem(
                Code.AXIS_OUT_OF_RANGE, f"lax.batch_matmul: {label(labels, index)} of shape {t.positional_text()} "
                "is not a matrix; it takes operands of at least 2 dims (JAX: 'Arguments to batch_matmul must be at "
                "least 2D'; jnp.matmul takes vectors)", operands=(index,)))
    if not problems and len(a.dims) != len(b.dims):
        problems.append(Problem(
            Code.BROADCAST_MISMATCH, f"lax.batch_matmul: {label(labels, 0)} of shape {a.positional_text()} and "
            f"{label(labels, 1)} of shape {b.positional_text()} have different ranks; it adds no leading dims (JAX: "
            "'Arguments to batch_matmul must have same ndim'; jnp.matmul broadcasts)", operands=(0, 1)))
    if problems:
        return _lax_dtype(_combine(a, b, (), labels, problems, open_rank=True), a, b)
    _contract(a.dims[-1], b.dims[-2], labels, "lax.batch_matmul", problems, (a, b))
    batch: list[Dim] = []
    for x, y in zip(a.dims[:-2], b.dims[:-2], strict=True):
        if certainly_differ(x, y):
            problems.append(Problem(
                Code.BROADCAST_MISMATCH, f"lax.batch_matmul: batch dims {format_dim(x)} and {format_dim(y)} differ "
                f"({label(labels, 0)} of shape {a.positional_text()}, {label(labels, 1)} of shape "
                f"{b.positional_text()}); they must be equal, a 1 is not broadcast (JAX: 'dot_general requires lhs "
                "batch dimensions and rhs batch dimensions to have the same shape')", sizes=(x, y), operands=(0, 1)))
            batch.append(CONFLICT)  # reported here; unknown in the result rather than one side's size
        else:
            batch.append(unify(x, y))
    return _lax_dtype(_combine(a, b, (*batch, a.dims[-2], b.dims[-1]), labels, problems), a, b)


def _lax_dtype(outcome: Outcome, a: ArrayType, b: ArrayType) -> Outcome:
    """`outcome` with the dtype `lax.dot_general` gives: the operands' where they have one (weak
    where both are), else unknown. Its rule for two dtypes is not jax.numpy's promotion (a weak
    float32 by a bfloat16 gives float32, a float16 by a bfloat16 bfloat16)."""
    result = outcome.type
    if a.dtype is not None and a.dtype == b.dtype:
        return replace(outcome, type=result.with_dtype(a.dtype, a.weak and b.weak))
    return replace(outcome, type=result.with_dtype(None))


def dot(a: ArrayType, b: ArrayType, labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.dot` / `x.dot(y)`: scalars multiply, else contract a's last dim with b's second-last."""
    problems: list[Problem] = []
    if a.ellipsis is not None or b.ellipsis is not None:
        return _combine(a, b, (), labels, problems, open_rank=True)
    if not a.dims or not b.dims:
        return _combine(a, b, a.dims or b.dims, labels, problems)
    if len(b.dims) == 1:
        _contract(a.dims[-1], b.dims[0], labels, "dot", problems, (a, b))
        return _combine(a, b, a.dims[:-1], labels, problems)
    _contract(a.dims[-1], b.dims[-2], labels, "dot", problems, (a, b))
    return _combine(a, b, (*a.dims[:-1], *b.dims[:-2], b.dims[-1]), labels, problems)


def vdot(a: ArrayType, b: ArrayType, labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.vdot`: both operands flattened and contracted to a scalar."""
    problems: list[Problem] = []
    size_a, size_b = product(a.dims), product(b.dims)
    if a.ellipsis is None and b.ellipsis is None:
        _contract(size_a, size_b, labels, "vdot", problems, (a, b))
    return _combine(a, b, (), labels, problems)


def tensordot(
    a: ArrayType, b: ArrayType, axes: int | tuple[Sequence[int], Sequence[int]],
    labels: Sequence[str] | None = None,
) -> Outcome:
    """`jnp.tensordot(a, b, axes)` with an int or a pair of axis lists."""
    problems: list[Problem] = []
    if a.ellipsis is not None or b.ellipsis is not None:
        return _combine(a, b, (), labels, problems, open_rank=True)
    ra, rb = len(a.dims), len(b.dims)
    if isinstance(axes, int):
        if axes > min(ra, rb):
            problems.append(out_of_range(axes, min(ra, rb), "tensordot's operands"))
            return _combine(a, b, (), labels, problems, open_rank=True)
        # JAX and NumPy take `range(ra - axes, ra)`, empty for a negative count: an outer
        # product, not an error.
        count = max(axes, 0)
        left, right = list(range(ra - count, ra)), list(range(count))
    else:
        left_raw, right_raw = list(axes[0]), list(axes[1])
        if len(left_raw) != len(right_raw):
            problems.append(
                Problem(Code.CONTRACTION_MISMATCH, f"tensordot: {len(left_raw)} axes of {label(labels, 0)} against "
                        f"{len(right_raw)} of {label(labels, 1)}", operands=(0, 1))
            )
            return _combine(a, b, (), labels, problems, open_rank=True)
        left, right = [], []
        for raw, rank, out, index in ((left_raw, ra, left, 0), (right_raw, rb, right, 1)):
            for axis in raw:
                position = normalize_axis(axis, rank)
                if position is None:
                    problems.append(out_of_range(axis, rank, label(labels, index), index))
                elif position in out:
                    # dot_general needs distinct contracting dims (NumPy refuses them too).
                    problems.append(Problem(
                        Code.AXIS_OUT_OF_RANGE, f"tensordot: axis {axis} of {label(labels, index)} is contracted "
                        "twice", axes=(axis,), operands=(index,)))
                else:
                    out.append(position)
        if problems:
            return _combine(a, b, (), labels, problems, open_rank=True)
    for i, j in zip(left, right, strict=True):
        _contract(a.dims[i], b.dims[j], labels, "tensordot", problems, (a, b))
    dims = [d for i, d in enumerate(a.dims) if i not in left]
    dims += [d for j, d in enumerate(b.dims) if j not in right]
    return _combine(a, b, dims, labels, problems)


def inner(a: ArrayType, b: ArrayType, labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.inner(a, b)`: the last dims contracted, `a.shape[:-1] + b.shape[:-1]`; a 0-d operand
    multiplies instead."""
    problems: list[Problem] = []
    if a.ellipsis is not None or b.ellipsis is not None:
        return _combine(a, b, (), labels, problems, open_rank=True)
    if not a.dims or not b.dims:
        return _combine(a, b, a.dims or b.dims, labels, problems)
    _contract(a.dims[-1], b.dims[-1], labels, "inner", problems, (a, b))
    return _combine(a, b, (*a.dims[:-1], *b.dims[:-1]), labels, problems)


def vecdot(a: ArrayType, b: ArrayType, axis: int, labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.vecdot(a, b, axis=axis)`: `axis` of each contracted, of one size (a 1 is not
    stretched), the other dims broadcast."""
    problems: list[Problem] = []
    if a.ellipsis is not None or b.ellipsis is not None:
        return _combine(a, b, (), labels, problems, open_rank=True)
    places: list[int] = []
    for index, value in enumerate((a, b)):
        place = normalize_axis(axis, len(value.dims))
        if place is None:
            problems.append(out_of_range(axis, len(value.dims), label(labels, index), index))
            return _combine(a, b, (), labels, problems, open_rank=True)
        places.append(place)
    _contract(a.dims[places[0]], b.dims[places[1]], labels, "vecdot", problems, (a, b))
    rest = [value.with_dims(value.dims[:place] + value.dims[place + 1:]) for value, place in zip((a, b), places,
                                                                                               strict=True)]
    batch = broadcast(rest, labels)
    problems.extend(batch.problems)
    dims = batch.type.dims
    return _combine(a, b, dims, labels, problems)


def matvec(a: ArrayType, b: ArrayType, labels: Sequence[str] | None = None, *, vector_first: bool = False) -> Outcome:
    """`jnp.matvec(a, b)`: matrices `(..., m, n)` times vectors `(..., n)`, `(..., m)`; `vecmat`
    (`vector_first`): vectors `(..., m)` times matrices `(..., m, n)`, `(..., n)`. Batches broadcast."""
    problems: list[Problem] = []
    if a.ellipsis is not None or b.ellipsis is not None:
        return _combine(a, b, (), labels, problems, open_rank=True)
    matrix, vector = (b, a) if vector_first else (a, b)
    where = "vecmat" if vector_first else "matvec"
    for index, (value, least, kind) in enumerate(((matrix, 2, "matrices"), (vector, 1, "vectors"))):
        if len(value.dims) < least:
            operand = (1 - index) if vector_first else index
            problems.append(out_of_range(-least, len(value.dims), f"{where}'s {kind} {label(labels, operand)}",
                                         operand))
            return _combine(a, b, (), labels, problems, open_rank=True)
    rows, columns = matrix.dims[-2:]
    _contract(vector.dims[-1], rows if vector_first else columns, labels, where, problems, (a, b))
    batch = broadcast([matrix.with_dims(matrix.dims[:-2]), vector.with_dims(vector.dims[:-1])], labels)
    problems.extend(batch.problems)
    return _combine(a, b, (*batch.type.dims, columns if vector_first else rows), labels, problems)


def multi_dot(values: Sequence[ArrayType], labels: Sequence[str] | None = None) -> Outcome | None:
    """`jnp.linalg.multi_dot(arrays)`: a chain of matrices, the first and last of which may be
    vectors; each one's last dim is the next one's first. None where the chain is not one the
    checker reads (fewer than two arrays, a middle one not a matrix, a rank not known)."""
    if len(values) < 2 or any(value.ellipsis is not None for value in values) or \
            len(values[0].dims) not in (1, 2) or len(values[-1].dims) not in (1, 2) or \
            any(len(value.dims) != 2 for value in values[1:-1]):
        return None
    problems: list[Problem] = []
    for index in range(len(values) - 1):
        left, right = values[index], values[index + 1]
        pair = [label(labels, index), label(labels, index + 1)]
        _contract(left.dims[-1], right.dims[0], pair, "multi_dot", problems, (left, right))
    dims = (*values[0].dims[:-1], *values[-1].dims[1:])
    dtype = promoted(values).dtype
    return Outcome(ArrayType(dtype, dims if not problems else (None,) * len(dims)), tuple(problems))


def cross(a: ArrayType, b: ArrayType, axes: tuple[int, int, int], labels: Sequence[str] | None = None, *,
          three: bool = False) -> Outcome:
    """`jnp.cross(a, b, axisa, axisb, axisc)`: vectors of 2 or 3 (`three`, jnp.linalg.cross: of 3)
    along `axisa` and `axisb`, the other dims broadcast; the product is a vector of 3 placed at
    `axisc`, or, of two 2-vectors, a scalar."""
    problems: list[Problem] = []
    if a.ellipsis is not None or b.ellipsis is not None:
        return _combine(a, b, (), labels, problems, open_rank=True)
    what = "jnp.linalg.cross" if three else "jnp.cross"
    rests: list[ArrayType] = []
    sizes: list[Dim] = []
    for index, (value, axis) in enumerate(zip((a, b), axes[:2], strict=True)):
        place = normalize_axis(axis, len(value.dims))
        if place is None:
            problems.append(out_of_range(axis, len(value.dims), f"{what}'s {label(labels, index)}", index))
            return _combine(a, b, (), labels, problems, open_rank=True)
        size = value.dims[place]
        allowed = (3,) if three else (2, 3)
        if isinstance(size, int) and size not in allowed:
            problems.append(Problem(
                Code.SIZE_ARGUMENT_MISMATCH, f"{what} takes vectors of {' or '.join(map(str, allowed))}, but "
                f"{label(labels, index)} of shape {value.positional_text()} has {size} along axis {axis}",
                sizes=(size,), operands=(index,)))
            return _combine(a, b, (), labels, problems, open_rank=True)
        sizes.append(size)
        rests.append(value.with_dims(value.dims[:place] + value.dims[place + 1:]))
    batch = broadcast(rests, labels)
    problems.extend(batch.problems)
    if problems:
        return _combine(a, b, (), labels, problems, open_rank=True)
    if sizes == [2, 2]:
        return _combine(a, b, batch.type.dims, labels, problems)
    if not all(isinstance(size, int) for size in sizes):
        return _combine(a, b, (), labels, problems, open_rank=True)
    dims = [*batch.type.dims, 3]
    place = normalize_axis(axes[2], len(dims))
    if place is None:
        problems.append(out_of_range(axes[2], len(dims), f"{what}'s result"))
        return _combine(a, b, (), labels, problems, open_rank=True)
    dims.insert(place, dims.pop())
    return _combine(a, b, dims, labels, problems)


def kron(a: ArrayType, b: ArrayType, labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.kron(a, b)`: the ranks padded with leading 1s to the larger, each dim the product of
    the two."""
    problems: list[Problem] = []
    if a.ellipsis is not None or b.ellipsis is not None:
        return _combine(a, b, (), labels, problems, open_rank=True)
    rank = max(len(a.dims), len(b.dims))
    left = (1,) * (rank - len(a.dims)) + a.dims
    right = (1,) * (rank - len(b.dims)) + b.dims
    return _combine(a, b, [product((m, n)) for m, n in zip(left, right, strict=True)], labels, problems)


def unify_all(sizes: Sequence[Dim]) -> Dim:
    """The common size of several dims already checked to agree."""
    result: Dim = None
    for size in sizes:
        result = unify(result, size)
    return result
