"""Where CPython's nodes stand in their file, as `Span`s: 1-based lines, 0-based columns counted
in characters (code points), as diagnostics, SARIF (`columnKind: unicodeCodePoints`) and the
language server's conversions expect.

CPython records each node's place itself; its columns count UTF-8 bytes, so a line holding a
non-ASCII character needs its columns converted. Lines are split as CPython's tokenizer splits
them (`\\r\\n`, `\\r` and `\\n` all end a line).
"""

from __future__ import annotations

import ast
import re

from shapecheck.diagnostic import Span

NEWLINE = re.compile(r"\r\n|\r|\n")
"""What ends a line, for CPython's tokenizer: `\r\n`, `\r` or `\n`."""


def split_lines(text: str) -> list[str]:
    """The lines of `text` as CPython numbers them (the common case, `\n` only, without the pattern)."""
    return NEWLINE.split(text) if "\r" in text else text.split("\n")


class Positions:
    """The spans of one file's nodes; `span` answers None for a node that records no place."""

    __slots__ = ("_encoded", "_lines")

    def __init__(self, text: str) -> None:
        self._lines = split_lines(text)
        self._encoded: dict[int, bytes] = {}

    def span(self, node: ast.AST) -> Span | None:
        line = getattr(node, "lineno", None)
        if line is None:
            return None
        end_line = getattr(node, "end_lineno", None) or line
        column = self._column(line, node.col_offset)  # type: ignore[attr-defined]
        end_column = getattr(node, "end_col_offset", None)
        end = self._column(end_line, end_column) if end_column is not None else column
        return Span(line, column, end_line, end)

    def _column(self, line: int, byte_column: int) -> int:
        if not 0 < line <= len(self._lines):
            return byte_column
        text = self._lines[line - 1]
        if text.isascii():
            return byte_column
        encoded = self._encoded.get(line)
        if encoded is None:
            encoded = self._encoded[line] = text.encode("utf-8")
        return len(encoded[:byte_column].decode("utf-8", errors="ignore"))
