"""Writing a file so that a reader sees the old content or the new, never half of either."""

from __future__ import annotations

import contextlib
import os
import tempfile


def write_atomically(target: str | os.PathLike[str], data: bytes, suffix: str = ".tmp") -> None:
    """Write `data` to a temporary file beside `target` and rename it over `target`: two
    writers at once both leave a whole file behind. Raises OSError; leaves no temporary."""
    descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(target) or ".", prefix=".tmp-", suffix=suffix)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
