"""Checking many files in worker processes, surviving a worker that dies.

A worker can die where Python cannot catch it (a segfault in a native extension, the kernel's
out-of-memory killer). The pool then fails every unfinished task; the files that were not
checked are checked again in a fresh pool, one task per file, and a file that still brings its
worker down is reported as not checked, while every other file keeps its results.

The processes are started with no checked folder on `sys.path` (`shapecheck.isolation`), and
they end with the run: a worker dies with the process it was forked from, and SIGTERM stops the workers
before the run exits.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from types import FrameType
from typing import TypeVar

from shapecheck.exits import EXIT_TERMINATED
from shapecheck.isolation import isolated, safe_path

T = TypeVar("T")

Task = Callable[[list[str]], list[T]]



def run_pool(batches: Sequence[list[str]], task: Task[T], jobs: int, initializer: Callable[[], None],
             died: Callable[[str], T], on_result: Callable[[T], None] | None = None,
             preload: Sequence[str] = ()) -> list[T]:
    """`task(batch)` for every batch on `jobs` processes; `died(path)` for a file whose worker died.

    `on_result` (a progress display) is called with each result as its batch comes back.
    `preload` names modules imported once, in the process the workers are forked from, instead
    of once in each worker.
    """
    if not isolated():
        raise RuntimeError("worker processes cannot be isolated from the checked project "
                           "under python -E without -P: check in one process")
    _context(preload)
    start = _Start(initializer)
    with _stopped_by_sigterm():
        results, unfinished = _round(batches, task, jobs, start, on_result)
        while unfinished:
            # One file per task now, so a death costs only the files that were in flight.
            done, again = _round([[path] for path in unfinished], task, jobs, start, on_result)
            results.extend(done)
            if len(again) == len(unfinished):
                # No progress: one file at a time, so the one that kills its worker is known.
                while again:
                    done, again, culprit = _one_by_one(again, task, start)
                    results.extend(done)
                    if culprit is not None:
                        results.append(died(culprit))
                break
            unfinished = again
    return results


def start_server(preload: Sequence[str] = ()) -> None:
    """Start the process the workers are forked from, importing `preload` there, without
    waiting for it: the run goes on (finding its files, indexing its modules) while it imports.

    Where the run would not be isolated, nothing starts: `run_pool` refuses it.
    """
    if isolated():
        _context(preload)


def _context(preload: Sequence[str] = ()) -> multiprocessing.context.ForkServerContext:
    # forkserver, not fork: the caller may have imported jax, whose threads make fork unsafe.
    context = multiprocessing.get_context("forkserver")
    if preload:  # effective until the fork server starts, once per process
        context.set_forkserver_preload(["__main__", *preload])
    with safe_path():
        # Started here, inside the safe environment, rather than at the first worker's start;
        # the resource tracker is started by the same call. Both are no-ops once running.
        from multiprocessing import forkserver

        forkserver.ensure_running()
    return context


class _Start:
    """A worker's initializer: tie its life to the run's, then the caller's set-up."""

    def __init__(self, then: Callable[[], None]) -> None:
        self.then = then
        self.run = os.getpid()  # pickled here, in the run: the worker's parent is the fork server

    def __call__(self) -> None:
        _die_with(self.run)
        self.then()


def _die_with(run: int) -> None:
    """End this worker when the run that it works for ends, however it ends.

    The fork server that forks the workers exits only once every worker has (they hold the
    write end of its "alive" pipe), so a worker cannot wait for its parent: it watches the run
    itself. Without this a killed run's workers, fork server and resource tracker live on,
    holding its stdout and stderr open (`shapecheck check . | wc -c` would never end).
    """
    try:
        handle = os.pidfd_open(run)  # Linux: readable once the run has exited, no polling
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):  # another system, or an old kernel
        handle = None
    threading.Thread(target=_watch, args=(run, handle), daemon=True,
                     name="shapecheck-run-watch").start()


def _watch(run: int, handle: int | None) -> None:
    if handle is not None:
        import select

        select.select([handle], [], [])
    else:
        import time

        while True:
            try:
                os.kill(run, 0)
            except ProcessLookupError:
                break
            except PermissionError:
                pass  # alive, under another user: not ours to signal, but alive
            time.sleep(0.5)
    os._exit(1)


class _Terminated(SystemExit):
    """SIGTERM arrived: the run stops, its workers first."""


@contextmanager
def _stopped_by_sigterm() -> Iterator[None]:
    """SIGTERM raises `_Terminated` in the main thread while the pool runs (exit 143)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum: int, frame: FrameType | None) -> None:
        raise _Terminated(EXIT_TERMINATED)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _pool(jobs: int, initializer: Callable[[], None]) -> Iterator[ProcessPoolExecutor]:
    """A process pool whose workers are killed, not awaited, when the run is interrupted."""
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=initializer, mp_context=_context())
    try:
        yield pool
    except BaseException:
        # Private, but the only handle on the workers: waiting for them could take minutes.
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _one_by_one(paths: Sequence[str], task: Task[T], initializer: Callable[[], None],
                ) -> tuple[list[T], list[str], str | None]:
    """Results until a file kills the worker: (results, the files after it, that file)."""
    results: list[T] = []
    with _pool(1, initializer) as pool:
        for index, path in enumerate(paths):
            try:
                results.extend(pool.submit(task, [path]).result())
            except BrokenProcessPool:
                return results, list(paths[index + 1:]), path
    return results, [], None  # the death came from running beside others (memory), not a file


def _round(batches: Sequence[list[str]], task: Task[T], jobs: int, initializer: Callable[[], None],
           on_result: Callable[[T], None] | None = None) -> tuple[list[T], list[str]]:
    results: list[T] = []
    unfinished: list[str] = []
    with _pool(jobs, initializer) as pool:
        futures: list[tuple[list[str], Future[list[T]]]] = [
            (batch, pool.submit(task, batch)) for batch in batches
        ]
        for batch, future in futures:
            try:
                batch_results = future.result()
            except BrokenProcessPool:
                unfinished.extend(batch)
                continue
            results.extend(batch_results)
            if on_result is not None:
                for result in batch_results:
                    on_result(result)
    return results, unfinished
