"""One analysed version of a buffer: what hover, inlay hints and code actions read.

Built where the buffer was analysed (the checker's process) and sent to the server whole: the
syntax tree the features need is read there, and only what they take from it travels.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from shapecheck.codes import Code
from shapecheck.config import Config
from shapecheck.lsp.assignments import (
    Assignment,
    assignments,
    import_line,
    parse,
    top_level_names,
    value_types,
)
from shapecheck.lsp.buffers import Buffer
from shapecheck.results import FileResult, TypedSpan


@dataclass(frozen=True, slots=True)
class Syntax:
    """What the editor features read of a buffer's syntax tree."""

    assignments: tuple[tuple[Assignment, TypedSpan | None], ...]
    """Every unannotated `name = value`, with its value's inferred type and placement (None:
    not an array, or unknown)."""
    bound: frozenset[str]  # the names its top level binds
    import_line: int  # where a new import goes


@dataclass(frozen=True, slots=True)
class Analysis:
    """The engine's result for one buffer version, with its types and syntax."""

    buffer: Buffer
    result: FileResult
    config: Config
    syntax: Syntax | None = None  # None: not read (no types to show), or CPython refused it
    parses: bool = False
    """Whether this analysis saw the whole buffer (hover falls back to the last one that did).

    Not when CPython's parser refused the text (SC004, for the target version; no tree where
    SC004 is ignored and there were types to read), nor after an internal error."""

    @classmethod
    def of(cls, buffer: Buffer, result: FileResult, config: Config, tree: ast.Module | None = None) -> Analysis:
        """The analysis with its syntax read: only where the engine inferred types (the features
        show nothing else), so a buffer the engine did not parse (past a bound) is not parsed
        here either. `tree`: CPython's tree of the buffer, where the analysis has one to spare."""
        refused = result.error is not None or any(d.code == Code.SYNTAX_ERROR for d in result.diagnostics)
        if refused or not result.types:
            return cls(buffer, result, config, None, not refused)
        if tree is None:
            tree = parse(buffer.text)
        if tree is None:
            return cls(buffer, result, config, None, False)
        found = assignments(tree, buffer.text)
        typed = tuple(zip(found, value_types(found, result.types), strict=True))
        return cls(buffer, result, config, Syntax(typed, frozenset(top_level_names(tree)), import_line(tree)), True)

    @property
    def assignments(self) -> tuple[tuple[Assignment, TypedSpan | None], ...]:
        return self.syntax.assignments if self.syntax is not None else ()
