"""Human output: `path:line:col: CODE message`, the source line with a caret span, and notes."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

from shapecheck.diagnostic import Diagnostic, Span
from shapecheck.files import open_regular
from shapecheck.formats.locations import shown
from shapecheck.positions import split_lines


class _Sources:
    """The lines of the files a report quotes, numbered as CPython numbers them, each read only
    as far as its diagnostics reach (a file over the size bound, reported at its first line,
    is not read through), one file open at a time.

    One render's only: a path read in an earlier run may name another file now.
    """

    def __init__(self, texts: Mapping[str, str]) -> None:
        # Texts checked in place of a file's (`check --stdin-filename PATH -`): an excerpt
        # shows the text that was checked, not what is on disk.
        self.texts = texts
        self.path: str | None = None
        self.lines: list[str] = []
        self.rest: Iterator[str] = iter(())
        self.file: BinaryIO | None = None

    def line(self, path: str, number: int) -> str | None:
        if path != self.path:
            self._open(path)
        while len(self.lines) < number:
            try:
                line = next(self.rest)
            except (StopIteration, OSError, UnicodeDecodeError):  # the end, or text no more
                self.close()
                return None
            self.lines.append(line[:-1] if line.endswith("\n") else line)
        return self.lines[number - 1] if number >= 1 else None

    def _open(self, path: str) -> None:
        self.close()
        self.path = path
        self.lines = []
        if path in self.texts:
            self.lines = split_lines(self.texts[path])
            return
        try:
            self.file = open_regular(path)
            encoding, _ = tokenize.detect_encoding(self.file.readline)  # as `parsing.decode`
            self.file.seek(0)
        except (OSError, SyntaxError):
            self.close()
            return
        # Universal newlines: lines end at \n, \r\n or \r, as CPython's; "utf-8-sig" drops a BOM.
        self.rest = iter(io.TextIOWrapper(self.file, encoding, newline=None))

    def close(self) -> None:
        self.rest = iter(())
        if self.file is not None:
            self.file.close()
            self.file = None


EXCERPT_WIDTH = 120
"""Characters of a source line shown; a longer line (generated or minified code) is cut to a
window around the span, so one diagnostic never prints megabytes."""

_LEAD = 40  # characters shown before the span's start in a cut line
_CUT = "..."


def _excerpt(path: str, span: Span, sources: _Sources) -> list[str]:
    line = sources.line(path, span.line)
    if line is None:
        return []
    source = line.expandtabs(1)
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


def render(diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None,
           texts: Mapping[str, str] | None = None) -> str:
    out: list[str] = []
    sources = _Sources(texts or {})
    try:
        for d in diagnostics:
            out.append(f"{shown(d.path)}:{d.span.line}:{d.span.column + 1}: {d.code} {shown(d.message)}")
            out.extend(_excerpt(d.path, d.span, sources))
            for note in d.notes:
                out.append(f"  = note: {shown(note.message)} ({shown(note.path)}:{note.span.line}:"
                           f"{note.span.column + 1})")
            out.append("")
    finally:
        sources.close()
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
