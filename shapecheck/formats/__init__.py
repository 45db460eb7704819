"""Output formats: each turns sorted diagnostics into text; none knows any shape rule."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shapecheck.diagnostic import Diagnostic
from shapecheck.formats import github, json_format, sarif, text

Formatter = Callable[[Sequence[Diagnostic], int], str]
"""(diagnostics, number of files checked) -> the whole output."""

FORMATS: dict[str, Formatter] = {
    "text": text.render,
    "json": json_format.render,
    "github": github.render,
    "sarif": sarif.render,
}
