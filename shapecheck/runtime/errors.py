"""The error the runtime raises when a named-axis program is certainly wrong."""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.outcome import Problem


class NamedAxisError(ValueError):
    """A named-axis rule broken at trace time; `code` is the DESIGN.md diagnostic code (SC201, ...).

    It subclasses ValueError because the removed xmap raised ValueError/TypeError for the same
    mistakes, so `except ValueError` in existing programs keeps working.
    """

    def __init__(self, code: str, message: str, problems: Sequence[Problem] = ()) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.problems = tuple(problems)

    @staticmethod
    def from_problems(problems: Sequence[Problem], context: str = "") -> NamedAxisError:
        """One error for the algebra's problems: the first one's code, every message listed."""
        first = problems[0]
        lines = [problem.message for problem in problems]
        prefix = f"{context}: " if context else ""
        return NamedAxisError(first.code, prefix + "; ".join(lines), problems)


def raise_problems(problems: Sequence[Problem], context: str = "") -> None:
    """Raise when the algebra found anything: both halves of the project share its messages."""
    if problems:
        raise NamedAxisError.from_problems(problems, context)
