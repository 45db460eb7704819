"""The bounds of one file's analysis: a large stack, a raised recursion limit, a time limit.

Deeply nested code that CPython compiles must be analysed, not crash the process: the parser
and the analyser recurse once per nesting level, so a file runs on a thread with a stack large
enough for the recursion limit set here (a segfault cannot be caught; a RecursionError can).
A file that takes longer than its time limit is interrupted where it stands, keeping what was
found so far.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Final, TypeVar

T = TypeVar("T")

STACK_BYTES: Final = 1 << 30
"""Stack of the analysis thread: only the pages touched are ever backed by memory."""

RECURSION_LIMIT: Final = 200_000
"""Python frames the analysis may nest; about 4 KiB of stack each at most, within STACK_BYTES."""

TIME_LIMIT_S: Final = 60.0
"""Seconds one file may take before its analysis stops (SC005)."""

_GRACE_S: Final = 10.0  # for the interrupted analysis to unwind and report what it found

_lock = threading.Lock()
_running = 0
_saved_limit = 0


class AnalysisTimeout(BaseException):
    """Raised inside an analysis that ran past its time limit.

    A BaseException, so that no `except Exception` inside the analyser swallows it.
    """


def run_bounded(function: Callable[[], T], time_limit: float = TIME_LIMIT_S) -> T:
    """`function()` on a large-stack thread; its exception is re-raised here.

    Past `time_limit` seconds, AnalysisTimeout is raised inside it (between two bytecodes) and it
    has a grace period to return a result; one that does not unwind raises AnalysisTimeout here.
    """
    outcome: list[tuple[bool, object]] = []

    def target() -> None:
        try:
            outcome.append((True, function()))
        except BaseException as error:  # handed to the caller, which decides
            outcome.append((False, error))

    global _running, _saved_limit
    with _lock:
        if _running == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
        _running += 1
        previous = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
            thread = threading.Thread(target=target, name="shapecheck-analysis", daemon=True)
            thread.start()
        except (ValueError, RuntimeError, MemoryError):
            # No room for a large stack here: run with the default one and its default limit.
            thread = threading.Thread(target=target, name="shapecheck-analysis", daemon=True)
            threading.stack_size(previous)
            sys.setrecursionlimit(_saved_limit)
            thread.start()
        finally:
            threading.stack_size(previous)
    try:
        thread.join(time_limit)
        if thread.is_alive():
            _interrupt(thread)
            thread.join(_GRACE_S)
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                sys.setrecursionlimit(_saved_limit)
    if not outcome:
        raise AnalysisTimeout(time_limit)
    ok, value = outcome[0]
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]


def _interrupt(thread: threading.Thread) -> None:
    import ctypes  # only for a file past its time limit

    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident),
                                                   ctypes.py_object(AnalysisTimeout))
