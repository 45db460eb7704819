"""`jax.scipy.ndimage.map_coordinates(input, coordinates, order)`: `input` read at the points
`coordinates` gives, one coordinate array per dim of `input`; the values have the shape those
arrays broadcast to, and input's dtype."""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.outcome import Outcome, Problem, label
from shapecheck.codes import Code
from shapecheck.dims import format_dim
from shapecheck.types import ArrayType


def map_coordinates(input: ArrayType, coordinates: ArrayType | Sequence[ArrayType],
                    labels: Sequence[str] | None = None) -> Outcome:
    """The values at the points: an array of coordinates `(k, *points)` is k arrays of shape
    `points` (JAX iterates over its first dim), a sequence one array per item; k must be
    input's rank (SC106) and the arrays must broadcast (SC101)."""
    unknown = Outcome(ArrayType(input.dtype, (), ellipsis=0))
    if input.ellipsis is not None:
        return unknown
    if isinstance(coordinates, ArrayType):
        if coordinates.ellipsis is not None or not coordinates.dims:
            return unknown  # a 0-d array cannot be iterated: JAX's TypeError, not followed
        count, points = coordinates.dims[0], coordinates.with_dims(coordinates.dims[1:])
    else:
        count, points = len(coordinates), None
    if isinstance(count, int) and count != len(input.dims):
        return Outcome(unknown.type, (Problem(
            Code.AXIS_OUT_OF_RANGE, f"jax.scipy.ndimage.map_coordinates takes one coordinate array per dim of its "
            f"input, {len(input.dims)} for {label(labels, 0)} of shape {input.positional_text()}, but "
            f"{label(labels, 1)} gives {format_dim(count)}" + (" (its first dim: stack the coordinates along axis 0)"
                                                              if points is not None else ""),
            sizes=(count, len(input.dims)), operands=(0, 1)),))
    if not input.dims or 0 in input.dims:
        return unknown  # nothing to interpolate: JAX fails otherwise (an empty reduction, a gather's sizes)
    if points is None:
        assert not isinstance(coordinates, ArrayType)
        joint = broadcast(coordinates, [f"coordinate {index}" for index in range(len(coordinates))])
        if joint.problems:
            return Outcome(unknown.type, joint.problems)
        points = joint.type
    if points.ellipsis is not None:
        return unknown
    return Outcome(ArrayType(input.dtype, points.dims))
