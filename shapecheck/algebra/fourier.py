"""`jnp.fft`'s transforms: the shape and dtype of each, and the axes and lengths they read.

A transform runs along some axes of its input (one for `fft`, the last two for `fft2`, all or
the last `len(s)` for `fftn`), each taken or padded to its length `n` (default: the axis's
size). Complex-to-complex transforms keep those lengths; a real-to-complex one (`rfft`) keeps
`n // 2 + 1` on its last axis, a complex-to-real one (`irfft`, `hfft`) makes `n` there, by
default `2 * (size - 1)`. An axis beyond the rank, or named twice, is SC106, a length below 1
SC107.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from shapecheck.algebra.outcome import Outcome, Problem, normalize_axis, out_of_range
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.dtypes import KINDS
from shapecheck.types import ArrayType

Kind = Literal["c2c", "r2c", "c2r"]


def transform(value: ArrayType, axes: Sequence[int], lengths: Sequence[Dim] | None, kind: Kind,
              what: str) -> Outcome:
    """The transform of `value` along `axes` (in order, the last one special for r2c and c2r),
    each of its length in `lengths` (None: the axis's size)."""
    if value.ellipsis is not None:
        return Outcome(_any(value, kind))
    rank = len(value.dims)
    places: list[int] = []
    for axis in axes:
        place = normalize_axis(axis, rank)
        if place is None:
            return Outcome(_any(value, kind), (out_of_range(axis, rank, f"the argument of {what}"),))
        if place in places:
            return Outcome(_any(value, kind), (Problem(
                Code.AXIS_OUT_OF_RANGE, f"{what}: axis {axis} names axis {place} again in {tuple(axes)}",
                axes=(axis,)),))
        places.append(place)
    for length in lengths or ():
        if isinstance(length, int) and length < 1:
            return Outcome(_any(value, kind), (Problem(
                Code.SIZE_ARGUMENT_MISMATCH, f"{what}: a transform's length is 1 or more, not {length}",
                sizes=(length,)),))
    dims = list(value.dims)
    for index, place in enumerate(places):
        given = lengths[index] if lengths is not None else None
        last = index == len(places) - 1
        size = dims[place]
        if kind == "c2r" and last:
            dims[place] = given if given is not None else (2 * (size - 1) if isinstance(size, int) else None)
        else:
            length = given if given is not None else size
            if kind == "r2c" and last:
                length = length // 2 + 1 if isinstance(length, int) else None
            dims[place] = length
    return Outcome(value.with_dims(dims).with_dtype(_dtype(value.dtype, kind)))


def frequencies(n: Dim, real: bool) -> ArrayType:
    """`fftfreq(n)`, `rfftfreq(n)`: the sample frequencies, `(n,)` or `(n // 2 + 1,)`."""
    size = (n // 2 + 1 if isinstance(n, int) else None) if real else n
    return ArrayType("f32", (size,))


def _dtype(dtype: str | None, kind: Kind) -> str | None:
    """Complex for c2c and r2c (complex128 from a 64-bit input), real for c2r."""
    found = KINDS.get(dtype) if dtype is not None else None
    wide = found is not None and found[1] >= (128 if found[0] == "c" else 64)
    if kind == "c2r":
        return "f64" if wide else "f32"
    return "c128" if wide else "c64"


def _any(value: ArrayType, kind: Kind) -> ArrayType:
    """Any shape, in the transform's dtype."""
    return value.with_dims((), 0).with_dtype(_dtype(value.dtype, kind))
