"""`--format pylint`: `path:line: [CODE] message`, the line format of pylint's `parseable`
output, which Jenkins' Warnings plugin, reviewdog and many CI parsers read (as ruff writes it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from shapecheck.diagnostic import Diagnostic
from shapecheck.formats.locations import one_line, shown


def render(diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None,
           texts: Mapping[str, str] | None = None) -> str:
    return "".join(f"{shown(d.path)}:{d.span.line}: [{d.code}] {one_line(shown(d.message))}\n"
                   for d in diagnostics)
