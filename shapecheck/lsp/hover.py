"""Hover: the inferred type of the array-valued expression or assigned name under the cursor."""

from __future__ import annotations

from lsprotocol import types

from shapecheck.algebra.replication import vma_text
from shapecheck.algebra.sharding_types import typeof
from shapecheck.diagnostic import Span
from shapecheck.lsp.analysis import Analysis
from shapecheck.lsp.assignments import contains, within
from shapecheck.lsp.positions import Lines
from shapecheck.results import Placement, TypedSpan
from shapecheck.types import ArrayType


def hover(analysis: Analysis, position: types.Position, encoding: str) -> types.Hover | None:
    """The innermost typed expression containing `position`, or the name an assignment binds:
    its type and, inside a map, how it lies on the device mesh."""
    lines = Lines(analysis.buffer.text, encoding)
    line, column = lines.column(position)
    # On a boundary (`a+b` at the `+`) the span the cursor is inside wins over the one it ends.
    found = (_innermost(analysis.result.types, line, column, inclusive=False)
             or _innermost(analysis.result.types, line, column, inclusive=True))
    if found is not None:
        return _hover(found.type, lines, found.span, found.placement)
    for assignment, value in analysis.assignments:
        if value is not None and contains(assignment.target, line, column):
            return _hover(value.type, lines, assignment.target, value.placement)
    return None


def _innermost(typed: tuple[TypedSpan, ...], line: int, column: int, *,
               inclusive: bool) -> TypedSpan | None:
    best: TypedSpan | None = None
    for candidate in typed:
        span = candidate.span
        at_end = (line, column) == (span.end_line, span.end_column)
        if not contains(span, line, column) or (at_end and not inclusive):
            continue
        if best is None or within(span, best.span):
            best = candidate
    return best


def _hover(value: ArrayType, lines: Lines, span: Span, placement: Placement | None = None) -> types.Hover:
    text = f"```python\n{value}\n```"
    if value.sharding is not None and value.sharding.split and not (placement and placement.varying):
        # Split over Explicit mesh axes: the type as JAX itself prints it, too.
        text += f"\n\n`jax.typeof`: `{typeof(value)}`"
    if placement is not None:
        text += "".join(f"\n\n`{name}` is split over mesh {_axes(axes)} (`axis_resources`)"
                        for name, axes in placement.resources)
        if placement.varying:
            jax_type = typeof(value.with_sharding(None)) + vma_text(placement.varying, placement.varying)
            text += (f"\n\n`jax.typeof`: `{jax_type}`: varies over mesh {_axes(placement.varying)} "
                     "(differs between their devices)")
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                       range=lines.range(span))


def _axes(names: tuple[str, ...]) -> str:
    listed = ", ".join(f"`{name}`" for name in names)
    return f"axis {listed}" if len(names) == 1 else f"axes {listed}"
