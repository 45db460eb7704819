"""The bounds of one file's analysis: a large stack, a raised recursion limit, a time limit.

Deeply nested code that CPython compiles must be analysed, not crash the process: the parser
and the analyser recurse once per nesting level, so a file runs on a thread with a stack large
enough for the recursion limit set here (a segfault cannot be caught; a RecursionError can).
A file that takes longer than its time limit is interrupted where it stands, keeping what was
found so far.
"""

from __future__ import annotations

import queue
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
    global _running, _saved_limit, _runner
    with _lock:
        if _running == 0:
            _saved_limit = sys.getrecursionlimit()
        _running += 1
        runner = _runner if _runner is not None and _runner.idle.acquire(blocking=False) else None
        if runner is None:
            runner = _Runner()
            runner.idle.acquire()
            if _runner is None:
                _runner = runner
            else:  # another thread's analysis holds the shared one: this one serves one file
                runner.retired = True
        if runner.large:
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
    task = _Task(function)
    try:
        runner.tasks.put(task)
        if not task.done.wait(time_limit):
            _interrupt(runner.thread)
            task.done.wait(_GRACE_S)
            with _lock:
                # A pending interruption must not reach the next file: the thread is retired.
                runner.retired = True
                if _runner is runner:
                    _runner = None
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                sys.setrecursionlimit(_saved_limit)
        if runner.retired:
            runner.tasks.put(None)
        runner.idle.release()
    if not task.outcome:
        raise AnalysisTimeout(time_limit)
    ok, value = task.outcome[0]
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]


class _Task:
    def __init__(self, function: Callable[[], object]) -> None:
        self.function = function
        self.outcome: list[tuple[bool, object]] = []
        self.done = threading.Event()


class _Runner:
    """One long-lived analysis thread with a large stack, for every file in turn.

    A thread per file mapped a fresh 1 GiB stack each time, and every stack page the parser
    and the analyser touched faulted in again: the analysis ran about twice as slow.
    """

    def __init__(self) -> None:
        self.tasks: queue.SimpleQueue[_Task | None] = queue.SimpleQueue()
        self.idle = threading.Lock()  # held while a caller's task is queued or running
        self.retired = False
        previous = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
            self.thread = threading.Thread(target=self._serve, name="shapecheck-analysis", daemon=True)
            self.thread.start()
            self.large = True
        except (ValueError, RuntimeError, MemoryError):
            # No room for a large stack here: run with the default one and its default limit.
            threading.stack_size(previous)
            self.thread = threading.Thread(target=self._serve, name="shapecheck-analysis", daemon=True)
            self.thread.start()
            self.large = False
        finally:
            threading.stack_size(previous)

    def _serve(self) -> None:
        while True:
            try:
                task = self.tasks.get()
                if task is None:
                    return
                try:
                    task.outcome.append((True, task.function()))
                except BaseException as error:  # handed to the caller, which decides
                    task.outcome.append((False, error))
                finally:
                    task.done.set()
            except BaseException:  # an interruption that arrived after its task ended
                continue


_runner: _Runner | None = None


def _interrupt(thread: threading.Thread) -> None:
    import ctypes  # only for a file past its time limit

    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident),
                                                   ctypes.py_object(AnalysisTimeout))
