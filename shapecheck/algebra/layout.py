"""Positional rearrangements: transpose, swapaxes, moveaxis, expand_dims, concatenate, stack, tril/triu.

Indexing lives in `indexing`; its names are re-exported here for the code that reads them from here.
"""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.broadcast import union_named
from shapecheck.algebra.indexing import ELLIPSIS as ELLIPSIS
from shapecheck.algebra.indexing import NEW_AXIS as NEW_AXIS
from shapecheck.algebra.indexing import OPAQUE as OPAQUE
from shapecheck.algebra.indexing import ArrayIndex as ArrayIndex
from shapecheck.algebra.indexing import Ellipsis_ as Ellipsis_
from shapecheck.algebra.indexing import IndexItem as IndexItem
from shapecheck.algebra.indexing import NewAxis as NewAxis
from shapecheck.algebra.indexing import Opaque as Opaque
from shapecheck.algebra.indexing import Slice as Slice
from shapecheck.algebra.indexing import index as index
from shapecheck.algebra.outcome import Outcome, Pieces, Problem, label, normalize_axis, out_of_range
from shapecheck.algebra.promotion import promoted
from shapecheck.codes import Code
from shapecheck.dims import CONFLICT, Dim, certainly_differ, format_dim, product, total, unify
from shapecheck.types import ArrayType


def transpose(value: ArrayType, axes: Sequence[int] | None = None) -> Outcome:
    """`x.T`, `jnp.transpose(x, axes)`."""
    if value.ellipsis is not None:
        # Dims around `...` of unknown length cannot be placed by position: only a reversal
        # keeps them (mirrored), and explicit axes fix the rank but not which dim goes where.
        if axes is None:
            return Outcome(value.with_dims(reversed(value.dims), len(value.dims) - value.ellipsis))
        return Outcome(value.with_dims([None] * len(axes)))
    rank = len(value.dims)
    if axes is None:
        return Outcome(value.with_dims(reversed(value.dims)))
    if len(axes) != rank:
        return Outcome(value.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"transpose: axes {tuple(axes)} do not match the {rank} positional dims of "
            f"{value.positional_text()}", axes=tuple(axes)),))
    positions: list[int] = []
    for a in axes:
        position = normalize_axis(a, rank)
        if position is None:
            return Outcome(value.with_dims((), 0), (out_of_range(a, rank, "transpose"),))
        positions.append(position)
    if len(set(positions)) != rank:
        return Outcome(value.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"transpose: axes {tuple(axes)} repeat an axis", axes=tuple(axes)),))
    return Outcome(value.with_dims(value.dims[p] for p in positions))


def swapaxes(value: ArrayType, first: int, second: int) -> Outcome:
    if value.ellipsis is not None:
        # Which dims move depends on the rank `...` hides: none of the known ones stays certain.
        return Outcome(value.with_dims((), 0))
    rank = len(value.dims)
    a, b = normalize_axis(first, rank), normalize_axis(second, rank)
    if a is None or b is None:
        bad = first if a is None else second
        return Outcome(value, (out_of_range(bad, rank, "swapaxes"),))
    dims = list(value.dims)
    dims[a], dims[b] = dims[b], dims[a]
    return Outcome(value.with_dims(dims))


def moveaxis(value: ArrayType, source: int, destination: int) -> Outcome:
    if value.ellipsis is not None:
        return Outcome(value.with_dims((), 0))
    rank = len(value.dims)
    a, b = normalize_axis(source, rank), normalize_axis(destination, rank)
    if a is None or b is None:
        bad = source if a is None else destination
        return Outcome(value, (out_of_range(bad, rank, "moveaxis"),))
    dims = list(value.dims)
    dims.insert(b, dims.pop(a))
    return Outcome(value.with_dims(dims))


def expand_dims(value: ArrayType, axis: int | Sequence[int]) -> Outcome:
    """`jnp.expand_dims`: insert size-1 dims at positions of the result."""
    if value.ellipsis is not None:
        # The new 1s land at positions that depend on the rank `...` hides.
        return Outcome(value.with_dims((), 0))
    axes = [axis] if isinstance(axis, int) else list(axis)
    rank = len(value.dims) + len(axes)
    positions: list[int] = []
    for a in axes:
        position = normalize_axis(a, rank)
        if position is None:
            return Outcome(value.with_dims((), 0), (out_of_range(a, rank, "expand_dims' result"),))
        if position in positions:
            # Two axes naming one position (0 and -rank too) leave fewer new dims than the
            # result's rank counts on: JAX refuses it as a repeated axis.
            return Outcome(value.with_dims((), 0), (Problem(
                Code.AXIS_OUT_OF_RANGE, f"expand_dims: axis {a} repeats position {position} in {tuple(axes)}",
                axes=(a,)),))
        positions.append(position)
    dims = iter(value.dims)
    return Outcome(value.with_dims([1 if i in positions else next(dims) for i in range(rank)]))


def concatenate(values: Sequence[ArrayType], axis: int | None = 0,
                labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.concatenate(values, axis)`: equal dims except along `axis`, which adds up."""
    problems: list[Problem] = []
    named = union_named([v.named for v in values], labels, problems)
    dtype = _dtype(values)
    open_named = any(v.named_open for v in values)
    if not values or any(v.ellipsis is not None for v in values):
        return Outcome(ArrayType(dtype, (), named, 0, open_named), tuple(problems))
    if axis is None:
        flat = total([product(v.dims) for v in values])
        return Outcome(ArrayType(dtype, (flat,), named, None, open_named), tuple(problems))
    rank = len(values[0].dims)
    for number, v in enumerate(values):
        if len(v.dims) != rank:
            problems.append(Problem(
                Code.BROADCAST_MISMATCH, f"concatenate: {label(labels, number)} has {len(v.dims)} positional dims "
                f"but {label(labels, 0)} has {rank}", operands=(0, number)))
            return Outcome(ArrayType(dtype, (), named, 0, open_named), tuple(problems))
    position = normalize_axis(axis, rank)
    if position is None:
        problems.append(out_of_range(axis, rank, "concatenate"))
        return Outcome(ArrayType(dtype, (), named, 0, open_named), tuple(problems))
    dims: list[Dim] = []
    for i in range(rank):
        if i == position:
            dims.append(total([v.dims[i] for v in values]))
            continue
        dims.append(_agree([v.dims[i] for v in values], i, "concatenate", labels, problems))
    return Outcome(ArrayType(dtype, tuple(dims), named, None, open_named), tuple(problems))


def stack(values: Sequence[ArrayType], axis: int = 0,
          labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.stack(values, axis)`: equal shapes, a new dim of len(values) at `axis`."""
    problems: list[Problem] = []
    named = union_named([v.named for v in values], labels, problems)
    dtype = _dtype(values)
    open_named = any(v.named_open for v in values)
    if not values or any(v.ellipsis is not None for v in values):
        return Outcome(ArrayType(dtype, (), named, 0, open_named), tuple(problems))
    rank = len(values[0].dims)
    for number, v in enumerate(values):
        if len(v.dims) != rank:
            problems.append(Problem(
                Code.BROADCAST_MISMATCH, f"stack: {label(labels, number)} has {len(v.dims)} positional dims but "
                f"{label(labels, 0)} has {rank}", operands=(0, number)))
            return Outcome(ArrayType(dtype, (), named, 0, open_named), tuple(problems))
    position = normalize_axis(axis, rank + 1)
    if position is None:
        problems.append(out_of_range(axis, rank + 1, "stack's result"))
        return Outcome(ArrayType(dtype, (), named, 0, open_named), tuple(problems))
    dims = [_agree([v.dims[i] for v in values], i, "stack", labels, problems) for i in range(rank)]
    dims.insert(position, len(values))
    return Outcome(ArrayType(dtype, tuple(dims), named, None, open_named), tuple(problems))


def repeat(value: ArrayType, repeats: Dim, axis: int | None, *, counts: Dim = None, total: Dim = None) -> Outcome:
    """`jnp.repeat(a, repeats, axis, total_repeat_length=total)`: the flattened array (axis None)
    or one axis grows `repeats` times; with a count per element instead (`counts` of them, one
    per element or one for all), to the sum of the counts, which only `total` makes known. A 0-d
    array repeats as a 1-d one, whatever the axis (JAX 0.10.2 reads none there)."""
    if value.ellipsis is not None:
        return Outcome(value.with_dims((), 0))
    if isinstance(repeats, int) and repeats < 0:
        return Outcome(value.with_dims((), 0), (Problem(
            Code.SIZE_ARGUMENT_MISMATCH, f"jnp.repeat: repeats is {repeats}; an element is repeated 0 times or more",
            sizes=(repeats,)),))
    dims = value.dims
    flat = axis is None or not dims
    place = 0
    if not flat:
        assert axis is not None
        found = normalize_axis(axis, len(dims))
        if found is None:
            return Outcome(value.with_dims((), 0), (out_of_range(axis, len(dims), "jnp.repeat's argument"),))
        place = found
    elements = product(dims) if flat else dims[place]
    if isinstance(counts, int) and isinstance(elements, int) and counts not in (1, elements):
        where = "of the flattened array" if flat else f"along axis {axis}"
        return Outcome(value.with_dims((), 0), (Problem(
            Code.SIZE_ARGUMENT_MISMATCH,
            f"jnp.repeat: repeats holds {counts} counts for the {elements} elements {where}; give one count "
            f"per element, or one for all", sizes=(counts, elements)),))
    size = total if total is not None else _times(elements, repeats) if counts is None else None
    if flat:
        return Outcome(value.with_dims((size,)))
    return Outcome(value.with_dims((*dims[:place], size, *dims[place + 1:])))


def tile(value: ArrayType, reps: Sequence[Dim]) -> Outcome:
    """`jnp.tile(a, reps)`: the shorter of the shape and `reps` is padded with leading 1s, and
    each dim is multiplied by its count."""
    if value.ellipsis is not None:
        return Outcome(value.with_dims((), 0))
    dims = (1,) * (len(reps) - len(value.dims)) + value.dims
    counts = (1,) * (len(value.dims) - len(reps)) + tuple(reps)
    return Outcome(value.with_dims(_times(size, count) for size, count in zip(dims, counts, strict=True)))


def _times(size: Dim, count: Dim) -> Dim:
    return size * count if isinstance(size, int) and isinstance(count, int) else None


def _agree(sizes: Sequence[Dim], axis: int, what: str, labels: Sequence[str] | None,
           problems: list[Problem]) -> Dim:
    result: Dim = None
    first = 0
    for number, size in enumerate(sizes):
        if certainly_differ(result, size):
            problems.append(Problem(
                Code.BROADCAST_MISMATCH, f"{what}: axis {axis} has size {format_dim(result)} in "
                f"{label(labels, first)} but {format_dim(size)} in {label(labels, number)}",
                axes=(axis,), sizes=(result, size), operands=(first, number)))
            return CONFLICT  # reported here; unknown in the result
        if not isinstance(result, int):
            first = number
        result = unify(result, size)
    return result


def _dtype(values: Sequence[ArrayType]) -> str | None:
    if not values:
        return None
    return promoted(values).dtype


def triangle(value: ArrayType, what: str) -> Outcome:
    """`jnp.tril`/`jnp.triu`: the same type; they mask the last two dims, which must exist."""
    if value.rank is not None and value.rank < 2:
        return Outcome(value, (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what} works on the last two positional dims, but {value.positional_text()} "
            f"has {value.rank}", axes=(-2,)),))
    return Outcome(value)


def diagonal_matrix(value: ArrayType, k: int | None, *, flat: bool = False) -> Outcome:
    """`jnp.diag(v, k)`: a square matrix with a 1-d `v` on its k-th diagonal, or a 2-d matrix's
    k-th diagonal; `jnp.diagflat(v, k)` (`flat`): the matrix of `v` flattened."""
    if value.ellipsis is not None:
        return Outcome(value.with_dims((), 0))
    dims = value.dims
    if flat:
        dims = (product(dims),)
    if len(dims) not in (1, 2):
        return Outcome(value.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"jnp.diag needs a 1-d or 2-d array, but {value.positional_text()} has "
            f"{len(dims)} positional dims", axes=(0,)),))
    if len(dims) == 1:
        n = dims[0]
        size = n + abs(k) if isinstance(n, int) and k is not None else None
        return Outcome(value.with_dims((size, size)))
    m, n = dims
    length: Dim = None
    if isinstance(m, int) and isinstance(n, int) and k is not None:
        length = max(0, min(m, n - k) if k >= 0 else min(m + k, n))
    return Outcome(value.with_dims((length,)))


def diagonal(value: ArrayType, offset: int, first: int, second: int, what: str) -> Outcome:
    """`jnp.diagonal(a, offset, axis1, axis2)`: the two axes go, and the diagonal's length is
    the last dim (0 where the offset passes the matrix)."""
    if value.ellipsis is not None:
        return Outcome(value.with_dims((), 0))
    rank = len(value.dims)
    if rank < 2:
        return Outcome(value.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what} needs at least 2 positional dims, but {value.positional_text()} has "
            f"{rank}", axes=(first, second)),))
    places: list[int] = []
    for axis in (first, second):
        place = normalize_axis(axis, rank)
        if place is None:
            return Outcome(value.with_dims((), 0), (out_of_range(axis, rank, what),))
        places.append(place)
    if places[0] == places[1]:
        return Outcome(value.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what}: axis1 ({first}) and axis2 ({second}) are one axis of "
            f"{value.positional_text()}; the diagonal needs two", axes=(first, second)),))
    rows, columns = value.dims[places[0]], value.dims[places[1]]
    length: Dim = None
    if isinstance(rows, int) and isinstance(columns, int):
        length = max(0, min(rows, columns - offset) if offset >= 0 else min(rows + offset, columns))
    rest = [size for index, size in enumerate(value.dims) if index not in places]
    return Outcome(value.with_dims((*rest, length)))


def rot90(value: ArrayType, k: int, first: int, second: int) -> Outcome:
    """`jnp.rot90(m, k, axes)`: k quarter turns in the plane of two distinct axes of an array of
    rank 2 at least; an odd count swaps their sizes."""
    if value.ellipsis is not None:
        return Outcome(value.with_dims((), 0))
    rank = len(value.dims)
    if rank < 2:
        return Outcome(value.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"jnp.rot90 turns in the plane of two dims, but {value.positional_text()} has "
            f"{rank}", axes=(first, second)),))
    places = [normalize_axis(axis, rank) for axis in (first, second)]
    for axis, place in zip((first, second), places, strict=True):
        if place is None:
            return Outcome(value.with_dims((), 0), (out_of_range(axis, rank, "jnp.rot90's argument"),))
    if places[0] == places[1]:
        return Outcome(value.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"jnp.rot90's axes ({first}, {second}) are one dim of {value.positional_text()}; "
            "the plane needs two", axes=(first, second)),))
    return swapaxes(value, first, second) if k % 2 else Outcome(value)


def matrix_transpose(value: ArrayType, what: str) -> Outcome:
    """`jnp.matrix_transpose(x)` and `x.mT`: the last two dims swapped; they must exist."""
    if value.rank is not None and value.rank < 2:
        return Outcome(value.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what} swaps the last two positional dims, but {value.positional_text()} "
            f"has {value.rank}", axes=(-2,)),))
    return swapaxes(value, -1, -2)


def meshgrid(values: Sequence[ArrayType], matrix: bool, sparse: bool,
             labels: Sequence[str] | None = None) -> Pieces:
    """`jnp.meshgrid(*xi, indexing=..., sparse=...)`: 1-d inputs; each result spans every input's
    length (`xy`: the first two swapped), or, `sparse`, only its own, 1 elsewhere."""
    for number, value in enumerate(values):
        if value.ellipsis is not None:
            return Pieces(None)
        if len(value.dims) != 1:
            return Pieces(None, (Problem(
                Code.AXIS_OUT_OF_RANGE, f"jnp.meshgrid takes 1-d arrays, but {label(labels, number)} has shape "
                f"{value.positional_text()}", operands=(number,)),))
    sizes = [value.dims[0] for value in values]
    places = list(range(len(values)))
    if not matrix and len(values) >= 2:  # `xy`: the first input runs along the second axis
        sizes[0], sizes[1] = sizes[1], sizes[0]
        places[0], places[1] = 1, 0
    if not sparse:
        return Pieces(tuple(value.with_dims(sizes) for value in values))
    return Pieces(tuple(value.with_dims(size if axis == place else 1 for axis, size in enumerate(sizes))
                        for value, place in zip(values, places, strict=True)))


def joined(values: Sequence[ArrayType], how: str, labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.hstack`, `vstack`, `dstack` or `column_stack` (`how`): each value raised to the rank the
    function needs (as `atleast_1d`/`2d`/`3d`, or a column for `column_stack`), then concatenated."""
    if not values or any(v.ellipsis is not None for v in values):
        return concatenate(values, 0, labels)
    raised = [lifted(v, how) for v in values]
    if how == "hstack":
        return concatenate(raised, 0 if len(raised[0].dims) == 1 else 1, labels)
    return concatenate(raised, {"vstack": 0, "dstack": 2, "column_stack": 1}[how], labels)


def lifted(value: ArrayType, how: str) -> ArrayType:
    """`value` raised to the rank `how` needs: `hstack` (as atleast_1d), `vstack` (atleast_2d: a
    leading 1), `column_stack` (a trailing 1) or `dstack` (atleast_3d)."""
    dims = value.dims
    if how == "hstack":
        return value.with_dims(dims or (1,))
    if how == "vstack":
        return value.with_dims((1,) * (2 - len(dims)) + dims if len(dims) < 2 else dims)
    if how == "column_stack":
        return value.with_dims((1, 1) if not dims else (dims[0], 1) if len(dims) == 1 else dims)
    # dstack: atleast_3d makes (n,) into (1, n, 1) and (m, n) into (m, n, 1)
    if len(dims) == 0:
        return value.with_dims((1, 1, 1))
    if len(dims) == 1:
        return value.with_dims((1, dims[0], 1))
    return value.with_dims((*dims, 1) if len(dims) == 2 else dims)
