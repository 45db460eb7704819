"""What the engine returns: one file's result, and the report of a run over many files.

Plain frozen data, picklable (worker processes send results back) and self-contained, so a
cache can store a result and decide from its `dependencies` when to drop it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shapecheck.diagnostic import NOT_CHECKED, Diagnostic, Span

if TYPE_CHECKING:
    # Only named: a run answered from the cache never builds a type.
    from shapecheck.types import ArrayType


@dataclass(frozen=True, slots=True)
class Placement:
    """How a value inside a map lies on the device mesh (for hover)."""

    resources: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Each named axis of the value that xmap's `axis_resources` splits, with its mesh axes."""
    varying: tuple[str, ...] = ()
    """In a shard_map body, the mesh axes the value varies over (differs between devices)."""


@dataclass(frozen=True, slots=True, eq=False)
class TypedSpan:
    """The inferred type of one array-valued expression (for hover and inlay hints)."""

    span: Span
    type: ArrayType
    placement: Placement | None = None  # inside a map: how it lies on the mesh, where known

    # Equal where hover shows the same: the type's sharding too (`ArrayType.identical`). The
    # language server keeps the last analysis's span where the new one is equal.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TypedSpan):
            return NotImplemented
        return self.span == other.span and self.type.identical(other.type) and self.placement == other.placement

    def __hash__(self) -> int:
        return hash((self.span, self.type, self.placement))


@dataclass(frozen=True, slots=True, order=True)
class Dependency:
    """A project module a result was computed from: its name, file and text's content hash."""

    module: str
    path: str
    hash: str


@dataclass(frozen=True, slots=True)
class FileResult:
    """Everything the analyzer found in one file; picklable and self-contained, so cacheable.

    `dependencies` are the other modules of the project the analysis read (what the module
    loader found for it, directly or through the modules those import), sorted by name, and
    `missing` the modules it looked for and did not find: the result stays valid while the
    file's own text (`text_hash`) and theirs are unchanged and none of the missing appears.
    """

    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    types: tuple[TypedSpan, ...] = ()
    error: str | None = None  # an internal error: the file could not be checked
    lines: int = 0
    dependencies: tuple[Dependency, ...] = ()
    missing: tuple[str, ...] = ()
    text_hash: str = ""  # the content hash of the text analysed ("": not known)


@dataclass(slots=True)
class Report:
    """The results of one run over many files."""

    results: list[FileResult] = field(default_factory=list)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every diagnostic, with each file that could not be checked as one NOT_CHECKED."""
        found = [d for r in self.results for d in r.diagnostics]
        found.extend(_not_checked(r.path, r.error) for r in self.errors if r.error is not None)
        return sorted(found, key=Diagnostic.sort_key)

    @property
    def errors(self) -> list[FileResult]:
        return [r for r in self.results if r.error is not None]

    @property
    def lines(self) -> int:
        return sum(r.lines for r in self.results)


def _not_checked(path: str, error: str) -> Diagnostic:
    # The first and last lines of a traceback say what failed; the whole of it goes to stderr.
    lines = error.strip().splitlines()
    summary = lines[0] if len(lines) < 2 else f"{lines[0].rstrip(':')}: {lines[-1]}"
    return Diagnostic(path, Span(1, 0, 1, 1), NOT_CHECKED, f"file not checked: {summary}")
