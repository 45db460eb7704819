"""vmap's and pmap's in_axes and out_axes: one positional axis mapped, then put back.

The analyzer's vmap/pmap handler binds the call's arguments and calls these; inside the body
the mapped axis is a named axis (as in xmap), so collectives see it under `axis_name`.

What JAX refuses and these functions read as "nothing known" rather than report (as the
analyzer did before they were moved here): an in_axes tuple whose length is not the number of
positional arguments (SC002 in DESIGN.md section 3a), and an axis out of range for an argument
or a result (SC106). Each returns None there, so a later change can return the problem instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import CONFLICT, Conflict, Dim, certainly_differ, format_dim, unify
from shapecheck.types import ArrayType


@dataclass(frozen=True, slots=True)
class Unread:
    """An in_axes or out_axes entry the front end could not read: any axis, or None."""


@dataclass(frozen=True, slots=True)
class Kept:
    """An argument whose in_axes entry is None: it enters the body as it is."""


UNREAD: Final = Unread()
KEPT: Final = Kept()

AxisEntry: TypeAlias = int | Unread | None
"""One argument's (or the result's) entry: a positional axis, None (not mapped), or unread."""


@dataclass(frozen=True, slots=True)
class MappedArgs:
    """The body's view of the positional arguments, and the mapped axis's size."""

    args: tuple[ArrayType | Kept | None, ...]
    """Per argument: its type inside the body, KEPT (unchanged), or None (nothing known)."""
    size: Dim
    problems: tuple[Problem, ...] = ()


def map_in_axes(
    args: Sequence[ArrayType | None], in_axes: AxisEntry | Sequence[AxisEntry], axis: str,
    axis_size: Dim, labels: Sequence[str], kind: str = "vmap",
) -> MappedArgs | None:
    """Each argument with its in_axes dim removed and held as the named axis `axis`.

    `args` are the positional arguments (None where not an array the front end knows);
    `in_axes` is one entry for all of them or one per argument. Every mapped dim must have
    the size of the others and of `axis_size` (SC102, once); after a conflict the axis is
    CONFLICT in the body, so nothing there repeats it. None when the entries do not match
    the arguments.
    """
    entries = tuple(in_axes) if isinstance(in_axes, Sequence) else (in_axes,) * len(args)
    if len(entries) != len(args):
        return None
    body: list[ArrayType | Kept | None] = []
    mapped: list[tuple[int, int, Dim]] = []
    for index, (arg, entry) in enumerate(zip(args, entries, strict=True)):
        if entry is None:
            body.append(KEPT)
        elif arg is None or isinstance(entry, Unread):
            body.append(None)
        elif arg.ellipsis is not None:
            body.append(ArrayType(arg.dtype, (), (*arg.named, (axis, None)), 0, True))
        elif not -len(arg.dims) <= entry < len(arg.dims):
            body.append(None)
        else:
            position = entry % len(arg.dims)
            mapped.append((index, entry, arg.dims[position]))
            named = dict(arg.named)
            named[axis] = arg.dims[position]
            body.append(ArrayType(arg.dtype, arg.dims[:position] + arg.dims[position + 1:],
                                  tuple(named.items()), None, arg.named_open))
    size, problems = mapped_size(mapped, labels, axis_size, kind)
    if isinstance(size, Conflict):
        # Reported once, here: inside the body the mapped axis has no size to echo.
        for index, item in enumerate(body):
            target = args[index] if item is KEPT else item
            if isinstance(target, ArrayType):
                body[index] = target.with_named((n, size if n == axis else s) for n, s in target.named)
    return MappedArgs(tuple(body), size, tuple(problems))


def place_out_axis(result: ArrayType | None, out_axis: AxisEntry, axis: str, size: Dim) -> ArrayType | None:
    """The body's result with the named axis `axis` put back as positional dim `out_axis`.

    A result without the axis is broadcast along it (`size`); `out_axis` None leaves the
    result as the body returned it. None where nothing is known, or the axis is out of
    range (`-(r+1)..r` for a result of rank r).
    """
    if out_axis is None:
        return result
    if result is None or isinstance(out_axis, Unread):
        return None
    named = result.named_dict
    own = named.pop(axis, size)
    if result.ellipsis is not None:
        return ArrayType(result.dtype, (), tuple(named.items()), 0, result.named_open)
    rank = len(result.dims) + 1
    if not -rank <= out_axis < rank:
        return None
    dims = list(result.dims)
    dims.insert(out_axis % rank, own)
    return ArrayType(result.dtype, tuple(dims), tuple(named.items()), None, result.named_open)


def mapped_size(
    dims: Sequence[tuple[int, int, Dim]], labels: Sequence[str], axis_size: Dim = None, kind: str = "vmap",
) -> tuple[Dim, list[Problem]]:
    """The mapped axis's size from each mapped argument's `(operand, axis, size)` and `axis_size`.

    JAX refuses arguments whose mapped axes differ in size; after the first conflict the size
    is CONFLICT (unknown everywhere downstream), so the conflict is reported once. The problem's
    operands are the argument blamed and the one the other size came from.
    """
    size: Dim = axis_size
    source: tuple[int, int] | None = None  # (operand, axis) that gave `size`; None: axis_size
    for operand, axis, dim in dims:
        if certainly_differ(size, dim):
            where = "axis_size" if source is None else f"{labels[source[0]]} (axis {source[1]})"
            return CONFLICT, [Problem(
                Code.NAMED_SIZE_MISMATCH, f"{kind}: the mapped axes differ in size: {format_dim(dim)} in "
                f"{labels[operand]} (axis {axis}) but {format_dim(size)} in {where}; every mapped "
                "argument needs the same size there",
                sizes=(dim, size), operands=(operand,) if source is None else (operand, source[0]))]
        if not isinstance(size, int) and isinstance(dim, int):
            source = (operand, axis)
        size = unify(size, dim)
    return size, []
