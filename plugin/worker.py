"""The other end of `prefetch`: a process that analyses the files it is given, one by one.

It reads one request from stdin (configuration, the project's modules as mypy resolved them,
the files to analyse) and writes to stdout, for each file, a record that it has started on it
and then its result. It imports no mypy: the engine is all it needs.
"""

from __future__ import annotations

import contextlib
import pickle
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import BinaryIO

from shapecheck.config import Config
from shapecheck.plugin.modules import ModuleFiles
from shapecheck.results import FileResult


@dataclass(frozen=True, slots=True)
class Request:
    config: Config
    modules: Mapping[str, str]  # module -> file, for the modules the engine may read
    paths: tuple[str, ...]  # in the order they are expected to be asked for


@dataclass(frozen=True, slots=True)
class Started:
    path: str


def serve(source: BinaryIO, sink: BinaryIO) -> None:
    from shapecheck.engine import Engine

    request: Request = pickle.load(source)
    modules = ModuleFiles(request.modules)
    engine = Engine(request.config, modules)
    for path in request.paths:
        text = modules.read(path)
        if text is None:
            continue
        _send(sink, Started(path))
        _send(sink, engine.analyze(path, text))


def _send(sink: BinaryIO, record: Started | FileResult) -> None:
    pickle.dump(record, sink, protocol=pickle.HIGHEST_PROTOCOL)
    sink.flush()


def main() -> None:
    # mypy may finish (or stop) before this process does: then nobody is waiting for it.
    with contextlib.suppress(BrokenPipeError, EOFError, KeyboardInterrupt):
        serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main()
