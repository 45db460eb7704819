"""When the server analyses what: coalesced checks, stale work dropped, requests never waiting.

The server runs in this process with a stand-in for its checker whose checks wait for the
test's word, so what overlaps what is decided by the test, not by timing.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio

from shapecheck.config import Config
from shapecheck.lsp.analysis import Analysis
from shapecheck.lsp.buffers import Buffer
from shapecheck.lsp.server import ShapecheckServer
from shapecheck.results import FileResult

pytestmark = pytest.mark.asyncio

URI = "file:///project/model.py"


class StandIn:
    """A checker whose checks block until `gate` is set, recording what was analysed."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.checked: list[int] = []
        self.config_errors: dict[object, str] = {}

    def analyze(self, buffer: Buffer, buffers: list[Buffer]) -> Analysis:
        self.checked.append(buffer.version)
        assert self.gate.wait(30), "the test never let the check finish"
        return Analysis.of(buffer, FileResult(buffer.path), Config())


class Harness:
    def __init__(self) -> None:
        self.server = ShapecheckServer()
        self.projects = StandIn()
        self.published: list[int | None] = []
        self.server.checker = self.projects  # type: ignore[assignment]
        self.server.encoding = lambda: "utf-16"  # type: ignore[method-assign]
        self.server.text_document_publish_diagnostics = (  # type: ignore[method-assign]
            lambda params: self.published.append(params.version))

    def change(self, version: int) -> None:
        self.server.buffers.put(Buffer(URI, "/project/model.py", f"x = {version}\n", version))
        self.server.schedule(URI, 0)


async def until(condition: Callable[[], bool]) -> None:
    for _ in range(3000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the server never got there")


@pytest_asyncio.fixture
async def harness() -> AsyncIterator[Harness]:
    harness = Harness()
    yield harness
    harness.projects.gate.set()
    if harness.server.worker is not None:
        await harness.server.worker
    harness.server.executor.shutdown(wait=True)


async def test_changes_during_a_check_are_coalesced_into_one_of_the_latest_text(harness: Harness) -> None:
    harness.change(1)
    await until(lambda: harness.projects.checked == [1])
    for version in range(2, 6):
        harness.change(version)  # while version 1 is being checked
    harness.projects.gate.set()
    await until(lambda: harness.published == [5])
    assert harness.projects.checked == [1, 5]


async def test_a_request_answers_from_the_published_version_without_waiting(harness: Harness) -> None:
    # Types come with each check: hover, inlay hints and code actions read the last published
    # analysis, even while a newer version is being checked, and start no analysis of their own.
    harness.projects.gate.set()
    harness.change(1)
    await until(lambda: harness.published == [1])
    harness.projects.gate.clear()
    harness.change(2)
    await until(lambda: harness.projects.checked == [1, 2])
    answered = harness.server.analysis(URI, for_hover=True)
    assert answered is not None and answered.buffer.version == 1
    harness.projects.gate.set()
    await until(lambda: harness.published == [1, 2])
    answered = harness.server.analysis(URI)
    assert answered is not None and answered.buffer.version == 2
    assert harness.projects.checked == [1, 2]
