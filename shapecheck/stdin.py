"""A buffer checked as if it were the file at PATH: `check --stdin-filename PATH -` and the
language server, for editors that hold text not yet saved.

The configuration is the one PATH's folder finds, PATH's excludes apply (an excluded PATH is
not checked at all, as ruff does), and imports resolve from PATH's project.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import BinaryIO

from shapecheck.config import Config, ConfigError
from shapecheck.engine import Engine
from shapecheck.files import excluded
from shapecheck.parsing import SourceDecodeError, decode
from shapecheck.project import ProjectIndex
from shapecheck.results import FileResult, Report

STDIN = "-"


def stdin_path(paths: list[str], filename: str | None) -> str | None:
    """The path stdin's text is checked as (`-` without `--stdin-filename`), or None when the
    run checks files. Raises ConfigError when stdin is mixed with paths."""
    if filename is None and STDIN not in paths:
        return None
    if any(path != STDIN for path in paths):
        raise ConfigError("stdin is checked alone: give `-` (or no path) with --stdin-filename, "
                          f"not {', '.join(repr(p) for p in paths if p != STDIN)}")
    if filename is not None and Path(filename).is_dir():
        raise ConfigError(f"--stdin-filename names a folder ({filename}); give the file the text is for")
    return filename or STDIN


def check_stdin(path: str, config: Config, stream: BinaryIO | None = None) -> tuple[Report, str] | None:
    """Check the text on `stream` (stdin) as the file `path`: the report and the text checked
    (which output formats quote in place of the file's); None when `path` is excluded.

    The text is decoded as a file's would be (BOM, PEP 263 line, UTF-8); text that cannot be
    decoded is an error for that file, as for a file on disk.
    """
    data = (stream or sys.stdin.buffer).read()
    if path != STDIN and excluded(path, config):
        return None
    try:
        text = decode(data)
    except SourceDecodeError as error:
        return Report([FileResult(path, (), (), f"cannot decode file: {error}")]), ""
    engine = Engine(config, ProjectIndex.of([path], [config.root]))
    return Report([engine.analyze(path, text)]), text
