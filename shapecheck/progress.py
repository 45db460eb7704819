"""A progress bar on stderr for long runs, only where a person is watching.

It is drawn when the output is for people (`--format text`), stderr is a terminal, the run has
many files and has lasted a moment; it erases itself when the run ends. Machine formats, pipes,
CI logs and `--no-progress` never get one, so nothing a program reads is ever mixed with it.
tqdm is imported only when a bar is drawn: the light path does not load it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from shapecheck.results import FileResult

MIN_FILES = 20
"""Fewer files take about a second: a bar would only flicker."""

DELAY_S = 1.0
"""Shown only once the run has lasted this long (a warm, cached run needs none)."""

Callback = Callable[[FileResult], None]


def wanted(files: int, human: bool, stream: TextIO | None = None) -> bool:
    """Whether a run of `files` files writing `human`-readable output should show a bar."""
    stream = stream or sys.stderr
    if not human or files < MIN_FILES or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream is no terminal
        return False


@contextmanager
def progress_bar(total: int, stream: TextIO | None = None) -> Iterator[Callback]:
    """A callback to call once per checked file, drawing a bar of `total` files on `stream`."""
    from tqdm import tqdm

    with tqdm(total=total, file=stream or sys.stderr, unit="file", desc="shapecheck", leave=False,
              delay=DELAY_S, dynamic_ncols=True) as bar:

        def advance(_result: FileResult) -> None:
            bar.update(1)

        yield advance


@contextmanager
def no_progress() -> Iterator[Callback | None]:
    yield None
