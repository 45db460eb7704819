"""The runtime's API boundary: refusals point at the user's code, and show only its frames.

JAX hides its internals from tracebacks (`jax._src.traceback_util`) and from the source
locations of traced values (`jax._src.source_info_util`); the runtime's directory is
registered with both, so its frames are hidden like JAX's own, and a value built by
`shapecheck.runtime.numpy.sum` is attributed to the user's line that called it. Each public
entry point is a JAX API boundary (filtering follows JAX_TRACEBACK_FILTERING) that also gives
a `NamedAxisError` the user's line and column when the raise site did not know them.
"""

from __future__ import annotations

import functools
import os
import sys
import types
from collections.abc import Callable
from typing import Any, TypeVar, cast

from jax._src import source_info_util, traceback_util

from shapecheck.runtime.errors import Location, NamedAxisError

F = TypeVar("F", bound=Callable[..., Any])

_RUNTIME = os.path.dirname(os.path.abspath(__file__))
traceback_util.register_exclusion(_RUNTIME)
source_info_util.register_exclusion(_RUNTIME + os.sep)


def is_user_file(path: str) -> bool:
    """Not JAX, not this runtime, not the standard library: JAX's own heuristic."""
    return bool(source_info_util.is_user_filename(path))


def boundary(fun: F) -> F:
    """`fun` as a public entry point of the runtime."""

    @functools.wraps(fun)
    def located(*args: Any, **kwargs: Any) -> Any:
        try:
            return fun(*args, **kwargs)
        except NamedAxisError as error:
            if error.location is None:
                error.location = _innermost_user_code(error.__traceback__)
            raise

    return cast(F, traceback_util.api_boundary(located))


def position(code: types.CodeType, lasti: int) -> tuple[int, int] | None:
    """The 1-based (line, column) of the instruction at `lasti` (Python 3.11+ positions)."""
    positions = list(code.co_positions())
    index = lasti // 2  # one code unit per 2 bytes
    if 0 <= index < len(positions):
        line, _, column, _ = positions[index]
        if line is not None and column is not None:
            return line, column + 1
    return None


def _innermost_user_code(tb: types.TracebackType | None) -> Location | None:
    """The innermost user frame below the boundary, else the user's call of the runtime."""
    found: tuple[types.CodeType, int] | None = None
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            found = tb.tb_frame.f_code, tb.tb_lasti
        tb = tb.tb_next
    if found is None:
        frame: types.FrameType | None = sys._getframe(1)
        while frame is not None and not is_user_file(frame.f_code.co_filename):
            frame = frame.f_back
        if frame is None:
            return None
        found = frame.f_code, frame.f_lasti
    code, lasti = found
    place = position(code, lasti)
    return None if place is None else Location(code.co_filename, *place)
