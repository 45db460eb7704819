"""The language server's analyses, in a process of their own.

CPython's parser holds the GIL through a whole parse (seconds for a buffer of megabytes), so an
analysis on a thread of the server left every request unanswered meanwhile; in a child process
it takes nothing from the server. The engine stops an analysis at its time limit between two
bytecodes, never inside the parser: past a deadline of its own the checker ends the process,
reports the buffer unchecked (SC005) and starts a fresh process for the next check.

The process imports nothing from the project the editor has open (`shapecheck.isolation`);
under `python -E` without `-P`, where that cannot be promised, the analyses run in the server.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from shapecheck.bounds import TIME_LIMIT_S
from shapecheck.codes import Code
from shapecheck.config import Config
from shapecheck.diagnostic import Diagnostic, Span
from shapecheck.isolation import isolated, safe_path
from shapecheck.lsp.analysis import Analysis
from shapecheck.lsp.buffers import Buffer
from shapecheck.results import FileResult
from shapecheck.rules import severity_of

if TYPE_CHECKING:
    from shapecheck.lsp.projects import Projects

log = logging.getLogger(__name__)
T = TypeVar("T")

DEADLINE_S: Final = 2 * TIME_LIMIT_S
"""Seconds one check may take in all: the engine's time limit, what it cannot interrupt (the
parse), and the editor's reading of the syntax after it."""

_Request = tuple[Buffer, list[Buffer], list[str], int]  # the buffer, those changed, all open, settings
_Answer = tuple["_Sent", dict[Path, str]]


class Closed(Exception):
    """The checker was closed (the server is shutting down): nothing more is analysed."""


class Checker:
    """Projects (the engines and their module summaries) in a child process, one analysis at a
    time: `analyze` is called from one thread, `start` and `close` from any."""

    def __init__(self, deadline: float = DEADLINE_S) -> None:
        self.deadline = deadline
        self.config_errors: dict[Path, str] = {}
        self._lock = threading.Lock()
        self._process: BaseProcess | None = None
        self._connection: Connection | None = None
        self._held: dict[str, Buffer] = {}  # the buffers the process holds, by URI
        self._received: dict[str, Analysis] = {}  # the last analysis of each buffer, by URI, as the process sent it
        self._closed = False
        self._here: Projects | None = None  # the analyses, where no process may be started
        self._settings = 0  # counts reload_settings: the analyses read settings again when it moves
        self._here_settings = 0

    def start(self) -> None:
        """Start the process unless it runs (early: its imports take a moment)."""
        with self._lock:
            if self._closed:
                raise Closed
            if not isolated() or (self._process is not None and self._process.is_alive()):
                return
            context = multiprocessing.get_context("spawn")  # no fork: the server runs threads
            ours, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs, logging.getLogger().level),
                                      name="shapecheck-lsp-checker", daemon=True)
            with safe_path():
                process.start()
            theirs.close()  # the process's end: its exit then reads as the end of the pipe here
            self._process, self._connection, self._held, self._received = process, ours, {}, {}

    def analyze(self, buffer: Buffer, buffers: list[Buffer]) -> Analysis:
        """The analysis of `buffer` with `buffers` open (as Projects.analyze). Never raises but
        Closed: past the deadline the buffer is unchecked, a process that died an internal error."""
        if not isolated():
            return self._analyze_here(buffer, buffers)
        self.start()
        connection = self._connection
        assert connection is not None
        # Only the buffers that changed travel: a large one open beside the edited one is sent once.
        changed = [b for b in buffers if self._held.get(b.uri) is not b]
        request: _Request = (buffer, changed, [b.uri for b in buffers], self._settings)
        try:
            connection.send(request)
            self._held = {b.uri: b for b in buffers}
            if not connection.poll(self.deadline):
                self._end()
                return Analysis(buffer, FileResult(buffer.path, (_stopped(buffer.path, self.deadline),)), Config())
            answer: _Answer = connection.recv()
        except (EOFError, OSError):
            code = self._end()
            if self._closed:
                raise Closed from None
            return Analysis(buffer, FileResult(buffer.path, error=f"internal error: the analysis process ended "
                                                                  f"(exit code {code}); the file is unchecked"),
                            Config())
        sent, self.config_errors = answer
        self._received = {b.uri: self._received[b.uri] for b in buffers if b.uri in self._received}
        analysis = self._received[buffer.uri] = sent.analysis(self._received.get(buffer.uri))
        return analysis

    def reload_settings(self) -> None:
        """Have the next analyses read each pyproject.toml again, though its modification time
        and size are the same (an edit within the file system's timestamp resolution)."""
        self._settings += 1

    def _analyze_here(self, buffer: Buffer, buffers: list[Buffer]) -> Analysis:
        if self._closed:
            raise Closed
        if self._here is None:
            from shapecheck.lsp.projects import Projects

            self._here = Projects()
        if self._here_settings != self._settings:
            self._here.forget()
            self._here_settings = self._settings
        analysis = self._here.analyze(buffer, buffers)
        self.config_errors = dict(self._here.config_errors)
        return analysis

    def close(self) -> None:
        """End the process, an analysis in it too; analyze raises Closed from now on."""
        with self._lock:
            self._closed = True
            process = self._process
        if process is not None and process.is_alive():
            process.kill()

    def _end(self) -> int | None:
        with self._lock:
            process, connection = self._process, self._connection
            self._process, self._connection, self._held, self._received = None, None, {}, {}
        if connection is not None:
            connection.close()
        if process is None:
            return None
        if process.is_alive():
            process.kill()
        process.join(5)
        return process.exitcode


def _stopped(path: str, seconds: float) -> Diagnostic:
    return Diagnostic(path, Span(1, 0, 1, 1), Code.ANALYSIS_LIMIT,
                      f"analysis stopped after {seconds:g} s, twice the time limit per file, and did "
                      "not finish; the file is unchecked", severity=severity_of(Code.ANALYSIS_LIMIT))


def _serve(connection: Connection, level: int) -> None:
    """The process: analyse each buffer asked for, holding the open buffers between requests."""
    from shapecheck.engine import tune_gc
    from shapecheck.lsp.projects import Projects

    # The process inherits the server's stdin and stdout, the client's pipes: a stray print
    # here would corrupt the protocol, and the client would not see the server's end while
    # this process held them open.
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    logging.basicConfig(level=level, format="shapecheck-lsp-checker %(levelname)s %(name)s: %(message)s")
    _end_with_parent()
    tune_gc()  # as the CLI does
    projects = Projects()
    held: dict[str, Buffer] = {}
    sent: dict[str, Analysis] = {}  # the last analysis of each buffer sent, by URI (as the server holds it)
    settings = 0
    while True:
        try:
            request: _Request = connection.recv()
        except (EOFError, OSError):
            return
        buffer, changed, uris, wanted = request
        if wanted != settings:
            projects.forget()
            settings = wanted
        held.update((b.uri, b) for b in changed)
        held = {uri: held[uri] for uri in uris if uri in held}
        analysis = projects.analyze(buffer, list(held.values()))
        answer: _Answer = (_Sent.of(analysis, sent.get(buffer.uri)), dict(projects.config_errors))
        sent = {uri: sent[uri] for uri in uris if uri in sent}
        sent[buffer.uri] = analysis
        connection.send(answer)


_Change = tuple[int, tuple[Any, ...], int]  # how many items are kept at the start, the new middle, kept at the end


@dataclass(frozen=True, slots=True)
class _Sent:
    """An analysis as it travels to the server: its types and assignments as the change from
    the last analysis of the buffer sent (most of them are the same from one keystroke to the
    next, and pickling them cost more than the analysis)."""

    bare: Analysis  # without types and assignments
    types: _Change
    assignments: _Change | None  # None: no syntax

    @classmethod
    def of(cls, analysis: Analysis, last: Analysis | None) -> _Sent:
        result, syntax = analysis.result, analysis.syntax
        bare = replace(analysis, result=replace(result, types=()),
                       syntax=replace(syntax, assignments=()) if syntax is not None else None)
        before_syntax = last.syntax if last is not None else None
        return cls(bare, _change(last.result.types if last is not None else (), result.types),
                   _change(before_syntax.assignments if before_syntax is not None else (), syntax.assignments)
                   if syntax is not None else None)

    def analysis(self, last: Analysis | None) -> Analysis:
        """The analysis sent, given the last one of the buffer the server received."""
        bare, syntax = self.bare, self.bare.syntax
        before_syntax = last.syntax if last is not None else None
        types = _changed(last.result.types if last is not None else (), self.types)
        if syntax is not None and self.assignments is not None:
            syntax = replace(syntax, assignments=_changed(
                before_syntax.assignments if before_syntax is not None else (), self.assignments))
        return replace(bare, result=replace(bare.result, types=types), syntax=syntax)


def _change(before: tuple[T, ...], after: tuple[T, ...]) -> _Change:
    """`after` as the part of it that differs from `before`, between a common start and end."""
    if before is after:
        return len(after), (), 0
    most = min(len(before), len(after))
    start = 0
    while start < most and (before[start] is after[start] or before[start] == after[start]):
        start += 1
    end = 0
    while end < most - start and (before[-1 - end] is after[-1 - end] or before[-1 - end] == after[-1 - end]):
        end += 1
    return start, after[start:len(after) - end], end


def _changed(before: tuple[T, ...], change: _Change) -> tuple[T, ...]:
    start, middle, end = change
    if start == len(before) and not middle and not end:
        return before
    return before[:start] + middle + before[len(before) - end:]


def _end_with_parent() -> None:
    """Exit when the server does, even in the middle of an analysis (a server killed outright
    cannot end this process itself)."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        parent.join()
        os._exit(0)

    threading.Thread(target=watch, name="shapecheck-lsp-parent", daemon=True).start()
