"""`--format concise`: one line per diagnostic, `path:line:column: CODE message` (ruff's default
output), then the summary line of `text`. Grep, editors' error lists and `wc -l` read it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from shapecheck.diagnostic import Diagnostic
from shapecheck.formats.locations import one_line, shown
from shapecheck.formats.text import summary


def render(diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None,
           texts: Mapping[str, str] | None = None) -> str:
    lines = [f"{shown(d.path)}:{d.span.line}:{d.span.column + 1}: {d.code} {one_line(shown(d.message))}"
             for d in diagnostics]
    return "".join(line + "\n" for line in lines) + summary(diagnostics, files) + "\n"
