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
             died: Callable[[str], T]) -> list[T]:
    """`task(batch)` for every batch on `jobs` processes; `died(path)` for a file whose worker died."""
    results, unfinished = _round(batches, task, jobs, initializer)
    while unfinished:
        # One file per task now, so a death costs only the files that were in flight.
        done, again = _round([[path] for path in unfinished], task, jobs, initializer)
        results.extend(done)
        if len(again) == len(unfinished):
            # No progress: each file alone, so the one that kills its worker is known.
            for path in again:
                alone, failed = _round([[path]], task, 1, initializer)
                results.extend(alone if not failed else [died(path)])
            break
        unfinished = again
    return results


def _round(batches: Sequence[list[str]], task: Task[T], jobs: int, initializer: Callable[[], None],
           ) -> tuple[list[T], list[str]]:
    results: list[T] = []
    unfinished: list[str] = []
    # forkserver, not fork: the caller may have imported jax, whose threads make fork unsafe.
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=jobs, initializer=initializer, mp_context=context) as pool:
        futures: list[tuple[list[str], Future[list[T]]]] = [
            (batch, pool.submit(task, batch)) for batch in batches
        ]
        for batch, future in futures:
            try:
                results.extend(future.result())
            except BrokenProcessPool:
                unfinished.extend(batch)
    return results, unfinished
