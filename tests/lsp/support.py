"""A real LSP client (pytest-lsp) talking to `python -m shapecheck lsp` over stdio."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from shapecheck.diagnostic import Diagnostic

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


@dataclass
class Published:
    """The last diagnostics published per URI, with the document version they are for."""

    diagnostics: dict[str, list[types.Diagnostic]] = field(default_factory=dict)
    versions: dict[str, int | None] = field(default_factory=dict)
    count: int = 0
    history: list[tuple[str, int | None]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    refreshes: int = 0  # workspace/diagnostic/refresh requests (they set `arrived` too)
    registrations: list[types.Registration] = field(default_factory=list)  # client/registerCapability


class Client:
    """The test's side of one session: open, edit and wait for diagnostics of a version."""

    def __init__(self, lsp: LanguageClient, published: Published) -> None:
        self.lsp = lsp
        self.published = published
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.as_uri()
        text = path.read_text() if text is None else text
        self.versions[uri] = 1
        self.texts[uri] = text
        self.lsp.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        return uri

    def close(self, uri: str) -> None:
        self.versions.pop(uri, None)
        self.texts.pop(uri, None)
        self.lsp.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))

    def change(self, uri: str, text: str) -> int:
        """Replace the whole text (as a full-document change)."""
        self.versions[uri] += 1
        self.texts[uri] = text
        self.lsp.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return self.versions[uri]

    def edit(self, uri: str, start: tuple[int, int], end: tuple[int, int], new: str, text: str) -> int:
        """An incremental change (0-based line, character), with the text it results in."""
        self.versions[uri] += 1
        self.texts[uri] = text
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(*start), end=types.Position(*end)), text=new)
        self.lsp.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[change]))
        return self.versions[uri]

    async def diagnostics(self, uri: str, version: int | None = None) -> list[types.Diagnostic]:
        """The diagnostics published for `version` of `uri` (default: its latest)."""
        version = self.versions[uri] if version is None else version
        while self.published.versions.get(uri, -1) != version:
            self.published.arrived.clear()
            await asyncio.wait_for(self.published.arrived.wait(), 60)
        return self.published.diagnostics[uri]

    async def pull(self, uri: str, previous: str | None = None) -> types.DocumentDiagnosticReport:
        """textDocument/diagnostic for `uri`, saying the result id of the last pull (if any)."""
        return await self.lsp.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous))

    async def refreshed(self, after: int) -> None:
        """Wait until the server has asked for more than `after` refreshes."""
        while self.published.refreshes <= after:
            self.published.arrived.clear()
            await asyncio.wait_for(self.published.arrived.wait(), 60)

    async def next_publication(self, uri: str, after: int,
                               wanted: Callable[[list[types.Diagnostic]], bool]) -> list[types.Diagnostic]:
        """Wait until diagnostics published for `uri` after the `after`-th publication are `wanted`."""
        while self.published.count <= after or not wanted(self.published.diagnostics.get(uri, [])):
            self.published.arrived.clear()
            await asyncio.wait_for(self.published.arrived.wait(), 60)
        return self.published.diagnostics[uri]


def _client(published: Published) -> LanguageClient:
    lsp = LanguageClient(converter_factory=default_converter)

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        published.diagnostics[params.uri] = list(params.diagnostics)
        published.versions[params.uri] = params.version
        published.history.append((params.uri, params.version))
        published.count += 1
        published.arrived.set()

    def refresh(client: LanguageClient, params: None) -> None:
        published.refreshes += 1
        published.arrived.set()

    def register(client: LanguageClient, params: types.RegistrationParams) -> None:
        published.registrations.extend(params.registrations)

    features = {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
                types.WORKSPACE_DIAGNOSTIC_REFRESH: refresh, types.CLIENT_REGISTER_CAPABILITY: register}
    register_lsp_features(lsp, features)
    return lsp


async def start(root: Path, debounce: float = 0.0,
                capabilities: types.ClientCapabilities | None = None) -> tuple[LanguageClient, Client]:
    """A server for a client with `capabilities` (default: VS Code's, which take pushed diagnostics)."""
    published = Published()
    lsp = _client(published)
    env = {**os.environ, "SHAPECHECK_LSP_DEBOUNCE": str(debounce)}
    await lsp.start_io(sys.executable, "-m", "shapecheck", "lsp", env=env, cwd=str(root))
    await lsp.initialize_session(types.InitializeParams(
        capabilities=capabilities or client_capabilities("visual-studio-code"),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="project")],
    ))
    return lsp, Client(lsp, published)


Expected = tuple[int, int, int, int, str, str, tuple[tuple[int, int, str], ...]]


def expected(d: Diagnostic | types.Diagnostic) -> Expected:
    """One diagnostic, ours or the server's, in LSP's terms (0-based lines; ASCII texts, so
    UTF-16 columns are code points)."""
    if isinstance(d, Diagnostic):
        return (d.span.line - 1, d.span.column, d.span.end_line - 1, d.span.end_column, str(d.code),
                d.message, tuple((n.span.line - 1, n.span.column, n.message) for n in d.notes))
    related = tuple((r.location.range.start.line, r.location.range.start.character, r.message)
                    for r in d.related_information or ())
    return (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character,
            str(d.code), d.message, related)


def position_of(text: str, needle: str) -> tuple[int, int]:
    """The 0-based (line, character) where `needle` first starts in `text`."""
    offset = text.index(needle)
    line = text.count("\n", 0, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1)


def offset_of(text: str, position: types.Position) -> int:
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:position.line]) + position.character


def apply_edits(text: str, action: types.CodeAction) -> str:
    """The text after a code action's edits (all on one document), as an editor applies them."""
    assert action.edit is not None and action.edit.document_changes
    edits = [e for change in action.edit.document_changes if isinstance(change, types.TextDocumentEdit)
             for e in change.edits if isinstance(e, types.TextEdit)]
    spans = sorted(((offset_of(text, e.range.start), offset_of(text, e.range.end), e.new_text) for e in edits),
                   reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text
