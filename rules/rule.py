"""The shape of a rule module: one diagnostic code, its docs, and examples that run as tests."""

from __future__ import annotations

from dataclasses import dataclass, field

from shapecheck.codes import Code
from shapecheck.diagnostic import Severity


@dataclass(frozen=True, slots=True)
class Example:
    """A program and the (line, code) pairs the checker must report on it, nothing more."""

    source: str
    expected: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Rule:
    """One diagnostic code, documented in ruff's template: What it does / Why is this bad? / Example / Use instead."""

    code: Code
    name: str  # kebab-case, describes the pattern
    summary: str  # one line: what it checks
    why: str  # why it matters
    wrong: Example  # the Example section: must report `wrong.expected`
    fixed: Example  # the Use instead section: must report nothing
    severity: Severity = Severity.ERROR
    mypy_code: str = field(default="")
    more: tuple[Example, ...] = ()  # extra cases that run as tests too

    @property
    def error_code(self) -> str:
        """The mypy error code: `shape-` and the rule's name."""
        return self.mypy_code or f"shape-{self.name}"

    def explain(self) -> str:
        return (
            f"{self.code} ({self.name})\n\n## What it does\n{self.summary}\n\n"
            f"## Why is this bad?\n{self.why}\n\n## Example\n```python\n{_shown(self.wrong.source)}\n```\n\n"
            f"## Use instead\n```python\n{_shown(self.fixed.source)}\n```\n"
        )


def _shown(source: str, width: int = 100) -> str:
    """An example as the docs show it: a generated line of thousands of terms is abbreviated."""
    lines = source.strip().splitlines()
    return "\n".join(line if len(line) <= width else f"{line[:width - 20]} ... {line[-12:]}"
                     for line in lines)
