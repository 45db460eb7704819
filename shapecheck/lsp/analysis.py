"""One analysed version of a buffer: what hover, inlay hints and code actions read."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from shapecheck.codes import Code
from shapecheck.config import Config
from shapecheck.lsp.assignments import Assignment, assignments, parse, value_types
from shapecheck.lsp.buffers import Buffer
from shapecheck.results import FileResult
from shapecheck.types import ArrayType


@dataclass(slots=True)
class Analysis:
    """The engine's result for one buffer version, with its types, and the buffer's syntax
    read on demand."""

    buffer: Buffer
    result: FileResult
    config: Config
    _tree: ast.Module | None = field(default=None, init=False)
    _parsed: bool = field(default=False, init=False)
    _assignments: list[tuple[Assignment, ArrayType | None]] | None = field(default=None, init=False)

    @property
    def parses(self) -> bool:
        """Whether this analysis saw the whole buffer (hover falls back to the last one that did).

        Not when CPython's parser refused the text (SC004, for the target version; no tree
        where SC004 is ignored), nor after an internal error.
        """
        return (self.result.error is None and self.tree is not None
                and not any(d.code == Code.SYNTAX_ERROR for d in self.result.diagnostics))

    @property
    def tree(self) -> ast.Module | None:
        if not self._parsed:
            self._parsed = True
            self._tree = parse(self.buffer.text)
        return self._tree

    @property
    def assignments(self) -> list[tuple[Assignment, ArrayType | None]]:
        """Every unannotated `name = value`, with the inferred type of its value (None: not an
        array, or unknown)."""
        if self._assignments is None:
            tree = self.tree
            found = assignments(tree, self.buffer.text) if tree is not None else []
            self._assignments = list(zip(found, value_types(found, self.result.types), strict=True))
        return self._assignments
