"""Pulled diagnostics and settings read again, through real clients: one that pulls
(textDocument/diagnostic, with workspace/diagnostic/refresh) and the package's pushing one."""

from __future__ import annotations

import asyncio
import os
import shutil
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import attrs
import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import client_capabilities

from .support import FIXTURES, Client, expected, start

pytestmark = pytest.mark.asyncio(loop_scope="package")

FIXTURE_NAMES = ["cascade_xmap_argument_size.py", "syntax_error_missing_colon.py",
                 "xmap_sizes_across_arguments.py", "toy_network_ok.py"]

PROGRAM = textwrap.dedent("""\
    import jax.numpy as jnp


    def total(x):
        return jnp.sum(x, axis=3)


    s = total(jnp.ones((4,)))
    b = jnp.ones((3, 4)) + jnp.ones((5,))
    """)  # SC106 in total, SC101 at b

LAYERS = "from shapecheck import f32\n\n\ndef dense(x: f32[(4, 3)]) -> f32[(4, 3)]:\n    return x\n"
MAIN = "import jax.numpy as jnp\nfrom layers import dense\n\ny = dense(jnp.ones((4, 5)))\n"


def _pulling() -> types.ClientCapabilities:
    """VS Code's capabilities with pull diagnostics and their refresh, as VS Code 1.67+ has them."""
    vscode = client_capabilities("visual-studio-code")
    assert vscode.text_document is not None and vscode.workspace is not None
    text_document = attrs.evolve(vscode.text_document, diagnostic=types.DiagnosticClientCapabilities(
        dynamic_registration=False, related_document_support=False))
    workspace = attrs.evolve(vscode.workspace, diagnostics=types.DiagnosticWorkspaceClientCapabilities(
        refresh_support=True))
    return attrs.evolve(vscode, text_document=text_document, workspace=workspace)


@pytest_asyncio.fixture(scope="module", loop_scope="package")
async def pulling_server() -> AsyncIterator[Client]:
    lsp, session = await start(Path.cwd(), capabilities=_pulling())
    yield session
    await lsp.shutdown_session()
    await lsp.stop()  # type: ignore[no-untyped-call]


@pytest_asyncio.fixture(loop_scope="package")
async def puller(pulling_server: Client, tmp_path: Path) -> AsyncIterator[Client]:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    logged = len(pulling_server.lsp.log_messages)
    yield pulling_server
    for uri in list(pulling_server.versions):
        pulling_server.close(uri)
    failures = [m.message for m in pulling_server.lsp.log_messages[logged:] if m.type == types.MessageType.Error]
    assert not failures, failures[0]
    # Pulled, never pushed: a client shown both would list each diagnostic twice.
    assert pulling_server.published.count == 0


async def _full(client: Client, uri: str, previous: str | None = None) -> types.RelatedFullDocumentDiagnosticReport:
    report = await client.pull(uri, previous)
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport), report
    return report


def _codes(report: types.RelatedFullDocumentDiagnosticReport) -> list[str]:
    return [str(d.code) for d in report.items]


async def test_pulled_diagnostics_equal_the_pushed_ones(client: Client, puller: Client, tmp_path: Path) -> None:
    for name in FIXTURE_NAMES:
        shutil.copy(FIXTURES / name, tmp_path / name)
    for name in FIXTURE_NAMES:
        pushed = await client.diagnostics(client.open(tmp_path / name))
        pulled = await _full(puller, puller.open(tmp_path / name))
        assert list(pulled.items) == pushed, name
    assert any(expected(d)[6] for name in FIXTURE_NAMES
               for d in client.published.diagnostics[(tmp_path / name).as_uri()]), "notes compared too"


async def test_a_pull_answers_for_the_latest_text_and_says_when_nothing_changed(puller: Client,
                                                                                 tmp_path: Path) -> None:
    uri = puller.open(tmp_path / "model.py", PROGRAM)
    first = await _full(puller, uri)
    assert _codes(first) == ["SC106", "SC101"]
    assert first.result_id is not None
    unchanged = await puller.pull(uri, first.result_id)
    assert unchanged == types.RelatedUnchangedDocumentDiagnosticReport(result_id=first.result_id)
    # Asked right after an edit: the answer waits for the check of the edited text.
    puller.change(uri, PROGRAM.replace("(5,)", "(4,)"))
    fixed = await _full(puller, uri, first.result_id)
    assert _codes(fixed) == ["SC106"]
    assert fixed.result_id not in (None, first.result_id)
    # The id is the diagnostics' hash: an edit that leaves them as they were is "unchanged".
    puller.change(uri, PROGRAM.replace("(5,)", "(4,)").replace("s = total", "t = total"))
    assert await puller.pull(uri, fixed.result_id) == types.RelatedUnchangedDocumentDiagnosticReport(
        result_id=fixed.result_id)
    puller.close(uri)
    assert _codes(await _full(puller, uri)) == []  # closed: nothing


async def test_a_change_the_client_did_not_ask_about_is_announced_by_a_refresh(puller: Client,
                                                                                 tmp_path: Path) -> None:
    (tmp_path / "layers.py").write_text(LAYERS)
    main = puller.open(tmp_path / "main.py", MAIN)
    before = await _full(puller, main)
    assert _codes(before) == ["SC103"]
    seen = puller.published.refreshes
    (tmp_path / "layers.py").write_text(LAYERS.replace("(4, 3)", "(4, 5)"))  # a git checkout
    puller.lsp.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(tmp_path / "layers.py").as_uri(), type=types.FileChangeType.Changed)]))
    await puller.refreshed(seen)
    assert _codes(await _full(puller, main, before.result_id)) == []


async def test_pyproject_changes_reach_a_pulling_client(puller: Client, tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.shapecheck]\nignore = ['SC101']\n")
    uri = puller.open(tmp_path / "model.py", PROGRAM)
    assert _codes(await _full(puller, uri)) == ["SC106"]
    seen = puller.published.refreshes
    pyproject.write_text("[tool.shapecheck]\nselect = ['SC101']\n")
    puller.lsp.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Changed)]))
    await puller.refreshed(seen)
    assert _codes(await _full(puller, uri)) == ["SC101"]


def _rewrite_unnoticed(path: Path, text: str) -> None:
    """Write `text` keeping the file's size and modification time: only a notice says it changed
    (as an edit within the file system's timestamp resolution does)."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


async def test_did_change_configuration_reads_the_settings_again(client: Client, tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.shapecheck]\nignore = ['SC101']\n")
    uri = client.open(tmp_path / "model.py", PROGRAM)
    assert [d.code for d in await client.diagnostics(uri)] == ["SC106"]
    _rewrite_unnoticed(pyproject, "[tool.shapecheck]\nignore = ['SC106']\n")
    seen = client.published.count
    client.lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    found = await client.next_publication(uri, seen, lambda found: [d.code for d in found] != ["SC106"])
    assert [d.code for d in found] == ["SC101"]


async def test_saving_pyproject_in_the_editor_reads_the_settings_again(client: Client, tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.shapecheck]\nselect = ['SC106']\n")
    uri = client.open(tmp_path / "model.py", PROGRAM)
    assert [d.code for d in await client.diagnostics(uri)] == ["SC106"]
    settings = client.open(pyproject)  # opened in the editor too: not checked as Python
    _rewrite_unnoticed(pyproject, "[tool.shapecheck]\nselect = ['SC101']\n")
    seen = client.published.count
    client.lsp.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=settings)))
    found = await client.next_publication(uri, seen, lambda found: [d.code for d in found] != ["SC106"])
    assert [d.code for d in found] == ["SC101"]
    assert settings not in client.published.diagnostics


async def test_the_server_asks_to_be_told_of_pyproject_changes(client: Client) -> None:
    # VS Code's capabilities allow registering file watchers dynamically.
    for _ in range(600):
        watched = [r for r in client.published.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        if watched:
            break
        await asyncio.sleep(0.05)
    options = watched[0].register_options  # LSPAny: it arrives as JSON
    assert isinstance(options, dict)
    assert "**/pyproject.toml" in [w["globPattern"] for w in options["watchers"]]
