"""Loading the other modules of the project that a checked file imports.

A loaded module is interpreted once, silently, for its top-level bindings (functions, in_axes
constants, meshes); its own diagnostics belong to its own check. Imports stay lazy until a
value is needed, so a file importing half a package does not parse the whole package.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shapecheck.analyzer.qualnames import ARRAY_ROOTS
from shapecheck.analyzer.scope import Scope
from shapecheck.literal import Lit
from shapecheck.project import ModuleSource, Packages, content_hash
from shapecheck.results import Dependency

__all__ = ["ModuleLoader", "content_hash"]

if TYPE_CHECKING:
    from shapecheck.analyzer.calls import Handler
    from shapecheck.analyzer.interpreter import Interpreter


@dataclass(slots=True)
class _Summary:
    """One module's top-level interpretation, valid while its text and what it read are the same."""

    hash: str
    interpreter: Interpreter | None  # None: the module does not parse
    reads: dict[str, str | None]  # module -> content hash (None: not found) read while loading


class ModuleLoader:
    """Interprets imported project modules on demand, and records which ones each analysis read.

    Texts are read once per snapshot (`refresh` starts a new one: the engine does, before each
    file it is asked about, or once per batch of a run); a module's interpretation (its
    summary) is kept across snapshots, keyed by module name and the hash of its text, and
    reused while that text and the texts of the modules read while loading it are unchanged.
    """

    def __init__(self, source: ModuleSource | None, handlers: dict[str, Handler],
                 methods: dict[str, Handler], annotation_names: frozenset[str]) -> None:
        self.source = source
        self.handlers = handlers
        self.methods = methods
        self.annotation_names = annotation_names
        # A library the checker has rules for is never read as the project's own code, even
        # where its source is in view (installed in mypy's environment, vendored in the tree):
        # its source would hide what the rules know (`@beartype` returns the function).
        self.library_roots = frozenset(ARRAY_ROOTS) | {
            name.partition(".")[0] for name in handlers if "." in name and ":" not in name}
        self.summaries: dict[str, _Summary] = {}
        self.refresh()

    def refresh(self) -> None:
        """Start a new snapshot of the project's texts (and a new record of what was read)."""
        self.found: dict[str, tuple[str, str, str] | None] = {}  # module -> (path, text, hash)
        self.loaded: dict[str, Scope | None] = {}
        self.interpreters: dict[str, Interpreter] = {}
        self.reads: dict[str, str | None] = {}  # what the current analysis read
        self._loading: list[dict[str, str | None]] = []  # the reads of each load in progress
        # The packages the snapshot's folders are: a batch's files share most of their folders.
        self.packages = Packages()

    def dependencies(self) -> tuple[Dependency, ...]:
        """The project modules read since the last `refresh` or `reset_reads`, by name."""
        found = [(module, self.found.get(module)) for module in sorted(self.reads)]
        return tuple(Dependency(module, entry[0], entry[2]) for module, entry in found if entry is not None)

    def missing(self) -> tuple[str, ...]:
        """The modules looked for since the last `refresh` or `reset_reads` and not found."""
        return tuple(sorted(module for module, digest in self.reads.items() if digest is None))

    def reset_reads(self) -> None:
        """Start recording what the next analysis reads (texts and summaries stay)."""
        self.reads = {}

    def knows(self, module: str) -> bool:
        """Whether `module` is a project module (library roots such as jax never are)."""
        if self.source is None or module.partition(".")[0] in self.library_roots:
            return False
        return self._find(module) is not None

    def _find(self, module: str) -> tuple[str, str, str] | None:
        if module not in self.found:
            found = self.source.find(module) if self.source is not None else None
            self.found[module] = (found[0], found[1], content_hash(found[1])) if found else None
        entry = self.found[module]
        self._note(module, entry[2] if entry else None)
        return entry

    def watch_reads(self, reads: dict[str, str | None]) -> None:
        """Note in `reads` too every module read from now until `unwatch_reads` (what one
        function analysis read, for its summary kept across runs: `summaries`)."""
        self._loading.append(reads)

    def unwatch_reads(self, reads: dict[str, str | None]) -> None:
        popped = self._loading.pop()
        assert popped is reads

    def note_reads(self, reads: dict[str, str | None]) -> None:
        """Read again what a replayed analysis read (the result's dependencies include them)."""
        for module, digest in reads.items():
            self._note(module, digest)

    def _note(self, module: str, digest: str | None) -> None:
        self.reads[module] = digest
        for reads in self._loading:
            reads[module] = digest

    def _text(self, module: str) -> str | None:
        entry = self._find(module)
        return entry[1] if entry else None

    def mentions_annotations(self, module: str) -> bool:
        text = self._text(module) or ""
        return any(f"{name}[" in text for name in self.annotation_names)

    def load(self, module: str) -> Scope | None:
        entry = self._find(module)
        if module in self.loaded:
            summary = self.summaries.get(module)
            if summary is not None and entry is not None and summary.hash == entry[2]:
                for name, digest in summary.reads.items():
                    self._note(name, digest)
            return self.loaded[module]
        self.loaded[module] = None  # import cycles read as unknown
        if entry is None or self.source is None:
            return None
        summary = self.summaries.get(module)
        if summary is None or not self._valid(summary, entry[2]):
            summary = self._interpret(module, entry[1], entry[2])
            self.summaries[module] = summary
        else:
            for name, digest in summary.reads.items():
                self._note(name, digest)
        if summary.interpreter is None:
            return None
        self.loaded[module] = summary.interpreter.scope
        self.interpreters[module] = summary.interpreter
        return summary.interpreter.scope

    def _valid(self, summary: _Summary, digest: str) -> bool:
        if summary.hash != digest:
            return False
        for name, before in summary.reads.items():
            entry = self._find(name)
            if (entry[2] if entry else None) != before:
                return False
        return True

    def _interpret(self, module: str, text: str, digest: str) -> _Summary:
        reads: dict[str, str | None] = {}
        self._loading.append(reads)
        try:
            interpreter = self._run(module, text)
        finally:
            self._loading.pop()
        reads.pop(module, None)
        return _Summary(digest, interpreter, reads)

    def _run(self, module: str, text: str) -> Interpreter | None:
        # Parsed as the checked files are: CPython decides validity, and what nests past
        # MAX_DEPTH is left out.
        from shapecheck.parsing import cpython_syntax, parse_module

        syntax = cpython_syntax(module, text)
        if not isinstance(syntax, ast.Module):
            return None
        try:
            tree = parse_module(text, syntax).module
        except Exception:
            return None
        from shapecheck.analyzer.interpreter import Interpreter
        from shapecheck.analyzer.report import Reporter

        silent = Reporter()
        silent.muted = 1
        interpreter = Interpreter(tree, module, silent, self.handlers, self.methods, self.annotation_names,
                                  loader=self)
        interpreter.run(analyse_functions=False)
        return interpreter

    def literal(self, module: str, name: str) -> Lit | None:
        """The literal a module-level name of `module` was assigned (an in_axes spec)."""
        if self.load(module) is None:
            return None
        return self.interpreters[module].literal_lookup(name)
