"""Functions over the engine (`shapecheck.engine.Engine`), for scripts and tests.

Each builds an engine for its call; a front end that checks more than once keeps one `Engine`
(its module summaries are reused while the modules' texts are unchanged).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from shapecheck.bounds import TIME_LIMIT_S
from shapecheck.config import Config
from shapecheck.diagnostic import Diagnostic
from shapecheck.engine import Engine, tune_gc
from shapecheck.project import ModuleSource
from shapecheck.results import Dependency, FileResult, Report, TypedSpan

__all__ = ["Dependency", "FileResult", "Report", "TypedSpan", "analyze_source", "check_file", "check_files",
           "check_paths", "check_source", "tune_gc"]


def check_source(path: str, text: str, config: Config | None = None) -> list[Diagnostic]:
    """The diagnostics for one file's text (select/ignore and suppression comments applied)."""
    result = analyze_source(path, text, config)
    if result.error is not None:
        raise RuntimeError(result.error)
    return list(result.diagnostics)


def analyze_source(path: str, text: str, config: Config | None = None, *, keep_types: bool = False,
                   modules: ModuleSource | None = None, time_limit: float = TIME_LIMIT_S) -> FileResult:
    """`Engine(config, modules).analyze(path, text)`: one file; never raises."""
    return Engine(config, modules, time_limit=time_limit).analyze(path, text, keep_types=keep_types)


def check_file(path: str | Path, config: Config | None = None, modules: ModuleSource | None = None) -> FileResult:
    """Read and analyse one file; an unreadable or undecodable file is an error for that file."""
    return Engine(config, modules).check_file(path)


def check_files(paths: Sequence[str], config: Config | None = None, jobs: int | None = None) -> Report:
    """Check many files, in parallel worker processes when there are enough of them."""
    return Engine(config).check_files(paths, jobs)


def check_paths(paths: Sequence[str | Path], config: Config | None = None) -> list[Diagnostic]:
    """Discover Python files under `paths` and return all their diagnostics; raises for a file
    that could not be checked."""
    report = Engine(config).check_paths(paths)
    for failed in report.errors:
        raise RuntimeError(f"{failed.path}: {failed.error}")
    return report.diagnostics
