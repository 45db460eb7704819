"""`jax.lax`'s structural operators: broadcast_in_dim, transpose, pad, reductions, rev, squeeze,
collapse, tile and split, with lax's own rules.

lax names dims by non-negative position where jax.numpy also counts from the end
(`lax.transpose`, `lax.rev`, the reductions and `lax.concatenate` refuse -1), keeps every size
explicit (`broadcast_in_dim` lists where each operand dim goes, `tile` one count per dim,
`split` sizes that add up to the dim) and pads with a configuration per dim, interior padding
included.
"""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.outcome import Outcome, Pieces, Problem, normalize_axis, out_of_range
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim, format_shape, product, total
from shapecheck.types import ArrayType


def positions(value: ArrayType, axes: Sequence[int], what: str, *, unique: bool = True) -> Problem | None:
    """Each of `axes` a dim of `value` counted from 0 (lax reads no negative position), and,
    where `unique`, none named twice."""
    if value.ellipsis is not None:
        return None
    rank = len(value.dims)
    for axis in axes:
        if not 0 <= axis < rank:
            return Problem(Code.AXIS_OUT_OF_RANGE,
                           f"{what} takes dims 0 to {rank - 1} of {value.positional_text()}, counted from 0, but is "
                           f"given {axis}" + (" (lax counts no dim from the end)" if -rank <= axis < 0 else ""),
                           axes=(axis,))
    if unique and len(set(axes)) != len(axes):
        return Problem(Code.AXIS_OUT_OF_RANGE, f"{what} names a dim twice in {tuple(axes)}", axes=tuple(axes))
    return None


def transpose(value: ArrayType, permutation: Sequence[int]) -> Outcome:
    """`lax.transpose(x, permutation)`: a permutation of all of x's dims, from 0."""
    if value.ellipsis is not None:
        return Outcome(value.with_dims([None] * len(permutation)))
    problem = positions(value, permutation, "lax.transpose")
    if problem is None and len(permutation) != len(value.dims):
        problem = Problem(Code.AXIS_OUT_OF_RANGE, f"lax.transpose's permutation {tuple(permutation)} does not "
                          f"name each of the {len(value.dims)} dims of {value.positional_text()}",
                          axes=tuple(permutation))
    if problem is not None:
        return Outcome(value.with_dims((), 0), (problem,))
    return Outcome(value.with_dims(value.dims[axis] for axis in permutation))


def broadcast_in_dim(value: ArrayType, shape: Sequence[Dim], dims: Sequence[int]) -> Outcome:
    """`lax.broadcast_in_dim(x, shape, broadcast_dimensions)`: x's dim i goes to the result's
    dim `dims[i]` (each a distinct one), where it is 1 or that dim's size."""
    result = value.with_dims(shape)
    if value.ellipsis is not None:
        return Outcome(result)
    what = "lax.broadcast_in_dim"
    if len(dims) != len(value.dims):
        return Outcome(result, (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what}: broadcast_dimensions {tuple(dims)} place {len(dims)} dims, but the "
            f"operand {value.positional_text()} has {len(value.dims)}", axes=tuple(dims)),))
    for index, (size, place) in enumerate(zip(value.dims, dims, strict=True)):
        if not 0 <= place < len(shape) or place in dims[:index]:
            return Outcome(result, (Problem(
                Code.AXIS_OUT_OF_RANGE, f"{what}: broadcast_dimensions {tuple(dims)} are not distinct dims of the "
                f"result {format_shape(tuple(shape))}", axes=tuple(dims)),))
        if size != 1 and certainly_differ(size, shape[place]):
            return Outcome(result, (Problem(
                Code.BROADCAST_MISMATCH, f"{what}: operand dim {index} of {value.positional_text()} has size "
                f"{format_dim(size)}, which goes to result dim {place} of size {format_dim(shape[place])}: it must "
                "be 1 or that size", sizes=(size, shape[place])),))
    return Outcome(result)


def reshape(value: ArrayType, sizes: Sequence[Dim], order: Sequence[int] | None) -> Outcome:
    """`lax.reshape(x, new_sizes, dimensions)`: every size written out (no -1), `dimensions` a
    permutation of x's dims. The element count is left to JAX: its shape rule does not read it."""
    result = value.with_dims(sizes)
    negative = [size for size in sizes if isinstance(size, int) and size < 0]
    if negative:
        return Outcome(result.with_dims((), 0), (Problem(
            Code.RESHAPE_MISMATCH, f"lax.reshape takes every new size written out, but is given {tuple(sizes)} "
            "(jnp.reshape infers a -1)", sizes=tuple(negative)),))
    if order is not None and value.ellipsis is None and sorted(order) != list(range(len(value.dims))):
        return Outcome(result.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"lax.reshape's dimensions {tuple(order)} are not a permutation of the dims of "
            f"{value.positional_text()}", axes=tuple(order)),))
    return Outcome(result)


def pad(value: ArrayType, config: Sequence[tuple[Dim, Dim, Dim]]) -> Outcome:
    """`lax.pad(x, value, padding_config)`: per dim (low, high, interior); low and high may be
    negative (they cut), interior not; no dim ends below 0."""
    if value.ellipsis is not None:
        return Outcome(value.with_dims([None] * len(config)))
    what = "lax.pad"
    if len(config) != len(value.dims):
        return Outcome(value.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what}: padding_config has {len(config)} entries for the {len(value.dims)} "
            f"dims of {value.positional_text()}"),))
    dims: list[Dim] = []
    for axis, (size, (low, high, interior)) in enumerate(zip(value.dims, config, strict=True)):
        if isinstance(interior, int) and interior < 0:
            return Outcome(value.with_dims((), 0), (Problem(
                Code.SIZE_ARGUMENT_MISMATCH, f"{what}: interior padding {interior} of dim {axis} is negative",
                sizes=(interior,)),))
        padded: Dim = None
        if all(isinstance(part, int) for part in (size, low, high, interior)):
            assert isinstance(size, int) and isinstance(low, int) and isinstance(high, int) \
                and isinstance(interior, int)
            padded = low + high + size + max(size - 1, 0) * interior
            if padded < 0:
                return Outcome(value.with_dims((), 0), (Problem(
                    Code.SIZE_ARGUMENT_MISMATCH, f"{what}: dim {axis} of {value.positional_text()} padded by "
                    f"({low}, {high}, {interior}) has size {padded}, below 0", sizes=(size, padded)),))
        dims.append(padded)
    return Outcome(value.with_dims(dims))


def squeeze(value: ArrayType, axes: Sequence[int]) -> Outcome:
    """`lax.squeeze(x, dimensions)`: each dim named has size 1."""
    if value.ellipsis is not None:
        return Outcome(value.with_dims((), 0))
    rank = len(value.dims)
    places: list[int] = []
    for axis in axes:
        place = normalize_axis(axis, rank)
        if place is None:
            return Outcome(value.with_dims((), 0), (out_of_range(axis, rank, "lax.squeeze"),))
        if certainly_differ(value.dims[place], 1):
            return Outcome(value.with_dims((), 0), (Problem(
                Code.AXIS_OUT_OF_RANGE, f"lax.squeeze removes dims of size 1, but dim {axis} of "
                f"{value.positional_text()} has size {format_dim(value.dims[place])}", axes=(axis,)),))
        places.append(place)
    return Outcome(value.with_dims(size for index, size in enumerate(value.dims) if index not in places))


def collapse(value: ArrayType, start: int, stop: int | None) -> Outcome:
    """`lax.collapse(x, start, stop)`: dims `start:stop`, as Python slices them, made one (of size
    1 where the slice is empty)."""
    if value.ellipsis is not None:
        return Outcome(value.with_dims((), 0))
    dims = value.dims
    end = len(dims) if stop is None else stop
    return Outcome(value.with_dims((*dims[:start], product(dims[start:end]), *dims[end:])))


def tile(value: ArrayType, multiples: Sequence[Dim]) -> Outcome:
    """`lax.tile(x, multiples)`: one count per dim."""
    if value.ellipsis is not None:
        return Outcome(value.with_dims([None] * len(multiples)))
    if len(multiples) != len(value.dims):
        return Outcome(value.with_dims((), 0), (Problem(
            Code.SIZE_ARGUMENT_MISMATCH, f"lax.tile takes one count per dim: {len(multiples)} counts for the "
            f"{len(value.dims)} dims of {value.positional_text()}"),))
    return Outcome(value.with_dims(product((size, count)) for size, count in zip(value.dims, multiples, strict=True)))


def split(value: ArrayType, sizes: Sequence[Dim], axis: int) -> Pieces:
    """`lax.split(x, sizes, axis)`: pieces of these sizes along `axis`, which they add up to."""
    if value.ellipsis is not None:
        return Pieces(None)
    rank = len(value.dims)
    place = normalize_axis(axis, rank)
    if place is None:
        return Pieces(None, (out_of_range(axis, rank, "lax.split"),))
    whole = value.dims[place]
    added = total(sizes)
    if added is not None and isinstance(whole, int) and added != whole:
        return Pieces(None, (Problem(
            Code.SIZE_ARGUMENT_MISMATCH, f"lax.split: sizes {tuple(sizes)} add up to {added}, but dim {axis} of "
            f"{value.positional_text()} has size {whole}", sizes=(added, whole)),))
    return Pieces(tuple(value.with_dims((*value.dims[:place], size, *value.dims[place + 1:])) for size in sizes))
