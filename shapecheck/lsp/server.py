"""The language server: LSP messages in, engine calls on a worker thread, LSP answers out.

It holds no shape rule. Edits are debounced, analyses run one at a time on a worker thread so
the event loop keeps answering hover and the next keystroke, a queued version the editor has
moved past is never started and the result of a running one is dropped (the engine offers no
way to interrupt an analysis, so it runs to its end). An edit of one buffer re-checks the open
buffers whose last result read it. Every handler catches, logs and answers empty: no request
ever brings the server down.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import traceback
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import ParamSpec, TypeVar
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from shapecheck import __version__
from shapecheck.analyzer.modules import content_hash
from shapecheck.lsp import actions, hover, inlay
from shapecheck.lsp.analysis import Analysis
from shapecheck.lsp.buffers import Buffer, Buffers, same_path
from shapecheck.lsp.diagnostics import to_lsp
from shapecheck.lsp.positions import Lines, encoding_name
from shapecheck.lsp.projects import Projects
from shapecheck.project import module_names
from shapecheck.results import Report

log = logging.getLogger(__name__)

DEBOUNCE_S = 0.3
"""Quiet time after a keystroke before its buffer is analysed (open and save: none)."""

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(slots=True)
class _Document:
    latest: Analysis | None = None  # what was last published
    good: Analysis | None = None  # the last analysis of text that parsed, for hover


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
        self.projects = Projects()
        self.documents: dict[str, _Document] = {}
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.pending: deque[str] = deque()
        self.worker: asyncio.Task[None] | None = None
        self.warned: set[tuple[Path, str]] = set()
        # One analysis at a time: engines and their module summaries are not thread-safe.
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shapecheck-lsp")

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
        if self.worker is None or self.worker.done():
            self.worker = asyncio.get_running_loop().create_task(self.drain())

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

    async def drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self.pending:
            uri = self.pending.popleft()
            buffer = self.buffers.get(uri)
            if buffer is None or uri in self.timers:
                continue  # closed, or typed into since: its debounce timer enqueues it again
            try:
                analysis = await loop.run_in_executor(self.executor, self.projects.analyze, buffer,
                                                      self.buffers.snapshot())
                current = self.buffers.get(uri)
                if current is None or current.version != buffer.version:
                    continue  # the editor moved on; that version is debouncing or queued
                self.publish(uri, analysis)
                if self.outdated(analysis) and uri not in self.pending:
                    self.pending.append(uri)
            except Exception:
                self.report_failure(f"checking {uri}")

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
        diagnostics = [to_lsp(d, lines, self.uri_of, functools.partial(self.lines_of, encoding=encoding))
                       for d in found]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=diagnostics, version=analysis.buffer.version))

    def warn_about_settings(self) -> None:
        """Say once per message why a pyproject.toml's settings are not applied (its files are
        checked with the defaults meanwhile)."""
        for pyproject, error in list(self.projects.config_errors.items()):
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


def answer(handler: Callable[P, R]) -> Callable[P, R | None]:
    """Run a handler so that any exception is logged and answered with None (an empty answer
    for every request the server takes)."""

    @functools.wraps(handler)
    def safe(*args: P.args, **kwargs: P.kwargs) -> R | None:
        try:
            return handler(*args, **kwargs)
        except Exception:
            server = args[0] if args else None
            if isinstance(server, ShapecheckServer):
                server.report_failure(handler.__name__)
            else:
                log.exception("%s failed", handler.__name__)
            return None

    return safe


def build(debounce: float = DEBOUNCE_S) -> ShapecheckServer:
    server = ShapecheckServer(debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @answer
    def did_open(ls: ShapecheckServer, params: types.DidOpenTextDocumentParams) -> None:
        if ls.update(params.text_document.uri) is not None:
            ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @answer
    def did_change(ls: ShapecheckServer, params: types.DidChangeTextDocumentParams) -> None:
        if ls.update(params.text_document.uri) is not None:
            ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    @answer
    def did_save(ls: ShapecheckServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.update(params.text_document.uri)
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.INITIALIZED)
    @answer
    def on_initialized(ls: ShapecheckServer, params: types.InitializedParams) -> None:
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watched and watched.dynamic_registration:
            asyncio.get_running_loop().create_task(ls.watch_files())

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @answer
    def on_watched_files(ls: ShapecheckServer, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            path = path_of(change.uri)
            if Path(path).name == "pyproject.toml":
                # Settings may have changed for any open file: check them all again.
                for uri in list(ls.documents):
                    ls.schedule(uri, 0)
            elif ls.buffers.by_path(path) is None:  # an open buffer's text wins over the disk
                for dependent in ls.dependents(path, None):
                    ls.schedule(dependent, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @answer
    def did_close(ls: ShapecheckServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        buffer = ls.buffers.get(uri)
        timer = ls.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        ls.buffers.remove(uri)
        ls.documents.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        if buffer is not None:
            # Its importers now read the file on disk, which may differ from the closed buffer.
            for dependent in ls.dependents(buffer.path, None):
                ls.schedule(dependent, 0)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @answer
    def on_hover(ls: ShapecheckServer, params: types.HoverParams) -> types.Hover | None:
        analysis = ls.analysis(params.text_document.uri, for_hover=True)
        return hover.hover(analysis, params.position, ls.encoding()) if analysis else None

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    @answer
    def on_inlay_hint(ls: ShapecheckServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        analysis = ls.analysis(params.text_document.uri, for_hover=True)
        return inlay.inlay_hints(analysis, params.range, ls.encoding()) if analysis else []

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    @answer
    def on_code_action(ls: ShapecheckServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        analysis = ls.analysis(params.text_document.uri)
        current = ls.buffers.get(params.text_document.uri)
        if analysis is None or current is None or current.version != analysis.buffer.version:
            return []  # edits computed on an older text would land in the wrong places
        return actions.code_actions(analysis, params.range, ls.encoding(), params.context.diagnostics)

    @server.feature(types.SHUTDOWN)
    @answer
    def on_shutdown(ls: ShapecheckServer, params: None) -> None:
        for timer in ls.timers.values():
            timer.cancel()
        ls.executor.shutdown(wait=False, cancel_futures=True)

    return server


def serve() -> None:
    logging.basicConfig(level=os.environ.get("SHAPECHECK_LSP_LOG", "WARNING").upper(),
                        format="shapecheck-lsp %(levelname)s %(name)s: %(message)s")
    debounce = float(os.environ.get("SHAPECHECK_LSP_DEBOUNCE", DEBOUNCE_S))
    build(debounce).start_io()
