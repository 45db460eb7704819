"""`shapecheck lsp` over raw stdio: frames written by hand, malformed ones among them, the exit
codes LSP asks for, answers while a large buffer is checked, and the size bound."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from shapecheck.codes import Code
from shapecheck.config import load_config
from shapecheck.engine import Engine

from .support import ROOT

Message = dict[str, Any]


def frame(message: Message) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Raw:
    """A client that writes its own bytes to `python -m shapecheck lsp` (this checkout's) and
    reads the server's frames."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.process = subprocess.Popen(
            [sys.executable, "-m", "shapecheck", "lsp"], cwd=folder,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT), "SHAPECHECK_LSP_DEBOUNCE": "0"})
        self.messages: queue.Queue[Message | None] = queue.Queue()
        self.seen: list[Message] = []  # every message read while waiting for another
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if not line or length is None:
                self.messages.put(None)
                return
            self.messages.put(json.loads(stream.read(length)))

    def _drain(self) -> None:
        assert self.process.stderr is not None
        self.stderr.extend(self.process.stderr)

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, method: str, params: object = None, ident: int | None = None) -> None:
        message: Message = {"jsonrpc": "2.0", "method": method, "params": params}
        if ident is not None:
            message["id"] = ident
        self.write(frame(message))

    def wait(self, wanted: Callable[[Message], bool], timeout: float = 60) -> Message:
        end = time.monotonic() + timeout
        while True:
            try:
                message = self.messages.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no such message within {timeout} s") from None
            if message is None:
                raise AssertionError("the server closed its output")
            self.seen.append(message)
            if wanted(message):
                return message

    def answer(self, ident: int, timeout: float = 60) -> Message:
        return self.wait(lambda m: m.get("id") == ident and "method" not in m, timeout)

    def initialize(self) -> None:
        self.send("initialize", {"processId": None, "rootUri": self.folder.as_uri(), "capabilities": {}}, 1)
        self.answer(1)
        self.send("initialized", {})

    def open(self, name: str, text: str) -> str:
        uri = (self.folder / name).as_uri()
        self.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                            "version": 1, "text": text}})
        return uri

    def hover(self, uri: str, ident: int, line: int = 0, character: int = 0) -> None:
        self.send("textDocument/hover", {"textDocument": {"uri": uri},
                                         "position": {"line": line, "character": character}}, ident)

    def exit_code(self, timeout: float = 20) -> int:
        return self.process.wait(timeout)


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[Raw]:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    client = Raw(tmp_path)
    yield client
    if client.process.poll() is None:
        client.process.kill()
        client.process.wait()


def _hover_frame(ident: int) -> bytes:
    return frame({"jsonrpc": "2.0", "id": ident, "method": "textDocument/hover",
                  "params": {"textDocument": {"uri": "file:///nowhere/m.py"},
                             "position": {"line": 0, "character": 0}}})


def _body(data: bytes) -> bytes:
    return data.split(b"\r\n\r\n", 1)[1]


# Each spoils the frame of a hover request (id 2); the requests after it must be answered.
MALFORMED: dict[str, Callable[[bytes], bytes]] = {
    "non-numeric length": lambda body: b"Content-Length: twelve\r\n\r\n" + body,
    "negative length": lambda body: b"Content-Length: -%d\r\n\r\n" % len(body) + body,
    "empty length": lambda body: b"Content-Length: \r\n\r\n" + body,
    # Longer than its body: the length runs into the next frame's header and body, cuts the
    # next header, or runs past everything the client sends before it waits for an answer.
    "short body": lambda body: b"Content-Length: %d\r\n\r\n" % (len(body) + 30) + body,
    "short body, header cut": lambda body: b"Content-Length: %d\r\n\r\n" % (len(body) + 5) + body,
    "short body, long overrun": lambda body: b"Content-Length: %d\r\n\r\n" % (len(body) + 100_000) + body,
    "missing Content-Length": lambda body: b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body,
    "no header at all": lambda body: body,
}


@pytest.mark.parametrize("kind", MALFORMED)
def test_a_malformed_frame_is_skipped_and_the_next_requests_answered(raw: Raw, kind: str) -> None:
    raw.initialize()
    raw.write(MALFORMED[kind](_body(_hover_frame(2))))
    raw.write(_hover_frame(3))
    assert raw.answer(3, timeout=30).get("result", "missing") is None
    raw.send("shutdown", None, 4)
    assert "result" in raw.answer(4, timeout=30)
    raw.send("exit")
    assert raw.exit_code() == 0
    assert not any(m.get("id") == 2 for m in raw.seen), "the malformed request is not handled"
    logged = [m["params"]["message"] for m in raw.seen if m.get("method") == "window/logMessage"]
    assert any("skipped" in message for message in logged), logged
    assert b"skipped" in b"".join(raw.stderr)


def test_exit_without_shutdown_ends_with_1(raw: Raw) -> None:
    raw.initialize()
    raw.send("exit")
    assert raw.exit_code() == 1


def test_exit_after_shutdown_ends_with_0(raw: Raw) -> None:
    raw.initialize()
    raw.send("shutdown", None, 2)
    raw.answer(2)
    raw.send("exit")
    assert raw.exit_code() == 0


SMALL = "import jax.numpy as jnp\n\nb = jnp.ones((3, 4)) + jnp.ones((4,))\nc = b + jnp.ones((5,))\n"
UNIT = """
def layer_{i}(x, y):
    h = jnp.ones((4, 8)) + jnp.ones((8,))
    return jnp.sum(h, axis=0)


a_{i} = jnp.ones((3, 4), dtype=jnp.float32)
b_{i} = a_{i} + jnp.ones((5,), dtype=jnp.float32)
"""


def _large(size: int) -> str:
    units = [UNIT.format(i=i) for i in range(size // len(UNIT.format(i=0)) + 1)]
    return "import jax.numpy as jnp\n" + "".join(units)


def _children(pid: int) -> set[int]:
    """The processes whose parent is `pid` (Linux)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(sys.platform != "linux", reason="reads the processes in /proc")
def test_requests_are_answered_while_a_large_buffer_is_checked(raw: Raw) -> None:
    # 2 MB: its parse alone holds CPython's GIL for seconds, its analysis takes far longer.
    raw.initialize()
    small = raw.open("small.py", SMALL)
    diagnostics = raw.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                           and m["params"]["uri"] == small)
    assert [d["code"] for d in diagnostics["params"]["diagnostics"]] == ["SC101"]
    raw.open("large.py", _large(2_000_000))
    waited = []
    for ident in range(10, 20):  # over about five seconds of its check
        started = time.monotonic()
        raw.hover(small, ident, 2, 0)
        answer = raw.answer(ident, timeout=60)
        waited.append(time.monotonic() - started)
        assert answer["result"] is not None and "f32[(3, 4)]" in answer["result"]["contents"]["value"]
        time.sleep(0.5)
    assert max(waited) < 2.0, [round(w, 2) for w in waited]
    checkers = _children(raw.process.pid)
    assert checkers, "the analyses run in a process of their own"
    started = time.monotonic()
    raw.send("shutdown", None, 99)
    raw.answer(99, timeout=10)
    raw.send("exit")
    assert raw.exit_code(10) == 0
    assert time.monotonic() - started < 5.0
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in checkers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in checkers), "the analysis ends with the server"


def test_a_buffer_over_the_size_bound_is_unchecked_at_once_as_in_the_cli(raw: Raw, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n\n[tool.shapecheck]\nmax-file-size = 100000\n")
    text = _large(200_000)
    (tmp_path / "large.py").write_text(text)
    cli = Engine(load_config(start=tmp_path)).check_files([str(tmp_path / "large.py")], jobs=1).diagnostics
    assert [d.code for d in cli] == [Code.ANALYSIS_LIMIT]
    raw.initialize()
    started = time.monotonic()
    large = raw.open("large.py", text)
    published = raw.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == large)
    assert time.monotonic() - started < 10  # the checker's start included
    assert [(d["code"], d["range"]["start"]["line"] + 1, d["message"]) for d in published["params"]["diagnostics"]] \
        == [(str(d.code), d.span.line, d.message) for d in cli]
