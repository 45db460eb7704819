"""The VS Code recipe of docs/lsp.md, as the generic client extension runs it: the command and
arguments of its `settings.json` started over stdio, VS Code's client capabilities, a file of the
recipe's language opened, and the diagnostics published for it. VS Code itself cannot run here;
everything the recipe tells the extension is used as written."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from .support import Client, Published, _client

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "lsp.md").read_text(encoding="utf-8")


def _recipe() -> dict[str, object]:
    match = re.search(r"VS Code[^\n]*\n(?:[^\n]+\n)*?\n?```json\n(.*?)```", DOCS, re.S)
    assert match is not None, "docs/lsp.md has no VS Code settings.json block"
    settings = json.loads(match.group(1))
    assert isinstance(settings, dict)
    return settings


def test_the_recipe_names_the_installed_console_script() -> None:
    settings = _recipe()
    assert settings["glspc.server.command"] == "shapecheck"
    assert settings["glspc.server.commandArguments"] == ["lsp"]
    assert settings["glspc.server.languageId"] == ["python"]


@pytest.mark.asyncio(loop_scope="package")
async def test_the_recipe_starts_a_server_that_publishes_diagnostics(tmp_path: Path) -> None:
    settings = _recipe()
    # The extension runs the command from PATH: the console script installed beside Python.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    command = shutil.which(str(settings["glspc.server.command"]), path=path)
    assert command is not None
    arguments = settings["glspc.server.commandArguments"]
    languages = settings["glspc.server.languageId"]
    assert isinstance(arguments, list) and isinstance(languages, list)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    model = tmp_path / "model.py"
    model.write_text("import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((5,))\n")
    published = Published()
    lsp = _client(published)
    await lsp.start_io(command, *map(str, arguments), cwd=str(tmp_path), env={**os.environ, "PATH": path})
    try:
        await lsp.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="demo")]))
        client = Client(lsp, published)
        uri = model.as_uri()
        client.versions[uri] = 1
        lsp.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id=str(languages[0]), version=1, text=model.read_text())))
        found = await client.diagnostics(uri)
        assert [(d.range.start.line, d.code) for d in found] == [(2, "SC101")]
    finally:
        await lsp.shutdown_session()
        await lsp.stop()  # type: ignore[no-untyped-call]
