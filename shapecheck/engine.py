"""The engine: the one object every front end calls (DESIGN.md section 7).

It owns the configuration, the library of API handlers, where the project's other modules
come from (a `ModuleSource`: the files of a run, or mypy's module graph) and the summaries of
the modules it has loaded, keyed by module name and content hash. The CLI and `shapecheck run`
call `check_paths` or `check_files`, the mypy plugin and the tests `analyze`; each turns what it
gets back into its own output and holds no shape rule.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from shapecheck.bounds import TIME_LIMIT_S
from shapecheck.config import Config
from shapecheck.files import FileTooLarge, read_regular
from shapecheck.project import ModuleSource, ProjectIndex, content_hash
from shapecheck.results import Dependency, FileResult, Report, TypedSpan

if TYPE_CHECKING:
    import ast

    from shapecheck.analyzer.modules import ModuleLoader
    from shapecheck.analyzer.summaries import Summaries
    from shapecheck.cache import ResultCache
    from shapecheck.diagnostic import Diagnostic

__all__ = ["Dependency", "Engine", "FileResult", "Report", "TypedSpan", "tune_gc"]

# Below this many files, or this much text, a run is checked in this process: starting
# workers (each imports the analyzer) costs more than they save.
_MIN_FILES_FOR_WORKERS = 8
_MIN_BYTES_FOR_WORKERS = 1_500_000
# What every worker imports, imported once in the process the workers are forked from.
_WORKER_MODULES = ("shapecheck.engine", "shapecheck.analysis", "shapecheck.analyzer.interpreter",
                   "shapecheck.analyzer.library")


class Engine:
    """Analyses files under one configuration, with the project's modules from `modules`."""

    def __init__(self, config: Config | None = None, modules: ModuleSource | None = None, *,
                 time_limit: float = TIME_LIMIT_S, cache: ResultCache | None = None) -> None:
        self.config = config or Config()
        self.time_limit = time_limit
        self.cache = cache
        self._modules = modules
        self._loader: ModuleLoader | None = None

    @property
    def loader(self) -> ModuleLoader:
        # Built on first use: the analyzer is imported only by a run that analyses something;
        # one whose files are all cached never pays for it.
        if self._loader is None:
            from shapecheck.analyzer.library import tables
            from shapecheck.analyzer.modules import ModuleLoader

            functions, methods = tables()
            self._loader = ModuleLoader(self._modules, functions, methods, self.config.annotation_names)
        return self._loader

    @property
    def modules(self) -> ModuleSource | None:
        return self._modules

    def use_modules(self, modules: ModuleSource | None) -> None:
        """Find the project's modules here from now on (mypy's module graph of a new build).

        Summaries are kept: each is reused only while its module's text hashes the same.
        """
        self._modules = modules
        if self._loader is not None:
            self._loader.source = modules
            self._loader.refresh()

    def analyze(self, path: str, text: str, *, keep_types: bool = False, syntax: ast.Module | Diagnostic | None = None,
                unfiltered: list[Diagnostic] | None = None, summaries: Summaries | None = None) -> FileResult:
        """Analyse one file's text, reading the project's other modules as they are now.

        Never raises: an internal error is in `FileResult.error`. `keep_types` keeps the
        inferred type of each array-valued expression (hover, inlay hints); `syntax` and
        `unfiltered` and `summaries` are those of `analyze_text`.
        """
        self.loader.refresh()
        return self._analyze(path, text, keep_types, syntax, unfiltered, summaries)

    def _analyze(self, path: str, text: str, keep_types: bool = False, syntax: ast.Module | Diagnostic | None = None,
                 unfiltered: list[Diagnostic] | None = None, summaries: Summaries | None = None) -> FileResult:
        # Within the current snapshot of module texts: a batch of files shares one.
        from shapecheck.analysis import analyze_text

        loader = self.loader
        loader.reset_reads()
        result = analyze_text(path, text, self.config, loader, keep_types=keep_types,
                              time_limit=self.time_limit, syntax=syntax, unfiltered=unfiltered, summaries=summaries)
        own = os.path.abspath(path)
        dependencies = tuple(d for d in loader.dependencies() if os.path.abspath(d.path) != own)
        return replace(result, dependencies=dependencies, missing=loader.missing(),
                       text_hash=content_hash(text))

    def check_file(self, path: str | Path) -> FileResult:
        """Read and analyse one file; an unreadable or undecodable file is an error for that file."""
        self.loader.refresh()
        return self._check_file(path)

    def _check_file(self, path: str | Path) -> FileResult:
        from shapecheck.parsing import SourceDecodeError, decode  # a warm run never decodes

        try:
            text = decode(read_regular(path, self.config.max_file_size))
        except FileTooLarge as error:  # refused before it is read: its size alone can exhaust memory
            from shapecheck.analysis import too_large

            return too_large(str(path), error.size, self.config)
        except OSError as error:
            return FileResult(str(path), (), (), f"cannot read file: {error.strerror or error}")
        except SourceDecodeError as error:
            return FileResult(str(path), (), (), f"cannot decode file: {error}")
        return self._analyze(str(path), text)

    def check_batch(self, paths: Sequence[str],
                    progress: Callable[[FileResult], None] | None = None) -> list[FileResult]:
        """Check files that do not change meanwhile: the module texts are read once for all."""
        self.loader.refresh()
        results = []
        for path in paths:
            results.append(self._check_file(path))
            if progress is not None:
                progress(results[-1])
        return results

    def check_files(self, paths: Sequence[str], jobs: int | None = None,
                    progress: Callable[[FileResult], None] | None = None) -> Report:
        """Check many files, in parallel worker processes when there are enough of them.

        Without a module source of its own, the engine finds imports among `paths` and, as
        Python would, beside them and under the configured root. `progress` is called with each
        file's result as it arrives here (a worker's files arrive together, with its batch).
        """
        chosen = jobs or self.config.jobs
        if self.cache is None and _workers(paths, chosen):
            # Every file will be checked: the workers' process starts importing the analyzer
            # now, beside the indexing of the project's modules, rather than after it.
            from shapecheck.pool import start_server

            start_server(_preload())
        own = self.modules
        if own is None:
            self.use_modules(ProjectIndex.of(paths, [self.config.root]))
        try:
            return self._check_files(paths, chosen, progress)
        finally:
            if own is None:
                self.use_modules(None)

    def _check_files(self, paths: Sequence[str], chosen: int | None,
                     progress: Callable[[FileResult], None] | None = None) -> Report:
        """`chosen`: the workers asked for (None: as many as there are cores, if they pay)."""
        cached: dict[str, FileResult] = {}
        if self.cache is not None:
            for path in paths:
                hit = self.cache.lookup(path, self.modules)
                if hit is not None:
                    cached[path] = hit
                    if progress is not None:
                        progress(hit)
        todo = [path for path in paths if path not in cached]
        if not todo:
            fresh: list[FileResult] = []
        elif not (jobs := _workers(todo, chosen)):
            fresh = self.check_batch(todo, progress)
        else:
            from shapecheck.pool import run_pool

            fresh = run_pool(_batches(todo, jobs), _Batch(self.config, self.modules, self.time_limit), jobs,
                             tune_gc, _worker_died, progress, _preload())
            fresh.sort(key=lambda result: result.path)
        if self.cache is not None:
            for result in fresh:
                self.cache.store(result)
        if not cached:
            return Report(fresh)
        by_path = {result.path: result for result in fresh} | cached
        return Report([by_path[path] for path in dict.fromkeys(paths)])

    def check_paths(self, paths: Sequence[str | Path], jobs: int | None = None) -> Report:
        """Discover the Python files under `paths` (excludes and .gitignore applied) and check them."""
        from shapecheck.files import discover

        return self.check_files([str(p) for p in discover(paths, self.config)], jobs)


class _Batch:
    """A worker's task: the run's engine in that worker checks one batch; picklable."""

    def __init__(self, config: Config, modules: ModuleSource | None, time_limit: float) -> None:
        self.config = config
        self.modules = modules
        self.time_limit = time_limit
        self.run = os.urandom(16).hex()  # not uuid: importing it costs a start-up

    def __call__(self, batch: list[str]) -> list[FileResult]:
        crash = os.environ.get(_CRASH_MARKER_VARIABLE)
        if crash and any(crash in Path(path).name for path in batch):
            os.abort()  # fault injection for the tests of a dying worker
        return self._engine().check_batch(batch)

    def _engine(self) -> Engine:
        # One engine per worker and run, so the batches a worker checks share module summaries.
        global _worker_engine
        if _worker_engine is None or _worker_engine[0] != self.run:
            _worker_engine = (self.run, Engine(self.config, self.modules, time_limit=self.time_limit))
        return _worker_engine[1]


_worker_engine: tuple[str, Engine] | None = None


_CRASH_MARKER_VARIABLE = "SHAPECHECK_TEST_KILL_WORKER_ON"


def _worker_died(path: str) -> FileResult:
    return FileResult(path, (), (), "the worker process checking this file died (a crash in "
                                    "native code, or killed for memory); the other files were checked")


def _workers(paths: Sequence[str], chosen: int | None) -> int:
    """How many worker processes to check `paths` on; 0: none, check them here."""
    jobs = chosen or os.cpu_count() or 1
    if jobs <= 1 or len(paths) < _MIN_FILES_FOR_WORKERS:
        return 0
    if chosen is None and not _large(paths):
        return 0  # not asked for (--jobs, or `jobs` in the configuration), and would not pay
    from shapecheck.isolation import isolated

    return jobs if isolated() else 0


def _large(paths: Sequence[str]) -> bool:
    size = 0
    for path in paths:
        try:
            size += os.stat(path).st_size
        except OSError:
            continue
        if size >= _MIN_BYTES_FOR_WORKERS:
            return True
    return False


def _preload() -> tuple[str, ...]:
    """Enough files that the workers will want most of the library: imported once, before they
    are forked, rather than in each as their files first call its names."""
    from shapecheck.analyzer.library import MODULES

    return (*_WORKER_MODULES, *(f"shapecheck.analyzer.library.{module}" for module in MODULES))


def _batches(paths: Sequence[str], jobs: int) -> list[list[str]]:
    """`paths` in batches for `jobs` workers, largest files first, each batch a fraction of the
    text left (guided self-scheduling).

    A worker takes the next batch when it is done with one, so the run ends when the last batch
    does: batches that shrink towards the end leave little for one worker to finish alone while
    the others wait (a file's time grows with its size), and large ones at the start keep the
    tasks, each sent with the run's module index, few.
    """
    sizes = {path: _size(path) for path in paths}
    ordered = sorted(paths, key=lambda path: -sizes[path])
    left = sum(sizes.values())
    smallest = left / (jobs * _SMALLEST_SHARE)
    batches: list[list[str]] = []
    batch: list[str] = []
    taken = 0
    for path in ordered:
        batch.append(path)
        taken += sizes[path]
        if taken >= max(left / (jobs * _GUIDED_SHARE), smallest):
            batches.append(batch)
            left -= taken
            batch, taken = [], 0
    if batch:
        batches.append(batch)
    return batches


# Each batch takes 1/(jobs * _GUIDED_SHARE) of the text left, and at least 1/(jobs *
# _SMALLEST_SHARE) of the whole: about 20 batches for 2 workers (jax's 617 files).
_GUIDED_SHARE = 3
_SMALLEST_SHARE = 40


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # checked as any other file: its read reports what is wrong


def tune_gc() -> None:
    """Parsing and interpreting allocate millions of small acyclic objects (tree nodes, values);
    collecting as often as CPython's default (every 700 allocations) costs time for nothing."""
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
