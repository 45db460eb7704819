"""Inlay hints: the inferred type after each unannotated assignment target."""

from __future__ import annotations

from lsprotocol import types

from shapecheck.lsp.analysis import Analysis
from shapecheck.lsp.positions import Lines


def inlay_hints(analysis: Analysis, visible: types.Range, encoding: str) -> list[types.InlayHint]:
    """A `: TYPE` hint after every `name = value` in `visible` whose value is an array."""
    lines = Lines(analysis.buffer.text, encoding)
    first = lines.column(visible.start)
    last = lines.column(visible.end)
    hints: list[types.InlayHint] = []
    for assignment, value in analysis.assignments:
        if value is None or not first <= (assignment.target.end_line, assignment.target.end_column) <= last:
            continue
        hints.append(types.InlayHint(
            position=lines.position(assignment.target.end_line, assignment.target.end_column),
            label=f": {value.type}",
            kind=types.InlayHintKind.Type,
        ))
    return hints
