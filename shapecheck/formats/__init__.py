"""Output formats: each turns sorted diagnostics into text; none knows any shape rule."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final, Protocol

from shapecheck.diagnostic import Diagnostic
from shapecheck.formats import github, gitlab, json_format, sarif, text


class Formatter(Protocol):
    def __call__(self, diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None) -> str:
        """(diagnostics, number of files checked, project root) -> the whole output.

        `root` (default: the working directory) is what the CI formats make paths relative to.
        """
        ...


FORMATS: dict[str, Formatter] = {
    "text": text.render,
    "json": json_format.render,
    "github": github.render,
    "gitlab": gitlab.render,
    "sarif": sarif.render,
}

HUMAN_FORMATS: Final = frozenset({"text"})
"""Formats read by people: the only ones a progress bar is drawn beside."""
