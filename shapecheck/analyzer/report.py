"""Collects what the interpreter finds, keyed by syntax node; spans are resolved only at the end."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code

if TYPE_CHECKING:
    from shapecheck.analyzer.summaries import Recorder


@dataclass(frozen=True, slots=True)
class Finding:
    """A diagnostic before positions are known: code, message, node, and notes at other nodes."""

    node: ast.AST
    code: Code
    message: str
    notes: tuple[tuple[str, ast.AST], ...] = ()
    # Where to report when `node` is not in the file checked: a spec literal written in another
    # module and used here is reported at this file's call, never at a made-up position.
    fallback: ast.AST | None = None


class Reporter:
    """One file's findings. A node gets at most one finding per code: a function analysed for
    several argument types reports its first, most specific finding once."""

    __slots__ = ("_captured", "_seen", "findings", "muted", "recorder")

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self._seen: set[tuple[int, Code]] = set()
        self.muted = 0  # >0 while analysing code whose findings belong to another file or pass
        self._captured: list[list[Finding]] = []
        # The run's summaries recorder (the language server's; `summaries`): every report tried
        # is part of what an analysis did, reported or found already reported there.
        self.recorder: Recorder | None = None

    @property
    def capturing(self) -> bool:
        return bool(self._captured)

    @property
    def seen(self) -> set[tuple[int, Code]]:
        """The (node id, code) places reported so far."""
        return self._seen

    def capture(self) -> None:
        """Collect (rather than report) findings until `release`: another module's body, whose
        own check cannot know this file's arguments."""
        self._captured.append([])

    def release(self) -> list[Finding]:
        return self._captured.pop()

    def pass_up(self, findings: list[Finding]) -> None:
        """Hand released findings to the enclosing capture, if any (else they are dropped)."""
        if self._captured:
            self._captured[-1].extend(findings)

    def add(self, node: ast.AST, code: Code, message: str,
            notes: Iterable[tuple[str, ast.AST]] = (), fallback: ast.AST | None = None) -> None:
        if self.muted:
            return
        finding = Finding(node, code, message, tuple(notes), fallback)
        if self._captured:
            self._captured[-1].append(finding)
            return
        key = (id(node), code)
        if self.recorder is not None and self.recorder.active:
            self.recorder.tried(finding, key, key in self._seen)
        if key in self._seen:
            return
        self._seen.add(key)
        self.findings.append(finding)

    def problems(self, problems: Sequence[Problem], node: ast.AST,
                 operand_nodes: Sequence[ast.AST] = (),
                 notes: Iterable[tuple[str, ast.AST]] = (), fallback: ast.AST | None = None) -> None:
        """Report algebra problems: at their own origin, else at the operand they blame, else at
        `node`; at `fallback` (default `node`) when that place is in another module."""
        for problem in problems:
            target = node
            if isinstance(problem.origin, ast.AST):
                target = problem.origin
            elif problem.code == Code.NAMED_SIZE_MISMATCH and problem.operands and operand_nodes:
                index = max(problem.operands)
                if index < len(operand_nodes):
                    target = operand_nodes[index]
            self.add(target, problem.code, problem.message, notes, fallback=fallback or node)
