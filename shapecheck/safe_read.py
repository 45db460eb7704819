"""Reading back a file shapecheck wrote for itself (a cache entry, a run memo), whatever now
stands in its place.

Only a regular file is read, and only up to a bound: the name is opened without following a
symbolic link (a link to /dev/zero is never read) and without blocking (a FIFO with no writer
does not hang the open); what was opened must be a regular file (`fstat` on the descriptor
itself, so no rename in between can swap it) no larger than the bound, and it is read to one
byte past the bound (a file that grew meanwhile is refused).

Imports nothing that Python has not already imported at start-up: the run memo reads with it
before anything else is imported.
"""

from __future__ import annotations

import os
import stat

_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
          | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def read_bounded(path: str | os.PathLike[str], limit: int) -> tuple[bytes, os.stat_result] | None:
    """The bytes of the regular file at `path` and its `fstat`, if it holds at most `limit`
    bytes; None for anything else (missing, unreadable, a link, a FIFO, a device, a folder,
    too large), none of which blocks or reads past `limit`."""
    try:
        descriptor = os.open(path, _FLAGS)
    except (OSError, ValueError):  # ValueError: a NUL in the name
        return None
    try:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode) or found.st_size > limit:
            return None
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(descriptor, min(left, max(found.st_size + 1, 1 << 16)))
            if not chunk:
                return b"".join(chunks), found
            chunks.append(chunk)
            left -= len(chunk)
        return None  # grew past the bound while read
    except OSError:
        return None
    finally:
        os.close(descriptor)
