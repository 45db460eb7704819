"""Putting the engine's diagnostics for one file into mypy's error list, exactly once.

mypy gives plugins no per-file hook, so the plugin reports a whole file from the first of
its hooks that runs while mypy is working on that file (see the package docstring for which
hooks those are). At that moment mypy's `Errors` object is reachable from the hook's api and
its current file is the one being processed; a diagnostic added there is filtered by the
file's `# type: ignore[...]` comments, flushed with the file's own errors, and stored in the
incremental cache with them, so a cached, unchanged module replays it on the next run.
"""

from __future__ import annotations

from pathlib import Path

from mypy.errorcodes import NAME_DEFINED
from mypy.errors import Errors
from mypy.nodes import MypyFile
from mypy.types import UnboundType

from shapecheck.analyzer.library import handlers
from shapecheck.analyzer.modules import ModuleLoader
from shapecheck.api import analyze_source
from shapecheck.config import Config
from shapecheck.diagnostic import Diagnostic
from shapecheck.plugin.codes import INTERNAL_ERROR, error_code
from shapecheck.plugin.modules import MypyModules


class FileReporter:
    """Analyses each file mypy processes once, and reports its diagnostics through mypy."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.done: set[str] = set()
        self.modules: MypyModules | None = None
        self.loader: ModuleLoader | None = None

    def use_modules(self, modules: dict[str, MypyFile]) -> None:
        """mypy's module graph for this build; imported modules are loaded once per build."""
        self.modules = MypyModules(modules)
        functions, methods = handlers()
        self.loader = ModuleLoader(self.modules, functions, methods, self.config.annotation_names)

    def report_current(self, errors: Errors) -> None:
        """Report the file mypy is processing now, unless it was reported already.

        Skipped (and left for a later hook) while an error watcher is active: mypy then is
        only trying out an inference and discards whatever is reported.
        """
        path = errors.file
        if not path or path in self.done or any(True for _ in errors.get_watchers()):
            return
        self.done.add(path)
        if path in errors.ignored_files or not path.endswith(".py"):
            return  # stubs, and modules whose errors mypy hides (site-packages, ignore_errors)
        text = self.modules.read(path) if self.modules is not None else _read(path)
        if text is None:
            return
        result = analyze_source(path, text, self.config, modules=self.modules, loader=self.loader)
        for diagnostic in result.diagnostics:
            _report(errors, diagnostic)
        if result.error is not None:
            errors.report(1, 0, f"shapecheck could not analyse this file: {result.error.splitlines()[-1]}",
                          INTERNAL_ERROR)


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
