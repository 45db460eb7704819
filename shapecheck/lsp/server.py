"""The language server's state: open buffers, their analyses, and when to analyse which.

It holds no shape rule (features.py routes the LSP messages here). Analyses run one at a time
in the checker's process (checker.py), waited for on a worker thread, so the event loop keeps
answering hover and the next keystroke whatever the analysis does. An edit is
checked at once when the worker is idle; edits that arrive while it runs are coalesced into one
check of the latest text when it finishes, and the result of a version the editor has moved
past is dropped (the engine offers no way to interrupt an analysis, so it runs to its end).
Each analysis infers the types too (for hover, inlay hints and code actions): on CPython's tree
they add about a quarter to it, and a request then never waits for an analysis. An edit of one
buffer re-checks the open buffers whose last result read it.

Diagnostics are pushed (textDocument/publishDiagnostics) to a client that cannot pull them, and
only pulled (textDocument/diagnostic) by one that can: a pull waits for the check of the text
it asks about, and a result that changed without being asked for (an imported module was
edited, the settings changed) is announced with workspace/diagnostic/refresh.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import os
import sys
import traceback
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO
from urllib.parse import unquote, urlparse

from lsprotocol import converters, types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from shapecheck import __version__
from shapecheck.lsp.analysis import Analysis
from shapecheck.lsp.buffers import Buffer, Buffers, same_path
from shapecheck.lsp.checker import Checker, Closed
from shapecheck.lsp.diagnostics import to_lsp
from shapecheck.lsp.frames import dispatch
from shapecheck.lsp.positions import Lines, encoding_name
from shapecheck.project import content_hash, module_names
from shapecheck.results import Report

if TYPE_CHECKING:
    import cattrs

log = logging.getLogger(__name__)

DEBOUNCE_S = 0.0
"""Quiet time after a keystroke before its buffer is analysed (open and save: none). None by
default: keystrokes that arrive during an analysis are coalesced into the next one anyway."""


@dataclass(slots=True)
class _Document:
    latest: Analysis | None = None  # what was last published
    good: Analysis | None = None  # the last analysis of text that parsed, for hover
    diagnostics: list[types.Diagnostic] = field(default_factory=list)  # latest's, in LSP's terms
    result_id: str | None = None  # a hash of `diagnostics` (None: not checked yet)
    pulled: str | None = None  # the result id the client last pulled (pull mode)


def _result_id(diagnostics: list[types.Diagnostic]) -> str:
    """A pull's result id: equal ids, equal diagnostics (so an unchanged report is exact)."""
    data = _converter().unstructure(diagnostics, list[types.Diagnostic])
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:32]


@functools.cache
def _converter() -> cattrs.Converter:
    # lsprotocol builds a new converter at each call, registering a hook for every type of the
    # protocol: 10-20 ms, more than the rest of publishing a 1,000-line file's diagnostics.
    return converters.get_converter()


def path_of(uri: str) -> str:
    """The file path of a `file:` URI (other schemes: their path part, never opened on disk)."""
    parsed = urlparse(uri)
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
        path = path[1:]
    return os.path.abspath(path or uri)


class ShapecheckServer(LanguageServer):
    def __init__(self, debounce: float = DEBOUNCE_S) -> None:
        super().__init__("shapecheck", __version__)
        self.debounce = debounce
        self.buffers = Buffers()
        self.checker = Checker()
        self.shut_down = False  # the client asked for shutdown: nothing more is published
        self.documents: dict[str, _Document] = {}
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.pending: deque[str] = deque()
        self.worker: asyncio.Task[None] | None = None
        self.checking: str | None = None  # the URI whose analysis the worker waits for
        self.waiting: dict[str, list[asyncio.Future[None]]] = {}  # pulls waiting for a check
        self.warned: set[tuple[Path, str]] = set()
        # One analysis at a time: the checker's process holds the engines and their summaries.
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shapecheck-lsp")

    # --- transport ----------------------------------------------------------------------

    def run_stdio(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
        """Serve on stdio until the client says exit or closes the stream; the exit code LSP
        asks for: 0 after a shutdown request, 1 without."""
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(dispatch(stdin or sys.stdin.buffer, self.protocol, self.frame_problem))
        except SystemExit as exit:  # raised by pygls's exit handler, with the code LSP asks for
            return exit.code if isinstance(exit.code, int) else 1
        except BrokenPipeError:
            log.error("the client closed the connection")
        except KeyboardInterrupt:
            pass
        finally:
            self.checker.close()
        return 0 if self.shut_down else 1

    def frame_problem(self, problem: str) -> None:
        """Say what of the client's stream was skipped, on stderr and in the editor's log."""
        log.warning("%s", problem)
        try:
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Warning,
                                                           message=f"shapecheck: {problem}"))
        except Exception:
            log.exception("cannot send the problem to the client")

    # --- buffers ------------------------------------------------------------------------

    def update(self, uri: str) -> Buffer | None:
        """Copy pygls's view of the document into our thread-safe store."""
        document = self.workspace.get_text_document(uri)
        buffer = Buffer(uri, path_of(uri), document.source, document.version or 0)
        self.buffers.put(buffer)
        return buffer

    def encoding(self) -> str:
        return encoding_name(self.workspace.position_encoding or types.PositionEncodingKind.Utf16)

    # --- scheduling ---------------------------------------------------------------------

    def schedule(self, uri: str, delay: float) -> None:
        timer = self.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        if delay <= 0:
            self.enqueue(uri)
        else:
            self.timers[uri] = loop.call_later(delay, self.enqueue, uri)

    def enqueue(self, uri: str) -> None:
        self.timers.pop(uri, None)
        buffer = self.buffers.get(uri)
        if buffer is None:
            return
        for dependent in [uri, *self.dependents(buffer.path, buffer.text)]:
            if dependent not in self.pending:
                self.pending.append(dependent)
        self.start_worker()

    def dependents(self, path: str, text: str | None) -> list[str]:
        """Open documents whose last result read `path` with other text than `text` has now,
        or looked for one of its module names and found nothing (a module being written)."""
        key = same_path(path)
        digest = content_hash(text) if text is not None else None
        names = set(module_names(Path(path)))
        return [uri for uri, document in self.documents.items()
                if document.latest is not None and same_path(document.latest.buffer.path) != key
                and (any(same_path(d.path) == key and d.hash != digest
                         for d in document.latest.result.dependencies)
                     or not names.isdisjoint(document.latest.result.missing))]

    def start_worker(self) -> None:
        if self.worker is None or self.worker.done():
            self.worker = asyncio.get_running_loop().create_task(self.drain())

    async def drain(self) -> None:
        while self.pending:
            await self.check_next()
        # After the pulls woken by these checks have answered: what none of them took is news.
        asyncio.get_running_loop().call_soon(self.refresh)

    async def check_next(self) -> None:
        uri = self.pending.popleft()
        self.checking = uri
        try:
            await self.check(uri)
        finally:
            self.checking = None
            self.wake(uri)

    async def check(self, uri: str) -> None:
        buffer = self.buffers.get(uri)
        if buffer is None or uri in self.timers:
            return  # closed, or typed into since: its timer enqueues it again
        try:
            analysis = await asyncio.get_running_loop().run_in_executor(
                self.executor, self.checker.analyze, buffer, self.buffers.snapshot())
            if self.shut_down:
                return
            current = self.buffers.get(uri)
            if current is None or current.version != buffer.version:
                return  # the editor moved on; that version is waiting or queued
            self.publish(uri, analysis)
            if self.outdated(analysis) and uri not in self.pending:
                self.pending.append(uri)
        except Closed:
            return  # shutting down
        except Exception:
            self.report_failure(f"checking {uri}")

    def settings_changed(self) -> None:
        """Read every pyproject.toml again (whatever its modification time says) and check the
        open buffers with what it now says."""
        self.checker.reload_settings()
        self.warned.clear()  # a setting still broken after the edit is said again
        for buffer in self.buffers.snapshot():
            self.schedule(buffer.uri, 0)

    # --- pull diagnostics -----------------------------------------------------------------

    def capabilities(self) -> types.ClientCapabilities:
        """What the client said it can do (nothing, before it said)."""
        said: types.ClientCapabilities | None = getattr(self.protocol, "client_capabilities", None)
        return said if said is not None else types.ClientCapabilities()

    @property
    def pulls(self) -> bool:
        """Whether the client asks for diagnostics (textDocument/diagnostic) rather than taking
        them pushed."""
        text_document = self.capabilities().text_document
        return bool(text_document and text_document.diagnostic)

    def settled(self, uri: str) -> bool:
        """Whether the last check of `uri` is of its current text (none queued, waiting or running)."""
        return uri not in self.pending and uri not in self.timers and self.checking != uri

    async def pulled(self, uri: str) -> _Document | None:
        """The document once its current text is checked; None when it is not open."""
        while self.buffers.get(uri) is not None and not self.settled(uri) and not self.shut_down:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.waiting.setdefault(uri, []).append(future)
            await future
        return self.documents.get(uri) if self.buffers.get(uri) is not None else None

    def wake(self, uri: str | None = None) -> None:
        """Let the pulls waiting for `uri` (None: for any document) look again."""
        for key in [uri] if uri is not None else list(self.waiting):
            for future in self.waiting.pop(key, []):
                if not future.done():
                    future.set_result(None)

    def refresh(self) -> None:
        """Ask the client to pull again where a result it pulled has changed since, unasked."""
        workspace = self.capabilities().workspace
        if (not self.pulls or self.shut_down
                or not (workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)):
            return
        if any(d.pulled is not None and d.pulled != d.result_id for d in self.documents.values()):
            self.workspace_diagnostic_refresh(None)

    async def watch_files(self) -> None:
        """Ask the client to tell about Python files and pyproject.toml changed on disk (a git
        checkout, another editor): open files that read them are checked again."""
        watchers = [types.FileSystemWatcher(glob_pattern=pattern) for pattern in ("**/*.py", "**/pyproject.toml")]
        try:
            await self.client_register_capability_async(types.RegistrationParams(registrations=[
                types.Registration(id="shapecheck-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                   register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]))
        except Exception:
            log.info("the client does not watch files for the server", exc_info=True)

    def report_failure(self, what: str) -> None:
        """Log the exception being handled, on stderr and in the editor's log (window/logMessage)."""
        log.exception("%s failed", what)
        try:
            self.window_log_message(types.LogMessageParams(
                type=types.MessageType.Error, message=f"shapecheck: {what} failed:\n{traceback.format_exc()}"))
        except Exception:
            log.exception("cannot send the failure to the client")

    def outdated(self, analysis: Analysis) -> bool:
        """Whether an open buffer the analysis read has changed since (while it ran)."""
        for dependency in analysis.result.dependencies:
            buffer = self.buffers.by_path(dependency.path)
            if buffer is not None and content_hash(buffer.text) != dependency.hash:
                return True
        return False

    def publish(self, uri: str, analysis: Analysis) -> None:
        self.warn_about_settings()
        document = self.documents.setdefault(uri, _Document())
        document.latest = analysis
        if analysis.parses:
            document.good = analysis
        encoding = self.encoding()
        lines = Lines(analysis.buffer.text, encoding)
        found = Report([analysis.result]).diagnostics  # an internal error is SC000, as in the CLI
        # Notes point into few files, most often this one: each is split into lines once.
        known = {same_path(analysis.buffer.path): lines}

        def lines_of(path: str) -> Lines:
            key = same_path(path)
            if key not in known:
                known[key] = self.lines_of(path, encoding)
            return known[key]

        diagnostics = [to_lsp(d, lines, self.uri_of, lines_of) for d in found]
        document.diagnostics, document.result_id = diagnostics, _result_id(diagnostics)
        if not self.pulls:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics, version=analysis.buffer.version))

    def warn_about_settings(self) -> None:
        """Say once per message why a pyproject.toml's settings are not applied (its files are
        checked with the defaults meanwhile)."""
        for pyproject, error in list(self.checker.config_errors.items()):
            if (pyproject, error) not in self.warned:
                self.warned.add((pyproject, error))
                self.window_show_message(types.ShowMessageParams(
                    type=types.MessageType.Warning,
                    message=f"shapecheck: {pyproject}: {error}; checking with the default settings"))

    def uri_of(self, path: str) -> str:
        buffer = self.buffers.by_path(path)
        return buffer.uri if buffer is not None else Path(path).absolute().as_uri()

    def lines_of(self, path: str, encoding: str) -> Lines:
        buffer = self.buffers.by_path(path)
        if buffer is not None:
            return Lines(buffer.text, encoding)
        try:
            return Lines(Path(path).read_text(encoding="utf-8"), encoding)
        except (OSError, UnicodeDecodeError):
            return Lines("", encoding)

    def analysis(self, uri: str, *, for_hover: bool = False) -> Analysis | None:
        """The last published analysis; for hover, the last one of text that parsed."""
        document = self.documents.get(uri)
        if document is None:
            return None
        if for_hover and document.latest is not None and not document.latest.parses:
            return document.good
        return document.latest
