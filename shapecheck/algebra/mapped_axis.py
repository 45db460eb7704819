"""The size of the axis a vmap or pmap maps: every mapped argument must agree (SC102)."""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import CONFLICT, Dim, certainly_differ, format_dim, unify


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
