"""Putting the engine's diagnostics for one file into mypy's error list, exactly once.

mypy gives plugins no per-file hook, so the plugin reports a whole file from the first of
its hooks that runs while mypy is working on that file (see the package docstring for which
hooks those are). At that moment mypy's `Errors` object is reachable from the hook's api and
its current file is the one being processed; a diagnostic added there is filtered by the
file's `# type: ignore[...]` comments, flushed with the file's own errors, and stored in the
incremental cache with them, so a cached, unchanged module replays it on the next run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mypy.errorcodes import NAME_DEFINED
from mypy.errors import ErrorInfo, Errors
from mypy.nodes import MypyFile
from mypy.types import UnboundType

from shapecheck.config import Config
from shapecheck.diagnostic import Diagnostic
from shapecheck.engine import Engine, FileResult
from shapecheck.plugin.codes import INTERNAL_ERROR, error_code
from shapecheck.plugin.freshness import (
    depend_on_imports,
    has_import_dependencies,
    is_project_file,
    source_hash,
    stamp,
)
from shapecheck.plugin.modules import GraphPaths, MypyModules
from shapecheck.plugin.prefetch import Prefetch, matches
from shapecheck.project import content_hash


@dataclass(slots=True)
class _Reported:
    """What was reported for one file, and against which state of the build."""

    generation: int
    table: dict[str, list[ErrorInfo]]  # mypy's error table at the time (a reset replaces it)
    infos: list[ErrorInfo]  # the errors and notes added (those not silenced by an ignore)
    result: FileResult
    inputs: _Inputs  # what the result was computed from

    def fresh(self, errors: Errors, generation: int) -> bool:
        """Whether the file's diagnostics are still in mypy's table and still right.

        dmypy resets the table for each update and clears the errors of each target it
        re-checks; a changed project file (a new generation) may change any file's result.
        """
        if generation != self.generation or errors.error_info_map is not self.table:
            return False
        if not self.infos:
            return True  # the usual case; asked on every hook of the file
        kept = {id(info) for info in errors.error_info_map.get(self.result.path, [])}
        return all(id(info) in kept for info in self.infos)


@dataclass(frozen=True, slots=True)
class _Inputs:
    """What a file's result depends on besides the configuration: its own text, the modules
    mypy's graph holds (an import that found nothing may find a module added since), and the
    texts of the modules the analysis read (`FileResult.dependencies`)."""

    text_hash: str
    graph: frozenset[str]


class FileReporter:
    """Analyses each file mypy processes, and reports its diagnostics through mypy: once per
    build, and again in a long-lived dmypy whenever mypy dropped them or a project file changed
    (analysing it again only when its text or a module its result read changed)."""

    def __init__(self, config: Config) -> None:
        self.engine = Engine(config)
        self.reported: dict[str, _Reported] = {}
        self.graph: dict[str, MypyFile] = {}
        self.modules: MypyModules | None = None
        self.generation = 0  # bumped whenever mypy parses a project file (again)
        self.loaded_generation = -1
        self.graph_names: frozenset[str] = frozenset()
        self.indexed = (-1, 0)
        self.trees: dict[str, MypyFile] = {}  # path -> project module
        self.project: set[str] = set()
        self.unlinked: set[str] = set()  # project files that import no project module
        self.parsed: list[str] = []  # project files parsed since the last prefetch started
        self.prefetch: Prefetch | None = None

    def use_modules(self, modules: dict[str, MypyFile]) -> None:
        """mypy's module graph for this build (dmypy keeps it, and the plugin, between runs)."""
        self.graph = modules
        self.loaded_generation = -1

    def note_source(self, file: MypyFile) -> None:
        """Called as mypy parses each module: stamp project modules with their text's hash.

        mypy parses a module once per build, and dmypy again only when its file changed, so
        each parse starts a new generation: results computed before may be out of date.
        """
        if not is_project_file(file):
            return
        digest = source_hash(file.path)
        if digest is not None:
            stamp(file, digest)
        self.generation += 1
        self.parsed.append(file.path)

    def _start_prefetch(self) -> None:
        """Have the files just parsed analysed on another core (`prefetch`).

        Called by the first hook after parsing: mypy has loaded the module graph by then. It
        checks each module after the modules it imports, roughly the reverse of the order it
        parsed them in, which is the order the worker gets them.
        """
        paths = list(dict.fromkeys(reversed(self.parsed)))
        self.parsed = []
        self.prefetch = Prefetch.start(self.engine.config, GraphPaths(self.graph), paths)

    def _load(self) -> None:
        # Imported modules are read once per generation of the project's texts; the engine
        # re-interprets only those whose text (or whose imports' text) hashes differently.
        if self.loaded_generation != self.generation:
            self.loaded_generation = self.generation
            self.modules = MypyModules(self.graph)
            self.engine.use_modules(self.modules)
            self.graph_names = frozenset(self.graph)

    def report_current(self, errors: Errors) -> None:
        """Report the file mypy is processing now, unless its diagnostics are there already.

        Skipped (and left for a later hook) while an error watcher is active: mypy then is
        only trying out an inference and discards whatever is reported.
        """
        if self.parsed:
            self._start_prefetch()
        path = errors.file
        # Most hooks fire in modules whose errors mypy hides (site-packages, ignore_errors) or in
        # stubs: the set lookups come first, the watchers (a generator) only for checked files.
        if path in errors.ignored_files or path in errors.flushed_files or not path.endswith(".py"):
            return
        if any(True for _ in errors.get_watchers()):
            return
        self._depend(path)
        before = self.reported.get(path)
        if before is not None and before.fresh(errors, self.generation):
            return
        self._load()
        if before is not None and before.generation == self.generation:
            result, inputs = before.result, before.inputs
        else:
            text = self.modules.read(path) if self.modules is not None else _read(path)
            if text is None:
                return
            inputs = _Inputs(content_hash(text), self.graph_names)
            if before is not None and self._unchanged(before, inputs):
                result = before.result  # a project file changed, but none this result read
            else:
                result = self._analyze(path, text)
        table = errors.error_info_map
        if before is not None and path in table:
            # Drop what is left of the previous report before reporting again.
            table[path] = [info for info in table[path]
                           if not any(info is old for old in before.infos)]
        count = len(table.get(path, []))
        for diagnostic in result.diagnostics:
            _report(errors, diagnostic)
        if result.error is not None:
            errors.report(1, 0, f"shapecheck could not analyse this file: {result.error.splitlines()[-1]}",
                          INTERNAL_ERROR)
        self.reported[path] = _Reported(self.generation, table, table.get(path, [])[count:], result, inputs)

    def _analyze(self, path: str, text: str) -> FileResult:
        """The worker's result where it has one that holds now, else an analysis here."""
        if self.prefetch is not None and self.modules is not None:
            result = self.prefetch.take(path)
            if result is not None and matches(result, text, self.modules):
                return result
        return self.engine.analyze(path, text)

    def _unchanged(self, before: _Reported, inputs: _Inputs) -> bool:
        """Whether a result computed in an earlier generation is still the file's result."""
        if before.inputs != inputs or self.modules is None:
            return False
        for dependency in before.result.dependencies:
            found = self.modules.find(dependency.module)
            if found is None or found[0] != dependency.path or content_hash(found[1]) != dependency.hash:
                return False
        return True

    def _depend(self, path: str) -> None:
        """Keep the file's fine-grained dependencies on the project modules it imports.

        dmypy drops a module's plugin dependencies whenever it re-checks its top level, so this
        runs on every hook, not only when the file is reported.
        """
        if self.indexed != (self.generation, len(self.graph)):
            self.indexed = (self.generation, len(self.graph))
            self.trees = {tree.path: tree for tree in self.graph.values() if is_project_file(tree)}
            self.project = {tree.fullname for tree in self.trees.values()}
            self.unlinked = set()
        tree = self.trees.get(path)
        if tree is None or path in self.unlinked:
            return
        # A file that imports no project module has nothing to depend on while the project's
        # modules are the same: its imports are read once, not on each of its hooks.
        if not has_import_dependencies(tree) and not depend_on_imports(tree, self.project):
            self.unlinked.add(path)


def _report(errors: Errors, diagnostic: Diagnostic) -> None:
    span = diagnostic.span
    code = error_code(diagnostic.code)
    # A `# type: ignore[code]` on any line of the flagged expression silences the diagnostic and
    # its notes together, as `# shapecheck: ignore` does on its first or last line.
    origin = sorted({span.line, span.end_line})
    errors.report(span.line, span.column, diagnostic.message, code, origin_span=origin,
                  end_line=span.end_line, end_column=span.end_column)
    for note in diagnostic.notes:
        # mypy sorts messages by position: a note placed at its own spot could print before
        # its error, or land in another file's (possibly flushed) list. It is shown right after
        # the error instead, naming the place it points at.
        where = f"line {note.span.line}, column {note.span.column + 1}"
        if note.path != diagnostic.path:
            where = f"{note.path}, {where}"
        errors.report(span.line, span.column, f"{note.message} ({where})", code, severity="note",
                      origin_span=origin, end_line=span.end_line, end_column=span.end_column)

def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def withdraw_name_errors(errors: Errors, dims: list[UnboundType]) -> None:
    """Remove mypy's `Name "n" is not defined` for quoted dims of the annotation language."""
    found = errors.error_info_map.get(errors.file)
    if not found or not dims:
        return
    spurious = {(dim.line, dim.column, f'Name "{dim.name}" is not defined') for dim in dims}
    found[:] = [info for info in found if info.code != NAME_DEFINED
                or (info.line, info.column, info.message) not in spurious]
