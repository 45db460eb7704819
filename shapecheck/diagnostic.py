"""What every front end reports: a diagnostic with a span, a code, a message and notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from shapecheck.codes import Code

NOT_CHECKED: Final = Code.NOT_CHECKED
"""The code of a file that could not be checked at all: unreadable, undecodable, not a regular
file, or an internal error. Not a rule: select and ignore never hide it."""

INCOMPLETE: Final = frozenset({NOT_CHECKED, Code.ANALYSIS_LIMIT})
"""Codes saying a file was not (fully) checked: the run exits 2, whatever else it found."""


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A source range: 1-based lines, 0-based columns, end exclusive (converted only at the edges)."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True, slots=True)
class Note:
    """A related place: where an axis was mapped, where a size came from."""

    message: str
    path: str
    span: Span


@dataclass(frozen=True, slots=True)
class Diagnostic:
    path: str
    span: Span
    code: Code
    message: str
    severity: Severity = Severity.ERROR
    notes: tuple[Note, ...] = field(default=())

    def sort_key(self) -> tuple[str, Span, str, str]:
        return (self.path, self.span, self.code, self.message)
