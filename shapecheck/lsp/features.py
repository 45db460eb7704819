"""What the server answers: each LSP message it takes, routed to the server's state or to a
provider (hover, inlay hints, code actions). Every handler runs inside `answer`, so an
exception is logged and answered empty instead of reaching pygls.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from lsprotocol import types

from shapecheck.lsp import actions, hover, inlay
from shapecheck.lsp.server import DEBOUNCE_S, ShapecheckServer, path_of

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


def answer(handler: Callable[P, R]) -> Callable[P, R | None]:
    """Run a handler so that any exception is logged and answered with None (an empty answer
    for every request the server takes)."""

    @functools.wraps(handler)
    def safe(*args: P.args, **kwargs: P.kwargs) -> R | None:
        try:
            return handler(*args, **kwargs)
        except Exception:
            _failed(handler.__name__, args)
            return None

    return safe


def _failed(name: str, args: tuple[object, ...]) -> None:
    """Log a handler's exception where the editor shows it (the server's log when there is one)."""
    server = args[0] if args else None
    if isinstance(server, ShapecheckServer):
        server.report_failure(name)
    else:
        log.exception("%s failed", name)


def answer_later(handler: Callable[P, Awaitable[R]]) -> Callable[P, Coroutine[Any, Any, R | None]]:
    """`answer` for a handler that awaits (the types it needs)."""

    @functools.wraps(handler)
    async def safe(*args: P.args, **kwargs: P.kwargs) -> R | None:
        try:
            return await handler(*args, **kwargs)
        except Exception:
            _failed(handler.__name__, args)
            return None

    return safe


def _settings_file(uri: str) -> bool:
    """Whether `uri` is a pyproject.toml: the settings, never checked as Python."""
    return Path(path_of(uri)).name == "pyproject.toml"


def build(debounce: float = DEBOUNCE_S) -> ShapecheckServer:
    server = ShapecheckServer(debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @answer
    def did_open(ls: ShapecheckServer, params: types.DidOpenTextDocumentParams) -> None:
        if not _settings_file(params.text_document.uri) and ls.update(params.text_document.uri) is not None:
            ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @answer
    def did_change(ls: ShapecheckServer, params: types.DidChangeTextDocumentParams) -> None:
        if not _settings_file(params.text_document.uri) and ls.update(params.text_document.uri) is not None:
            ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    @answer
    def did_save(ls: ShapecheckServer, params: types.DidSaveTextDocumentParams) -> None:
        if _settings_file(params.text_document.uri):
            ls.settings_changed()  # saved from the editor: its text on disk is the settings now
            return
        ls.update(params.text_document.uri)
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @answer
    def on_configuration(ls: ShapecheckServer, params: types.DidChangeConfigurationParams) -> None:
        # The settings live in pyproject.toml, not in the editor's: the client's notice is a
        # cue to read them again.
        ls.settings_changed()

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC,
                    types.DiagnosticOptions(identifier="shapecheck", inter_file_dependencies=True,
                                            workspace_diagnostics=False))
    @answer_later
    async def on_diagnostic(ls: ShapecheckServer, params: types.DocumentDiagnosticParams
                            ) -> types.DocumentDiagnosticReport:
        document = await ls.pulled(params.text_document.uri)
        if document is None or document.result_id is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])  # not open, or never checked
        document.pulled = document.result_id
        if params.previous_result_id == document.result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=document.result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=document.diagnostics, result_id=document.result_id)

    @server.feature(types.INITIALIZED)
    @answer
    def on_initialized(ls: ShapecheckServer, params: types.InitializedParams) -> None:
        ls.checker.start()  # its imports, while the editor sends the first buffers
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watched and watched.dynamic_registration:
            asyncio.get_running_loop().create_task(ls.watch_files())

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @answer
    def on_watched_files(ls: ShapecheckServer, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            path = path_of(change.uri)
            if _settings_file(change.uri):
                ls.settings_changed()  # for any open file
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
        ls.wake(uri)
        if not ls.pulls:  # a pulling client forgets a closed document's diagnostics itself
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        if buffer is not None:
            # Its importers now read the file on disk, which may differ from the closed buffer.
            for dependent in ls.dependents(buffer.path, None):
                ls.schedule(dependent, 0)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @answer_later
    async def on_hover(ls: ShapecheckServer, params: types.HoverParams) -> types.Hover | None:
        analysis = ls.analysis(params.text_document.uri, for_hover=True)
        return hover.hover(analysis, params.position, ls.encoding()) if analysis else None

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    @answer_later
    async def on_inlay_hint(ls: ShapecheckServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        analysis = ls.analysis(params.text_document.uri, for_hover=True)
        return inlay.inlay_hints(analysis, params.range, ls.encoding()) if analysis else []

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    @answer_later
    async def on_code_action(ls: ShapecheckServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        analysis = ls.analysis(params.text_document.uri)
        current = ls.buffers.get(params.text_document.uri)
        if analysis is None or current is None or current.version != analysis.buffer.version:
            return []  # edits computed on an older text would land in the wrong places
        return actions.code_actions(analysis, params.range, ls.encoding(), params.context.diagnostics)

    @server.feature(types.SHUTDOWN)
    @answer
    def on_shutdown(ls: ShapecheckServer, params: None) -> None:
        ls.shut_down = True
        for timer in ls.timers.values():
            timer.cancel()
        ls.checker.close()  # an analysis still running ends with its process
        ls.executor.shutdown(wait=False, cancel_futures=True)
        ls.wake()  # pulls waiting for a check are answered with what there is

    return server


def serve() -> int:
    """Serve on stdio; the exit code. SHAPECHECK_LSP_LOG (a logging level name) sets what goes to stderr,
    SHAPECHECK_LSP_DEBOUNCE the seconds of quiet before a changed buffer is checked (default
    none: edits made during an analysis are coalesced into the next), SHAPECHECK_LSP_REPLAY=0
    turns off the replay of the last check's analyses (`lsp.reuse`)."""
    from shapecheck.engine import tune_gc

    tune_gc()  # as the CLI does: the analyses allocate like a CLI run, every keystroke
    level = getattr(logging, os.environ.get("SHAPECHECK_LSP_LOG", "").upper(), None)
    logging.basicConfig(level=level if isinstance(level, int) else logging.WARNING,
                        format="shapecheck-lsp %(levelname)s %(name)s: %(message)s")
    return build(_seconds(os.environ.get("SHAPECHECK_LSP_DEBOUNCE"), DEBOUNCE_S)).run_stdio()


def _seconds(value: str | None, default: float) -> float:
    try:
        seconds = float(value) if value else default
    except ValueError:
        return default
    return seconds if 0 <= seconds < 60 else default
