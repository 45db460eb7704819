"""Output formats: each turns sorted diagnostics into text; none knows any shape rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import import_module
from pathlib import Path
from typing import Final, Protocol, cast

from shapecheck.diagnostic import Diagnostic


class Formatter(Protocol):
    def __call__(self, diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None,
                 texts: Mapping[str, str] | None = None) -> str:
        """(diagnostics, number of files checked, project root) -> the whole output.

        `root` (default: the working directory) is what the CI formats make paths relative to;
        `texts` are what was checked in place of files (an editor's unsaved buffer), by path,
        for the formats that quote source lines.
        """
        ...


_MODULES: Final = {
    "text": "shapecheck.formats.text",
    "json": "shapecheck.formats.json_format",
    "github": "shapecheck.formats.github",
    "gitlab": "shapecheck.formats.gitlab",
    "sarif": "shapecheck.formats.sarif",
    "concise": "shapecheck.formats.concise",
    "junit": "shapecheck.formats.junit",
    "pylint": "shapecheck.formats.pylint",
    "azure": "shapecheck.formats.azure",
}

FORMATS: Final = frozenset(_MODULES)
"""The names `--format` accepts."""


def formatter(name: str) -> Formatter:
    """The format called `name`, imported when first asked for: a run prints one format, and
    the others (SARIF's URIs, GitLab's fingerprints) cost start-up time for nothing."""
    return cast(Formatter, import_module(_MODULES[name]).render)

HUMAN_FORMATS: Final = frozenset({"text", "concise"})
"""Formats read by people: the only ones a progress bar is drawn beside."""
