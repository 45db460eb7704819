"""Checking many files in worker processes, surviving a worker that dies.

A worker can die where Python cannot catch it (a segfault in a native extension, the kernel's
out-of-memory killer). The pool then fails every unfinished task; the files that were not
checked are checked again in a fresh pool, one task per file, and a file that still brings its
worker down is reported as not checked, while every other file keeps its results.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

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
    _context(preload)
    results, unfinished = _round(batches, task, jobs, initializer, on_result)
    while unfinished:
        # One file per task now, so a death costs only the files that were in flight.
        done, again = _round([[path] for path in unfinished], task, jobs, initializer, on_result)
        results.extend(done)
        if len(again) == len(unfinished):
            # No progress: one file at a time, so the one that kills its worker is known.
            while again:
                done, again, culprit = _one_by_one(again, task, initializer)
                results.extend(done)
                if culprit is not None:
                    results.append(died(culprit))
            break
        unfinished = again
    return results


def _context(preload: Sequence[str] = ()) -> multiprocessing.context.ForkServerContext:
    # forkserver, not fork: the caller may have imported jax, whose threads make fork unsafe.
    context = multiprocessing.get_context("forkserver")
    if preload:  # effective until the fork server starts, once per process
        context.set_forkserver_preload(["__main__", *preload])
    return context


def _one_by_one(paths: Sequence[str], task: Task[T], initializer: Callable[[], None],
                ) -> tuple[list[T], list[str], str | None]:
    """Results until a file kills the worker: (results, the files after it, that file)."""
    results: list[T] = []
    context = _context()
    with ProcessPoolExecutor(max_workers=1, initializer=initializer, mp_context=context) as pool:
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
    context = _context()
    with ProcessPoolExecutor(max_workers=jobs, initializer=initializer, mp_context=context) as pool:
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
