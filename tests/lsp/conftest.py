"""One server for the tests of this folder (starting one costs seconds); each test gets its
own folder (tmp_path) and closes what it opened, so no buffer of one test is a module of the
next."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio
from lsprotocol import types

from .support import Client, start


@pytest_asyncio.fixture(scope="package", loop_scope="package")
async def server() -> AsyncIterator[Client]:
    lsp, session = await start(Path.cwd())
    yield session
    await lsp.shutdown_session()
    await lsp.stop()  # type: ignore[no-untyped-call]


@pytest_asyncio.fixture(loop_scope="package")
async def client(server: Client, tmp_path: Path) -> AsyncIterator[Client]:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    logged = len(server.lsp.log_messages)
    yield server
    for uri in list(server.versions):
        server.close(uri)
    # A handler that raised is answered empty, and logged here: a test must not cause one.
    failures = [m.message for m in server.lsp.log_messages[logged:] if m.type == types.MessageType.Error]
    assert not failures, failures[0]
