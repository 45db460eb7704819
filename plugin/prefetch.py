"""Analysing the files mypy will check on another core, while mypy checks what they import.

mypy checks a module after everything it imports, so it reaches a project's own files, and the
plugin's first request for their diagnostics, only after checking their dependencies (jax alone
takes seconds). The analyses need nothing from that work: only the files' texts and the module
graph, which are known once mypy has loaded the graph. So at the first hook of a build a worker
process (`worker`) is started that analyses every project file mypy parsed, in about the order
mypy will ask for them, and the reporter takes its results as they arrive.

A worker's result stands in for an analysis here only where it is exactly what that analysis
would give (`matches`); a file the worker has not reached yet, or a worker that failed, costs
only an analysis here, as without it. Nothing is started without a core to spare or with too
little text for the worker's start-up (a fresh interpreter importing the analyzer) to pay.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Final

from shapecheck.bounds import TIME_LIMIT_S
from shapecheck.config import Config
from shapecheck.plugin.modules import ModuleFiles
from shapecheck.plugin.worker import Request, Started
from shapecheck.project import content_hash
from shapecheck.results import FileResult

MIN_BYTES: Final = 200_000
"""Text below which no worker starts: about 0.1 s of analysis."""

WAIT_S: Final = TIME_LIMIT_S + 10.0
"""How long a file the worker is analysing is waited for: its time limit, and time to stop."""


class Prefetch:
    """A worker analysing a list of files, and the results it has sent back so far."""

    def __init__(self, process: subprocess.Popen[bytes], request: Request) -> None:
        self.process = process
        self.results: dict[str, FileResult] = {}
        self.current: str | None = None  # the file the worker is analysing now
        self.finished = False
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._exchange, args=(request,), daemon=True,
                                       name="shapecheck-prefetch")
        self.thread.start()

    @classmethod
    def start(cls, config: Config, modules: Mapping[str, str], paths: Sequence[str]) -> Prefetch | None:
        """A worker for `paths`, or None where one would not pay (or cannot start)."""
        if _spare_cores() < 1 or not sys.executable or getattr(sys, "frozen", False):
            return None
        if sum(_size(path) for path in paths) < MIN_BYTES:
            return None
        try:
            process = subprocess.Popen(_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL)
        except OSError:
            return None
        return cls(process, Request(config, dict(modules), tuple(paths)))

    def take(self, path: str) -> FileResult | None:
        """The worker's result for `path`; waited for only while the worker is on that file,
        which takes no longer than analysing it here."""
        deadline = time.monotonic() + WAIT_S
        with self.changed:
            while self.current == path and path not in self.results and not self.finished:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.changed.wait(left)
            return self.results.pop(path, None)

    def _exchange(self, request: Request) -> None:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        try:
            with stdin:
                pickle.dump(request, stdin, protocol=pickle.HIGHEST_PROTOCOL)
            with stdout:
                while True:
                    record = pickle.load(stdout)
                    with self.changed:
                        if isinstance(record, Started):
                            self.current = record.path
                        elif isinstance(record, FileResult):
                            self.results[record.path] = record
                            self.current = None
                        self.changed.notify_all()
        except Exception:  # EOFError at the end; any failure of the worker only loses its results
            pass
        finally:
            with self.changed:
                self.finished = True
                self.current = None
                self.changed.notify_all()
            self.process.wait()


def matches(result: FileResult, text: str, modules: ModuleFiles) -> bool:
    """Whether `result` is what analysing `text` against `modules` gives now: the same text,
    each module it read the same file with the same text, each module it missed still missing."""
    if result.text_hash != content_hash(text):
        return False
    for dependency in result.dependencies:
        found = modules.find(dependency.module)
        if found is None or found[0] != dependency.path or content_hash(found[1]) != dependency.hash:
            return False
    return all(modules.find(module) is None for module in result.missing)


def _command() -> list[str]:
    # The checked project's folder is left off the worker's path, so that no module of the
    # project (a `pickle.py`, a `jax.py`) can stand in for one the worker imports; -I keeps the
    # environment from adding it back.
    here = os.getcwd()
    path = [entry for entry in sys.path if entry and os.path.abspath(entry) != here]
    code = f"import sys; sys.path[:] = {path!r}; from shapecheck.plugin.worker import main; main()"
    return [sys.executable, "-I", "-c", code]


def _spare_cores() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores - 1


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
