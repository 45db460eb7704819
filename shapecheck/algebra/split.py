"""Splitting one array into several: `jnp.split`, `array_split`, `hsplit`/`vsplit`/`dsplit`, `unstack`.

JAX's rules (jax/_src/numpy/lax_numpy.py, `_split`): an int cuts the axis into that many pieces,
which `split` demands be equal and `array_split` makes differ by at most one (the first ones
longer); a sequence of indices cuts at those positions, which must not decrease and must stay
within the axis (JAX does not wrap negative ones). Anything else is a ValueError
(ZeroDivisionError for 0 sections): SC107.
"""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.outcome import Pieces, Problem, axis_position
from shapecheck.codes import Code
from shapecheck.dims import Dim, format_dim
from shapecheck.types import ArrayType

MAX_PIECES = 256
"""More pieces than this are not followed one by one (the value is unknown, never reported)."""


def split(value: ArrayType, sections: int | Sequence[Dim], axis: int = 0, *, equal: bool = True,
          what: str = "split") -> Pieces:
    """`jnp.split(value, sections, axis)`; `equal=False` for `array_split`. A sequence of
    `sections` holds the indices to cut at (None where one is not known)."""
    where = axis_position(value, axis, what)
    if isinstance(where, Problem):
        return Pieces(None, (where,))
    size = value.dims[where] if where is not None else None
    if isinstance(sections, int):
        return _sections(value, where, size, sections, axis, equal, what)
    bounds: list[Dim] = [0, *sections, size]
    highest: int | None = None
    for bound in bounds:
        if isinstance(bound, int):
            if highest is not None and bound < highest:
                return Pieces(None, (_indices_problem(sections, axis, size, what),))
            highest = bound
    if len(bounds) - 1 > MAX_PIECES:
        return Pieces(None)
    sizes = [_difference(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
    return Pieces(tuple(_piece(value, where, s) for s in sizes))


def _sections(value: ArrayType, where: int | None, size: Dim, sections: int, axis: int, equal: bool,
              what: str) -> Pieces:
    if sections == 0:
        return Pieces(None, (Problem(
            Code.SIZE_ARGUMENT_MISMATCH, f"{what}: cannot split axis {axis} into 0 sections", axes=(axis,)),))
    if sections < 0:
        # JAX makes no pieces, and then finds that they do not add up to the axis, unless it is empty.
        if isinstance(size, int) and size != 0:
            return Pieces(None, (Problem(
                Code.SIZE_ARGUMENT_MISMATCH, f"{what}: cannot split axis {axis} of size {size} into {sections} "
                "sections", axes=(axis,), sizes=(size,)),))
        return Pieces(())
    sizes: list[Dim]
    if isinstance(size, int):
        part, rest = divmod(size, sections)
        if rest and equal:
            return Pieces(None, (Problem(
                Code.SIZE_ARGUMENT_MISMATCH, f"{what}: {sections} sections do not divide axis {axis} of size {size} "
                f"(the remainder is {rest}); jnp.array_split makes pieces that differ by one",
                axes=(axis,), sizes=(size,)),))
        sizes = [*[part + 1] * rest, *[part] * (sections - rest)]
    else:
        sizes = [size if sections == 1 else None] * sections
    if sections > MAX_PIECES:
        return Pieces(None)
    return Pieces(tuple(_piece(value, where, s) for s in sizes))


def _indices_problem(indices: Sequence[Dim], axis: int, size: Dim, what: str) -> Problem:
    shown = "(" + ", ".join(format_dim(i) for i in indices) + ("," if len(indices) == 1 else "") + ")"
    negative = any(isinstance(i, int) and i < 0 for i in indices)
    hint = " (JAX does not count negative indices from the end)" if negative else ""
    return Problem(
        Code.SIZE_ARGUMENT_MISMATCH,
        f"{what}: indices {shown} must not decrease and must lie within axis {axis} of size "
        f"{format_dim(size)}{hint}", axes=(axis,), sizes=(size,))


def _difference(start: Dim, stop: Dim) -> Dim:
    if isinstance(start, int) and isinstance(stop, int):
        return stop - start
    if start == 0:
        return stop  # the only piece before any index is known: the whole axis (a symbol stays)
    return None


def _piece(value: ArrayType, where: int | None, size: Dim) -> ArrayType:
    if where is None:
        return value.with_dims((), 0)  # the cut dim hides under `...`: which one is not known
    dims = list(value.dims)
    dims[where] = size
    return value.with_dims(dims, value.ellipsis)


def unstack(value: ArrayType, axis: int = 0) -> Pieces:
    """`jnp.unstack(value, axis=axis)`: one piece per index along `axis`, without that dim."""
    where = axis_position(value, axis, "unstack")
    if isinstance(where, Problem):
        return Pieces(None, (where,))
    if where is None:
        return Pieces(None)
    size = value.dims[where]
    if not isinstance(size, int) or size > MAX_PIECES:
        return Pieces(None)
    dims = value.dims[:where] + value.dims[where + 1:]
    ellipsis = value.ellipsis if value.ellipsis is None or where >= value.ellipsis else value.ellipsis - 1
    return Pieces((value.with_dims(dims, ellipsis),) * size)


def hsplit_axis(rank: int | None) -> int | None:
    """The axis `jnp.hsplit` cuts: 0 for a 1-d array, else 1 (None where the rank is not known)."""
    if rank is None:
        return None
    return 0 if rank == 1 else 1
