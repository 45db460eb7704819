"""`--format github`: workflow commands that GitHub Actions shows as annotations on the diff."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from shapecheck.diagnostic import Diagnostic
from shapecheck.formats.locations import shown


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None,
           texts: Mapping[str, str] | None = None) -> str:
    lines = []
    for d in diagnostics:
        message = shown(d.message + "".join(f"\nnote: {n.message} ({n.path}:{n.span.line})" for n in d.notes))
        lines.append(
            f"::{d.severity.value} file={_property(shown(d.path))},line={d.span.line},col={d.span.column + 1},"
            f"endLine={d.span.end_line},endColumn={d.span.end_column + 1},"
            f"title={_property('shapecheck ' + d.code)}::{_data(message)}"
        )
    return "".join(line + "\n" for line in lines)
