"""The frame reader alone: which messages of a stream reach the protocol, however it arrives."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import pytest
from pygls.protocol import JsonRPCProtocol

from shapecheck.lsp.frames import dispatch

from .test_stdio import MALFORMED


def _message(ident: int, text: str = "") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "textDocument/hover",
                       "params": {"text": text}}).encode()


def _frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Trickle:
    """A stream that hands out `size` bytes per read."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data = data
        self.size = size

    def read1(self, limit: int) -> bytes:
        chunk, self.data = self.data[:min(self.size, limit)], self.data[min(self.size, limit):]
        return chunk


class Protocol:
    def __init__(self) -> None:
        self.handled: list[int] = []

    def structure_message(self, data: dict[str, Any]) -> dict[str, Any]:
        return data

    def handle_message(self, message: dict[str, Any]) -> None:
        if "id" in message:
            self.handled.append(message["id"])


def _run(data: bytes, size: int) -> tuple[list[int], list[str]]:
    protocol = Protocol()
    problems: list[str] = []
    stream = Trickle(data, size)
    asyncio.run(dispatch(stream, cast(JsonRPCProtocol, protocol), problems.append))  # type: ignore[arg-type]
    return protocol.handled, problems


@pytest.mark.parametrize("size", [1, 7, 1 << 16])
@pytest.mark.parametrize("kind", MALFORMED)
def test_the_messages_after_a_malformed_frame_arrive(kind: str, size: int) -> None:
    data = _frame(_message(1)) + MALFORMED[kind](_message(2)) + _frame(_message(3)) + _frame(_message(4))
    handled, problems = _run(data, size)
    assert handled == [1, 3, 4]
    assert problems and all("skipped" in problem for problem in problems)


@pytest.mark.parametrize("size", [1, 1 << 16])
def test_a_body_that_names_the_header_in_its_text_is_one_message(size: int) -> None:
    text = '}Content-Length: 12\r\n\r\n{"id": 9}'
    data = _frame(_message(1, text)) + _frame(_message(2, text * 3))
    assert _run(data, size) == ([1, 2], [])


def test_the_end_of_the_stream_inside_a_message_is_said() -> None:
    handled, problems = _run(_frame(_message(1)) + _frame(_message(2))[:-5], 1 << 16)
    assert handled == [1]
    assert problems == [f"the stream ended 5 bytes before the end of a message of {len(_message(2))} bytes"]
