"""The error the runtime raises when a named-axis program is certainly wrong."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code


@dataclass(frozen=True, slots=True)
class Location:
    """A place in the user's code: 1-based line and column, as the checker prints them."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{_shown(self.path)}:{self.line}:{self.column}"


class NamedAxisError(ValueError):
    """A named-axis rule broken at trace time; `code` is the DESIGN.md diagnostic code (SC201, ...).

    It subclasses ValueError because the removed xmap raised ValueError/TypeError for the same
    mistakes, so `except ValueError` in existing programs keeps working. `location` is the
    user's code at fault, set where the error is raised when it is known there (the line that
    built a value), else by the runtime's API boundary (the line that called the runtime).
    """

    def __init__(self, code: Code, message: str, problems: Sequence[Problem] = (),
                 location: Location | None = None) -> None:
        super().__init__(str(code), message)  # args stay plain strings, as before the enum
        self.code = code
        self.message = message
        self.problems = tuple(problems)
        self.location = location

    def __str__(self) -> str:
        # The checker's own format (`path:line:col: CODE message`), so editors link both alike.
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.code} {self.message}"

    @staticmethod
    def from_problems(problems: Sequence[Problem], context: str = "",
                      location: Location | None = None) -> NamedAxisError:
        """One error for the algebra's problems: the first one's code, every message listed."""
        first = problems[0]
        lines = [problem.message for problem in problems]
        prefix = f"{context}: " if context else ""
        return NamedAxisError(first.code, prefix + "; ".join(lines), problems, location)


NamedAxisError.__module__ = "shapecheck.runtime"  # where users import it from, as tracebacks show it


def raise_problems(problems: Sequence[Problem], context: str = "", location: Location | None = None) -> None:
    """Raise when the algebra found anything: both halves of the project share its messages."""
    if problems:
        raise NamedAxisError.from_problems(problems, context, location)


def _shown(path: str) -> str:
    """A path under the working directory relative to it, as the checker prints paths."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive
        return path
    return path if relative.startswith(os.pardir) else relative
