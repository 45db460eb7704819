"""The messages of an LSP byte stream, found again after a malformed one.

A message is a header block (`Content-Length: N`, perhaps other headers, then an empty line)
and N bytes of JSON. pygls's reader trusts every frame: after one bad Content-Length it reads
the next bodies as headers and never answers again, shutdown and exit included. This reader
skips what cannot be a message and says so: a header block without a valid Content-Length (not
a number, negative, missing) is skipped with what follows it, up to the next Content-Length
header; bytes before a header that are no header are skipped. A Content-Length larger than its
message runs into the next frame: where a whole JSON message is followed by a Content-Length
header inside the length, the message is skipped and the frame read from that header, without
waiting for the rest of the length (the client may be waiting for an answer); a header cut by
the length is found again by `dispatch`, which gives back what follows a whole message.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO, Final

if TYPE_CHECKING:
    from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)

HEADER: Final = b"content-length:"
"""Where a frame starts (matched without case, as HTTP's header names are)."""

_END: Final = b"\r\n\r\n"
_HEADER_LINE: Final = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n]*")
_CHUNK: Final = 1 << 16


class Frames:
    """Bodies of the messages read from a stream (fed chunk by chunk); `problem` is told what
    was skipped and why."""

    def __init__(self, chunks: asyncio.Queue[bytes], problem: Callable[[str], None]) -> None:
        self._chunks = chunks
        self._problem = problem
        self._data = bytearray()
        self._ended = False

    def unread(self, data: bytes) -> None:
        """Give bytes back, to be read before the rest of the stream."""
        self._data[:0] = data

    async def body(self) -> bytes | None:
        """The next message's body, None once the stream has ended."""
        while True:
            length = await self._header()
            if length is None:
                return None
            end = await self._fill(length)
            if end is None:
                self._problem(f"the stream ended {length - len(self._data)} bytes before the end "
                              f"of a message of {length} bytes")
                return None
            body = bytes(self._data[:end])
            del self._data[:end]
            if end == length:
                return body
            self._problem(f"a message of {end} bytes under a Content-Length of {length} was skipped; "
                          "the next frame started inside it")

    async def _header(self) -> int | None:
        """The Content-Length of the next valid header block, its block consumed."""
        while True:
            start = await self._find(_END)
            if start is None:
                if self._data.strip():
                    self._problem(f"the stream ended inside a header: {_shown(self._data)}")
                return None
            block = bytes(self._data[:start])
            del self._data[:start + len(_END)]
            at = block.lower().find(HEADER)
            if at < 0:
                self._problem(f"a message without a Content-Length header was skipped: {_shown(block)}")
                await self._skip_to_header()
                continue
            before = block[:at]
            if before and not (before.endswith(b"\r\n")
                               and all(_HEADER_LINE.fullmatch(line) for line in before[:-2].split(b"\r\n"))):
                self._problem(f"{len(before)} bytes that are not a header were skipped: {_shown(before)}")
            value = block[at + len(HEADER):].split(b"\r\n", 1)[0].strip()
            if value.isdigit():  # ASCII digits only: bytes.isdigit knows no other
                return int(value)
            self._problem(f"a message whose Content-Length is {_shown(value)}, not a number of bytes, "
                          "was skipped")
            await self._skip_to_header()

    async def _skip_to_header(self) -> None:
        """Drop the bytes before the next Content-Length header (the body of a skipped frame)."""
        while True:
            at = self._data.lower().find(HEADER)
            if at >= 0:
                del self._data[:at]
                return
            del self._data[:max(0, len(self._data) - len(HEADER) + 1)]  # keep a header's start
            if not await self._more():
                return

    async def _find(self, needle: bytes) -> int | None:
        searched = 0
        while True:
            at = self._data.find(needle, searched)
            if at >= 0:
                return at
            searched = max(0, len(self._data) - len(needle) + 1)
            if not await self._more():
                return None

    async def _fill(self, size: int) -> int | None:
        """Read until `size` bytes are here: `size`, or where a whole message ends and the next
        frame starts before it; None if the stream ends first."""
        searched = 0
        while True:
            end = self._frame_inside(searched, size)
            if end is not None:
                return end
            if len(self._data) >= size:
                return size
            searched = max(0, len(self._data) - len(HEADER) + 1)
            if not await self._more():
                return None

    def _frame_inside(self, start: int, size: int) -> int | None:
        """Where, from `start` and before `size`, a Content-Length header follows a whole JSON
        message: a body's own text may hold the header's words, but only inside a string."""
        region = bytes(self._data[start:size + len(HEADER) - 1]).lower()
        at = region.find(HEADER)
        while at >= 0:
            end = start + at
            if self._data[:end].rstrip().endswith(b"}"):
                try:
                    json.loads(bytes(self._data[:end]))
                    return end
                except ValueError:
                    pass
            at = region.find(HEADER, at + 1)
        return None

    async def _more(self) -> bool:
        if self._ended:
            return False
        chunk = await self._chunks.get()
        if not chunk:
            self._ended = True
            return False
        self._data += chunk
        return True


async def dispatch(stream: BinaryIO, protocol: JsonRPCProtocol, problem: Callable[[str], None]) -> None:
    """Hand each message of `stream` to `protocol` until the stream ends (pygls's exit handler
    ends it sooner, raising SystemExit); `problem` is told what was skipped."""
    frames = Frames(read_chunks(stream, asyncio.get_running_loop()), problem)
    while (body := await frames.body()) is not None:
        try:
            text, utf8 = body.decode("utf-8"), True
        except UnicodeDecodeError:
            # A body cut inside a character (its Content-Length was too large) still decodes,
            # and what follows its message goes back unchanged.
            text, utf8 = body.decode("utf-8", errors="surrogateescape"), False
        try:
            message = json.loads(text, object_hook=protocol.structure_message)
        except json.JSONDecodeError as error:
            if error.msg == "Extra data":  # a whole message, then the start of the next frame
                frames.unread(text[error.pos:].encode("utf-8", errors="surrogateescape"))
                problem(f"a message shorter than its Content-Length ({len(body)} bytes) was skipped; "
                        "what followed it is read as the next message")
            else:
                problem(f"a message of {len(body)} bytes that is not JSON ({error.msg} at character "
                        f"{error.pos}) was skipped")
                at = body.lower().find(HEADER, 1)
                if at > 0:  # a frame starts inside: its Content-Length was too large for it too
                    frames.unread(body[at:])
            continue
        except Exception:  # not a message pygls can read (its parameters are malformed)
            log.exception("a message that cannot be read was skipped")
            continue
        if not utf8:
            problem(f"a message of {len(body)} bytes that is not UTF-8 was skipped")
            continue
        try:
            protocol.handle_message(message)
        except Exception:
            log.exception("handling a message failed")


def read_chunks(stream: BinaryIO, loop: asyncio.AbstractEventLoop) -> asyncio.Queue[bytes]:
    """What arrives on `stream`, chunk by chunk (b"" at its end), read on a thread of its own so
    the event loop never waits for the client."""
    chunks: asyncio.Queue[bytes] = asyncio.Queue()

    def read() -> None:
        while True:
            try:
                chunk = stream.read1(_CHUNK) if hasattr(stream, "read1") else stream.read(_CHUNK)
            except (OSError, ValueError):
                chunk = b""
            loop.call_soon_threadsafe(chunks.put_nowait, chunk)
            if not chunk:
                return

    # A daemon: the process may end while it waits for input that never comes.
    threading.Thread(target=read, name="shapecheck-lsp-stdin", daemon=True).start()
    return chunks


def _shown(data: bytes | bytearray, limit: int = 80) -> str:
    text = repr(bytes(data[:limit]))[2:-1]
    return f"'{text}...' ({len(data)} bytes)" if len(data) > limit else f"'{text}'"
