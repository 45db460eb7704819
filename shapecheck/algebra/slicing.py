"""`jax.lax`'s slices: `slice`, `dynamic_slice`, `dynamic_update_slice` and their one-axis forms.

A slice names one start (and one size, or one limit) per dim of its operand, and keeps within
each dim: JAX refuses a size beyond the dim or below 0 (SC107), a count of starts or sizes other
than the rank, an update of another rank or larger than the operand (SC107), and an axis beyond
the rank (SC106). The starts of the dynamic forms are clamped into the operand at run time:
only their count is checked.
"""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.outcome import Outcome, Problem, normalize_axis, out_of_range
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_shape
from shapecheck.types import ArrayType


def dynamic_slice(operand: ArrayType, starts: int | None, sizes: Sequence[Dim], what: str) -> Outcome:
    """`lax.dynamic_slice(operand, start_indices, slice_sizes)`: `starts` is how many start
    indices were given (None: not known); the result has the slice sizes as its dims."""
    if operand.ellipsis is not None:
        return Outcome(operand.with_dims((), 0))
    problem = _count(operand, starts, "start index", what) or _count(operand, len(sizes), "slice size", what) \
        or _within(operand, sizes, what, "slice sizes")
    if problem is not None:
        return Outcome(operand.with_dims((), 0), (problem,))
    return Outcome(operand.with_dims(sizes))


def dynamic_update_slice(operand: ArrayType, update: ArrayType, starts: int | None, what: str) -> Outcome:
    """`lax.dynamic_update_slice(operand, update, start_indices)`: the update has the operand's
    rank and fits in it; the result is the operand."""
    if operand.ellipsis is not None or update.ellipsis is not None:
        return Outcome(operand)
    problem = _count(operand, starts, "start index", what) or _update(operand, update, what)
    return Outcome(operand, (problem,) if problem is not None else ())


def static_slice(operand: ArrayType, starts: Sequence[int], limits: Sequence[int], strides: Sequence[int] | None,
                 what: str) -> Outcome:
    """`lax.slice(operand, start_indices, limit_indices, strides)`: each dim keeps the elements
    from `start` (0 or more) to `limit` (at most the dim, not below `start`), every `stride`-th."""
    if operand.ellipsis is not None:
        return Outcome(operand.with_dims((), 0))
    problem = _count(operand, len(starts), "start index", what) or _count(operand, len(limits), "limit index", what)
    if problem is None and strides is not None:
        problem = _count(operand, len(strides), "stride", what)
    if problem is not None:
        return Outcome(operand.with_dims((), 0), (problem,))
    negative = next((axis for axis, start in enumerate(starts) if start < 0), None)
    if negative is not None:
        # Traced (in a jit), JAX refuses it; it does not count from the end.
        return Outcome(operand.with_dims((), 0), (Problem(
            Code.SIZE_ARGUMENT_MISMATCH,
            f"{what}: its start indices {format_shape(tuple(starts))} have {starts[negative]} at axis {negative}; "
            f"a start is 0 or more (it does not count from the end)",
            axes=(negative,), sizes=(starts[negative],), operands=(0,)),))
    problem = _within(operand, limits, what, "limit indices")
    if problem is not None:
        return Outcome(operand.with_dims((), 0), (problem,))
    sizes = [limit - start for start, limit in zip(starts, limits, strict=True)]
    problem = _within(operand, sizes, what, "slice sizes (limit - start)")
    if problem is not None:
        return Outcome(operand.with_dims((), 0), (problem,))
    if strides is None:
        return Outcome(operand.with_dims(sizes))
    if any(stride <= 0 for stride in strides):
        return Outcome(operand.with_dims((), 0))  # JAX fails on it, not with a shape rule's message
    return Outcome(operand.with_dims(-(-size // stride) for size, stride in zip(sizes, strides, strict=True)))


def slice_in_dim(operand: ArrayType, size: Dim, axis: int, what: str) -> Outcome:
    """`lax.dynamic_slice_in_dim(operand, start, size, axis)`: `size` elements of one axis."""
    place = _axis(operand, axis, what)
    if not isinstance(place, int):
        return Outcome(operand.with_dims((), 0), (place,) if place is not None else ())
    sizes = list(operand.dims)
    sizes[place] = size
    return dynamic_slice(operand, None, sizes, what)


def update_in_dim(operand: ArrayType, update: ArrayType, axis: int, what: str) -> Outcome:
    """`lax.dynamic_update_slice_in_dim(operand, update, start, axis)`."""
    place = _axis(operand, axis, what)
    if not isinstance(place, int):
        return Outcome(operand, (place,) if place is not None else ())
    return dynamic_update_slice(operand, update, None, what)


def index_in_dim(operand: ArrayType, axis: int, keepdims: bool, what: str) -> Outcome:
    """`lax.dynamic_index_in_dim(operand, index, axis, keepdims)`: one element of one axis,
    which keeps a dim of 1 or loses it."""
    sliced = slice_in_dim(operand, 1, axis, what)
    if sliced.problems or keepdims or sliced.type.ellipsis is not None:
        return sliced
    place = normalize_axis(axis, len(operand.dims))
    assert place is not None  # `slice_in_dim` reported it otherwise
    return Outcome(sliced.type.with_dims(sliced.type.dims[:place] + sliced.type.dims[place + 1:]))


def _count(operand: ArrayType, count: int | None, each: str, what: str) -> Problem | None:
    rank = len(operand.dims)
    if count is None or count == rank:
        return None
    return Problem(Code.SIZE_ARGUMENT_MISMATCH,
                   f"{what} takes one {each} per dim of its operand: {rank} for shape {format_shape(operand.dims)}, "
                   f"but it is given {count}", sizes=(count, rank), operands=(0,))


def _within(operand: ArrayType, sizes: Sequence[Dim], what: str, called: str) -> Problem | None:
    for axis, (size, dim) in enumerate(zip(sizes, operand.dims, strict=True)):
        if isinstance(size, int) and size < 0:
            return Problem(Code.SIZE_ARGUMENT_MISMATCH,
                           f"{what}: its {called} {format_shape(tuple(sizes))} have {size} at axis {axis}; a slice "
                           f"keeps 0 elements or more", axes=(axis,), sizes=(size,), operands=(0,))
        if isinstance(size, int) and isinstance(dim, int) and size > dim:
            return Problem(Code.SIZE_ARGUMENT_MISMATCH,
                           f"{what}: its {called} {format_shape(tuple(sizes))} take {size} elements of axis {axis}, "
                           f"which has {dim} (the operand has shape {format_shape(operand.dims)})",
                           axes=(axis,), sizes=(size, dim), operands=(0,))
    return None


def _update(operand: ArrayType, update: ArrayType, what: str) -> Problem | None:
    if len(update.dims) != len(operand.dims):
        return Problem(Code.SIZE_ARGUMENT_MISMATCH,
                       f"{what}: the update has shape {format_shape(update.dims)}, of rank {len(update.dims)}, but "
                       f"the operand {format_shape(operand.dims)} has rank {len(operand.dims)}; the update is a "
                       f"block of the operand, with as many dims", operands=(1,))
    for axis, (size, dim) in enumerate(zip(update.dims, operand.dims, strict=True)):
        if isinstance(size, int) and isinstance(dim, int) and size > dim and certainly_differ(size, dim):
            return Problem(Code.SIZE_ARGUMENT_MISMATCH,
                           f"{what}: the update {format_shape(update.dims)} has {size} elements along axis {axis}, "
                           f"where the operand {format_shape(operand.dims)} has {dim}",
                           axes=(axis,), sizes=(size, dim), operands=(1,))
    return None


def _axis(operand: ArrayType, axis: int, what: str) -> int | Problem | None:
    """The axis made non-negative; SC106 beyond the rank; None where the rank is not known."""
    if operand.ellipsis is not None:
        return None
    place = normalize_axis(axis, len(operand.dims))
    return place if place is not None else out_of_range(axis, len(operand.dims), what)


def _any(operand: ArrayType) -> ArrayType:
    """Any shape, with the operand's dtype and named axes."""
    return ArrayType(operand.dtype, (), operand.named, 0, operand.named_open, operand.weak)

