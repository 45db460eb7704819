"""Positions at the LSP edge: our spans (1-based lines, code-point columns) against the
client's (0-based lines, columns in the negotiated encoding, UTF-16 unless it said otherwise)."""

from __future__ import annotations

from lsprotocol import types

from shapecheck.diagnostic import Span
from shapecheck.positions import NEWLINE  # Python's tokenizer and the LSP split lines alike


def encoding_name(encoding: object) -> str:
    """`utf-16`, `utf-8` or `utf-32` from pygls's value (an enum member's str() is its name)."""
    value = getattr(encoding, "value", encoding)
    return value if isinstance(value, str) else types.PositionEncodingKind.Utf16.value


class Lines:
    """One buffer's lines, converting columns between code points and the client's units."""

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16) -> None:
        self.lines = NEWLINE.split(text)
        self.encoding = encoding_name(encoding)

    def line(self, index: int) -> str:
        """The text of 0-based line `index`, without its line break ("" past the end)."""
        return self.lines[index] if 0 <= index < len(self.lines) else ""

    def _units(self, text: str) -> int:
        if self.encoding == types.PositionEncodingKind.Utf8:
            return len(text.encode("utf-8", "surrogatepass"))
        if self.encoding == types.PositionEncodingKind.Utf32:
            return len(text)
        return len(text.encode("utf-16-le", "surrogatepass")) // 2

    def position(self, line: int, column: int) -> types.Position:
        """The client position of our 1-based `line` and code-point `column`.

        A line past the end is clamped to the last; a column past its line's end (a syntax
        error at the line break) stays past it, one unit per column, as the CLI reports it:
        LSP clients read such a position as the line's end.
        """
        index = min(max(line - 1, 0), len(self.lines) - 1)
        text = self.line(index)
        column = max(column, 0)
        return types.Position(line=index, character=self._units(text[:column]) + max(column - len(text), 0))

    def range(self, span: Span) -> types.Range:
        return types.Range(start=self.position(span.line, span.column),
                           end=self.position(span.end_line, span.end_column))

    def column(self, position: types.Position) -> tuple[int, int]:
        """Our (1-based line, code-point column) of a client position; past a line's end, its end."""
        text = self.line(position.line)
        units = 0
        for index, char in enumerate(text):
            if units >= position.character:
                return position.line + 1, index
            units += self._units(char)
        return position.line + 1, len(text)
