"""Human output: `path:line:col: CODE message`, the source line with a caret span, and notes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from shapecheck.diagnostic import Diagnostic, Span
from shapecheck.files import read_regular
from shapecheck.formats.locations import shown
from shapecheck.parsing import SourceDecodeError, decode

UNSAVED: dict[str, str] = {}
"""Texts checked in place of a file's (`check --stdin-filename PATH -`), by path: the excerpt
shows the text that was checked, not what is on disk."""


def _lines(path: str, cache: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    # One render's cache only: a path read in an earlier run may name another file now.
    if path in UNSAVED:
        cache[path] = tuple(UNSAVED[path].splitlines())
    if path not in cache:
        try:
            cache[path] = tuple(decode(read_regular(path)).splitlines())
        except (OSError, SourceDecodeError):
            cache[path] = ()
    return cache[path]


EXCERPT_WIDTH = 120
"""Characters of a source line shown; a longer line (generated or minified code) is cut to a
window around the span, so one diagnostic never prints megabytes."""

_LEAD = 40  # characters shown before the span's start in a cut line
_CUT = "..."


def _excerpt(path: str, span: Span, cache: dict[str, tuple[str, ...]]) -> list[str]:
    lines = _lines(path, cache)
    if not 1 <= span.line <= len(lines):
        return []
    source = lines[span.line - 1].expandtabs(1)
    column = span.column
    end = span.end_column if span.end_line == span.line else len(source)
    if len(source) > EXCERPT_WIDTH:
        source, column, end = _window(source, column, end)
    width = max(end - column, 1)
    gutter = " " * len(str(span.line))
    return [
        f"{gutter} |",
        f"{span.line} | {source}",
        f"{gutter} | {' ' * column}{'^' * width}",
    ]


def _window(source: str, column: int, end: int) -> tuple[str, int, int]:
    """At most EXCERPT_WIDTH characters of `source` around `column`, cuts marked with `...`;
    the span's columns moved into the window (its end clipped to it)."""
    start = max(column - _LEAD, 0)
    stop = min(start + EXCERPT_WIDTH, len(source))
    start = max(min(start, stop - EXCERPT_WIDTH), 0)
    head = _CUT if start > 0 else ""
    tail = _CUT if stop < len(source) else ""
    shift = len(head) - start
    window = head + source[start:stop] + tail
    return window, column + shift, min(end + shift, len(head) + stop - start)


def render(diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None) -> str:
    out: list[str] = []
    cache: dict[str, tuple[str, ...]] = {}
    for d in diagnostics:
        out.append(f"{shown(d.path)}:{d.span.line}:{d.span.column + 1}: {d.code} {shown(d.message)}")
        out.extend(_excerpt(d.path, d.span, cache))
        for note in d.notes:
            out.append(f"  = note: {shown(note.message)} ({shown(note.path)}:{note.span.line}:"
                       f"{note.span.column + 1})")
        out.append("")
    out.append(summary(diagnostics, files))
    return "\n".join(out) + "\n"


def summary(diagnostics: Sequence[Diagnostic], files: int) -> str:
    """The last line of a text report (also under `--statistics`)."""
    count = len(diagnostics)
    touched = len({d.path for d in diagnostics})
    if count:
        return (f"Found {count} diagnostic{'s' if count != 1 else ''} in {touched} "
                f"file{'s' if touched != 1 else ''} ({files} checked).")
    return f"All checks passed ({files} file{'s' if files != 1 else ''} checked)."
