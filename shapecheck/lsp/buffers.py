"""The editor's open buffers, and the project's modules as an editor sees them.

An open buffer's unsaved text is what the engine reads for its module, so an edit of one file
is seen by the analysis of the files importing it; modules not open are read from disk, found
as the CLI finds them (`ProjectIndex`).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from shapecheck.project import ProjectIndex, module_names


@dataclass(frozen=True, slots=True)
class Buffer:
    """One open document at one version."""

    uri: str
    path: str  # absolute
    text: str
    version: int


def same_path(path: str) -> str:
    """The key two spellings of one file share."""
    return os.path.normcase(os.path.abspath(path))


class Buffers:
    """Open documents by URI; written by the server's event loop, read by the analysis worker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, Buffer] = {}

    def put(self, buffer: Buffer) -> None:
        with self._lock:
            self._open[buffer.uri] = buffer

    def remove(self, uri: str) -> None:
        with self._lock:
            self._open.pop(uri, None)

    def get(self, uri: str) -> Buffer | None:
        with self._lock:
            return self._open.get(uri)

    def snapshot(self) -> list[Buffer]:
        with self._lock:
            return list(self._open.values())

    def by_path(self, path: str) -> Buffer | None:
        key = same_path(path)
        return next((b for b in self.snapshot() if same_path(b.path) == key), None)


class BufferSource:
    """A `ModuleSource`: open buffers first (by the module names their paths give), then disk.

    Built for one analysis from a snapshot of the buffers, so one analysis reads one state of
    the project even while the editor keeps typing.
    """

    def __init__(self, buffers: list[Buffer], checked: str, root: Path) -> None:
        self.texts: dict[str, tuple[str, str]] = {}
        for buffer in buffers:
            for name in module_names(Path(buffer.path)):
                self.texts.setdefault(name, (buffer.path, buffer.text))
        self.disk = ProjectIndex.of([checked, *(b.path for b in buffers)], [root])

    def find(self, module: str) -> tuple[str, str] | None:
        return self.texts.get(module) or self.disk.find(module)
