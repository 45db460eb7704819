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
    """The engine's result for one buffer version, and the buffer's syntax read on demand."""

    buffer: Buffer
    result: FileResult
    config: Config
    _tree: ast.Module | None = field(default=None, init=False)
    _assignments: list[tuple[Assignment, ArrayType | None]] | None = field(default=None, init=False)

    @property
    def parses(self) -> bool:
        return self.result.error is None and not any(
            d.code == Code.SYNTAX_ERROR for d in self.result.diagnostics)

    @property
    def tree(self) -> ast.Module | None:
        if self._tree is None and self.parses:
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
