"""The engines of a workspace: one per configuration (the pyproject.toml a file finds).

Run in the checker's process (checker.py), one analysis at a time, so the engines and their
module summaries are never shared between threads.
"""

from __future__ import annotations

import logging
import traceback
from pathlib import Path

from shapecheck.config import Config, ConfigError, config_for, find_pyproject
from shapecheck.engine import Engine
from shapecheck.files import excluded
from shapecheck.lsp.analysis import Analysis
from shapecheck.lsp.buffers import Buffer, BufferSource
from shapecheck.lsp.reuse import Outcome, Reuse
from shapecheck.results import FileResult

log = logging.getLogger(__name__)


class Projects:
    def __init__(self) -> None:
        # pyproject.toml (None: none found) -> (its modification time, its engine)
        self._engines: dict[Path | None, tuple[tuple[int, int], Engine]] = {}
        self.config_errors: dict[Path, str] = {}
        self.reuse = Reuse()
        self._last: dict[str, Analysis] = {}  # by path: the syntax a text with the same places reuses

    def engine(self, path: str) -> Engine:
        """The engine for a file at `path`, re-read when its pyproject.toml changed."""
        folder = Path(path).parent
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
        pyproject = find_pyproject(folder)
        stamp = _stamp(pyproject)
        cached = self._engines.get(pyproject)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            config = config_for(path)
            if pyproject is not None:
                self.config_errors.pop(pyproject, None)
        except ConfigError as error:
            # A broken setting must not cost the user every diagnostic: check with the defaults
            # and say why (the server shows config_errors).
            log.warning("%s", error)
            if pyproject is not None:
                self.config_errors[pyproject] = str(error)
            config = Config(root=pyproject.parent if pyproject else folder.resolve())
        engine = Engine(config)
        self._engines[pyproject] = (stamp, engine)
        return engine

    def forget(self) -> None:
        """Drop every engine: each pyproject.toml is read again when a file under it is next checked."""
        self._engines.clear()

    def analyze(self, buffer: Buffer, buffers: list[Buffer]) -> Analysis:
        """The analysis of `buffer`, with its types, the other open buffers as the project's
        modules.

        Never raises: an internal error is the result's error (shown as SC000).
        """
        outcome, config = self._run(buffer, buffers)
        last = self._last.get(buffer.path)
        try:
            if outcome.same_places and last is not None and last.syntax is not None and last.config is config:
                analysis = Analysis(buffer, outcome.result, config, last.syntax, True)
            else:
                analysis = Analysis.of(buffer, outcome.result, config, outcome.tree)
        except Exception:
            log.exception("reading the syntax of %s failed", buffer.path)
            analysis = Analysis(buffer, outcome.result, config)
        open_paths = {b.path for b in buffers} | {buffer.path}
        self._last = {path: last for path, last in self._last.items() if path in open_paths}
        self._last[buffer.path] = analysis
        self.reuse.keep(open_paths)
        return analysis

    def _run(self, buffer: Buffer, buffers: list[Buffer]) -> tuple[Outcome, Config]:
        config = Config()
        try:
            engine = self.engine(buffer.path)
            config = engine.config
            if excluded(buffer.path, config):
                return Outcome(FileResult(buffer.path)), config
            source = BufferSource(buffers, buffer.path, config.root)
            engine.use_modules(source)
            return self.reuse.analyze(engine, source, buffer.path, buffer.text), config
        except Exception:
            self.reuse.forget(buffer.path)
            log.exception("analysis of %s failed", buffer.path)
            return Outcome(FileResult(buffer.path, (), (), "internal error:\n" + traceback.format_exc())), config


def _stamp(path: Path | None) -> tuple[int, int]:
    """When and how a pyproject.toml last changed: its settings are re-read when this does."""
    try:
        stat = path.stat() if path is not None else None
    except OSError:
        return (-1, -1)
    return (stat.st_mtime_ns, stat.st_size) if stat is not None else (0, 0)
