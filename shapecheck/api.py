"""The one core API every front end calls: check a source text or a set of paths.

The CLI, pre-commit, the language server, the mypy plugin and the tests all go through
`analyze_source`, so nothing is computed twice for two front ends.
"""

from __future__ import annotations

import gc
import os
import traceback
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from shapecheck.analyzer.modules import ModuleLoader
from shapecheck.bounds import RECURSION_LIMIT, TIME_LIMIT_S, AnalysisTimeout, run_bounded
from shapecheck.codes import Code
from shapecheck.config import Config
from shapecheck.diagnostic import NOT_CHECKED, Diagnostic, Note, Span
from shapecheck.files import read_regular
from shapecheck.parsing import MAX_DEPTH, SourceDecodeError, cpython_syntax, decode, parse_module
from shapecheck.pool import run_pool
from shapecheck.project import ModuleSource, ProjectIndex, module_names
from shapecheck.rules import severity_of
from shapecheck.suppression import is_suppressed, suppressions
from shapecheck.types import ArrayType

# Text that must appear in a file for the analyzer to have anything to say about it beyond
# syntax: files that never mention an array API or an annotation name are only parsed.
_MARKERS = ("jax", "numpy", "shapecheck", "jaxtyping")


@dataclass(frozen=True, slots=True)
class TypedSpan:
    """The inferred type of one array-valued expression (for hover and inlay hints)."""

    span: Span
    type: ArrayType


@dataclass(frozen=True, slots=True)
class FileResult:
    """Everything the analyzer found in one file; picklable and self-contained, so cacheable."""

    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    types: tuple[TypedSpan, ...] = ()
    error: str | None = None  # an internal error: the file could not be checked
    lines: int = 0


@dataclass(slots=True)
class Report:
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


def check_source(path: str, text: str, config: Config | None = None) -> list[Diagnostic]:
    """The diagnostics for one file's text (select/ignore and suppression comments applied)."""
    result = analyze_source(path, text, config)
    if result.error is not None:
        raise RuntimeError(result.error)
    return list(result.diagnostics)


def analyze_source(path: str, text: str, config: Config | None = None, *, keep_types: bool = False,
                   modules: ModuleSource | None = None, loader: ModuleLoader | None = None,
                   time_limit: float = TIME_LIMIT_S) -> FileResult:
    """Analyse one file. Never raises: an internal error is returned in `FileResult.error`.

    `modules` finds the project's other modules (calls and specs across files); `loader`
    shares loaded modules between the files of one batch. Parsing and analysis run within the
    bounds of `shapecheck.bounds`; a file that reaches one gets SC005 beside what was found.
    """
    config = config or Config()
    lines = text.count("\n") + 1
    try:
        return run_bounded(lambda: _analyze(path, text, config, keep_types, modules, loader, lines,
                                            time_limit), time_limit)
    except AnalysisTimeout:
        limit = _limit(path, f"analysis stopped after {time_limit:g} s, the time limit per file, "
                             "and did not finish; the file is unchecked")
        return FileResult(path, _filter([limit], text, config), (), None, lines)
    except RecursionError:
        limit = _limit(path, f"the file nests deeper than the {RECURSION_LIMIT:,} Python frames "
                             "the checker may use; the file is unchecked")
        return FileResult(path, _filter([limit], text, config), (), None, lines)
    except Exception:
        return FileResult(path, (), (), "internal error:\n" + traceback.format_exc(), lines)


def _analyze(path: str, text: str, config: Config, keep_types: bool, modules: ModuleSource | None,
             loader: ModuleLoader | None, lines: int, time_limit: float) -> FileResult:
    with warnings.catch_warnings():
        # CPython's parser warns about the checked code ('\d' in a plain string): that is
        # Python's message to the code's author, not output of the checker.
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return _analyze_quietly(path, text, config, keep_types, modules, loader, lines, time_limit)


def _analyze_quietly(path: str, text: str, config: Config, keep_types: bool,
                     modules: ModuleSource | None, loader: ModuleLoader | None, lines: int,
                     time_limit: float) -> FileResult:
    tree = cpython_syntax(path, text, config.target_version)
    if isinstance(tree, Diagnostic):
        return FileResult(path, _filter([tree], text, config), (), None, lines)
    if not keep_types and not _relevant(text, config):
        return FileResult(path, (), (), None, lines)
    try:
        parsed = parse_module(text, tree)
    except (RecursionError, AnalysisTimeout):
        limit = _limit(path, "the file nests too deeply for libcst's parser; the file is unchecked")
        return FileResult(path, _filter([limit], text, config), (), None, lines)
    diagnostics, types = _interpret(path, parsed.module, config, keep_types, modules, loader, time_limit)
    diagnostics.extend(
        _limit(path, f"expression nests more than {MAX_DEPTH:,} levels deep; from here on it is "
                     "not analysed (its value is unknown)", span)
        for span in parsed.elided
    )
    return FileResult(path, _filter(diagnostics, text, config), types, None, lines)


_FILE_START = Span(1, 0, 1, 1)


def _limit(path: str, message: str, span: Span = _FILE_START) -> Diagnostic:
    return Diagnostic(path, span, Code.ANALYSIS_LIMIT, message)


def _relevant(text: str, config: Config) -> bool:
    if any(marker in text for marker in _MARKERS):
        return True
    return any(f"{name}[" in text for name in config.annotation_names)


def _interpret(path: str, module: cst.Module, config: Config, keep_types: bool,
               modules: ModuleSource | None, loader: ModuleLoader | None, time_limit: float,
               ) -> tuple[list[Diagnostic], tuple[TypedSpan, ...]]:
    from shapecheck.analyzer.interpreter import Interpreter
    from shapecheck.analyzer.library import handlers
    from shapecheck.analyzer.report import Reporter

    functions, methods = handlers()
    reporter = Reporter()
    types: dict[int, tuple[cst.CSTNode, ArrayType]] | None = {} if keep_types else None
    if loader is None and modules is not None:
        loader = ModuleLoader(modules, functions, methods, config.annotation_names)
    names = module_names(Path(path))
    interpreter = Interpreter(module, names[0] if names else Path(path).stem, reporter, functions, methods,
                              config.annotation_names, types, loader)
    stopped: Diagnostic | None = None
    try:
        interpreter.run()
    except RecursionError:
        stopped = _limit(path, f"analysis stopped: the code nests deeper than the {RECURSION_LIMIT:,} "
                               "Python frames the analyser may use; what was found before is "
                               "reported, the rest of the file is unchecked")
    except AnalysisTimeout:
        stopped = _limit(path, f"analysis stopped after {time_limit:g} s, the time limit per file; "
                               "what was found before is reported, the rest of the file is unchecked")
    if not reporter.findings and not types:
        return ([stopped] if stopped else []), ()
    # Positions cost a full pass over the tree: computed only for files with something to show.
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)

    def span(node: cst.CSTNode) -> Span:
        found = positions.get(node)
        if found is None:
            return Span(1, 0, 1, 0)
        return Span(found.start.line, found.start.column, found.end.line, found.end.column)

    diagnostics = [
        Diagnostic(path, span(f.node), f.code, f.message,
                   notes=tuple(Note(message, path, span(node)) for message, node in f.notes))
        for f in list(reporter.findings)
    ]
    if stopped is not None:
        diagnostics.append(stopped)
    typed = tuple(TypedSpan(span(node), value) for node, value in (types or {}).values() if node in positions)
    return diagnostics, typed


def _filter(diagnostics: Iterable[Diagnostic], text: str, config: Config) -> tuple[Diagnostic, ...]:
    table = suppressions(text)
    # Every diagnostic of a checked file passes here, so its rule's severity is applied here
    # once (parsing.py, which builds SC004, cannot import the rules: the SC005 rule imports it).
    kept = [
        replace(d, severity=severity_of(d.code)) for d in diagnostics
        if config.enabled(d.code)
        and not is_suppressed(table, d.span.line, d.code)
        and not is_suppressed(table, d.span.end_line, d.code)
    ]
    return tuple(sorted(kept, key=Diagnostic.sort_key))


def _not_checked(path: str, error: str) -> Diagnostic:
    # The first and last lines of a traceback say what failed; the whole of it goes to stderr.
    lines = error.strip().splitlines()
    summary = lines[0] if len(lines) < 2 else f"{lines[0].rstrip(':')}: {lines[-1]}"
    return Diagnostic(path, Span(1, 0, 1, 1), NOT_CHECKED, f"file not checked: {summary}")


def check_file(path: str | Path, config: Config | None = None, modules: ModuleSource | None = None,
               loader: ModuleLoader | None = None) -> FileResult:
    """Read and analyse one file; an unreadable or undecodable file is an error for that file."""
    try:
        data = read_regular(path)
        text = decode(data)
    except OSError as error:
        return FileResult(str(path), (), (), f"cannot read file: {error.strerror or error}")
    except SourceDecodeError as error:
        return FileResult(str(path), (), (), f"cannot decode file: {error}")
    return analyze_source(str(path), text, config, modules=modules, loader=loader)


def tune_gc() -> None:
    """libcst allocates millions of small acyclic objects; collecting as often as CPython's
    default (every 700 allocations) costs a third of the parse time for nothing."""
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


def _check_batch(batch: Sequence[str], config: Config, index: ProjectIndex) -> list[FileResult]:
    from shapecheck.analyzer.library import handlers

    functions, methods = handlers()
    loader = ModuleLoader(index, functions, methods, config.annotation_names)
    return [check_file(path, config, index, loader) for path in batch]


class _Batch:
    """`_check_batch` with the run's settings bound; picklable for worker processes."""

    def __init__(self, config: Config, index: ProjectIndex) -> None:
        self.config = config
        self.index = index

    def __call__(self, batch: list[str]) -> list[FileResult]:
        crash = os.environ.get(_CRASH_MARKER_VARIABLE)
        if crash and any(crash in Path(path).name for path in batch):
            os.abort()  # fault injection for the tests of a dying worker
        return _check_batch(batch, self.config, self.index)


_CRASH_MARKER_VARIABLE = "SHAPECHECK_TEST_KILL_WORKER_ON"


def _worker_died(path: str) -> FileResult:
    return FileResult(path, (), (), "the worker process checking this file died (a crash in "
                                    "native code, or killed for memory); the other files were checked")


def check_files(paths: Sequence[str], config: Config | None = None, jobs: int | None = None) -> Report:
    """Check many files, in parallel worker processes when there are enough of them."""
    config = config or Config()
    jobs = jobs or config.jobs or os.cpu_count() or 1
    index = ProjectIndex.of(paths, [config.root])
    report = Report()
    if jobs <= 1 or len(paths) < 8:
        report.results = _check_batch(paths, config, index)
        return report
    batches = list(_batches(paths, jobs * 8))
    report.results = run_pool(batches, _Batch(config, index), jobs, tune_gc, _worker_died)
    report.results.sort(key=lambda result: result.path)
    return report


def _batches(paths: Sequence[str], count: int) -> Iterator[list[str]]:
    # Interleaved so every batch gets a similar mix of large and small files.
    for start in range(count):
        batch = list(paths[start::count])
        if batch:
            yield batch


def check_paths(paths: Sequence[str], config: Config | None = None) -> list[Diagnostic]:
    """Discover Python files under `paths` and return all their diagnostics (runner's entry point)."""
    from shapecheck.files import discover

    config = config or Config()
    report = check_files([str(p) for p in discover(paths, config)], config)
    for failed in report.errors:
        raise RuntimeError(f"{failed.path}: {failed.error}")
    return report.diagnostics
