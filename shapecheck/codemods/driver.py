"""Running a codemod over files: read, rewrite, then write, show a diff, or only report.

A file that cannot be read, decoded or parsed gets a message and is left as it is; the other
files are still processed. A file is written back in the encoding it was read in (its BOM or
PEP 263 line kept), and only when its text changed.
"""

from __future__ import annotations

import difflib
import io
import sys
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TextIO

from shapecheck.config import Config
from shapecheck.diagnostic import Diagnostic
from shapecheck.exits import EXIT_ERROR
from shapecheck.files import discover, read_regular
from shapecheck.parsing import SourceDecodeError, cpython_syntax, decode

EXIT_DONE = 0
EXIT_CHANGES_OR_LEFT = 1  # --check found files to change, or something was left with a message


@dataclass(slots=True)
class Rewrite:
    """A codemod's answer for one file: its new text, and messages about what it left alone.

    `incomplete`: something the codemod was meant to rewrite is left as written (exit 1).
    """

    text: str
    messages: list[str] = field(default_factory=list)
    incomplete: bool = False


class CannotRewrite(Exception):
    """The file is left exactly as it is, for the reason given."""


# (path, text) -> the rewritten text; raises CannotRewrite to leave the file alone.
Transform = Callable[[str, str], Rewrite]


class Mode(Enum):
    WRITE = "write"
    DIFF = "diff"  # a unified diff on stdout, nothing written
    CHECK = "check"  # nothing written or shown; the exit status says whether anything would change


@dataclass(slots=True)
class Summary:
    changed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)


def run(paths: Sequence[str], transform: Transform, mode: Mode, config: Config, *,
        command: str, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Apply `transform` to every Python file under `paths`; the exit status.

    0: done (or nothing to do). 1: with CHECK, some file would change; or some part of a file
    was left alone with a message. 2: a path does not exist, or a file could not be processed.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        err.write(f"shapecheck {command}: error: no such file or directory: {', '.join(missing)}\n")
        return EXIT_ERROR
    summary = Summary()
    for path in discover(paths, config):
        _one(str(path), transform, mode, summary, out, err, command)
    verb = {Mode.WRITE: "rewrote", Mode.DIFF: "would rewrite", Mode.CHECK: "would rewrite"}[mode]
    err.write(f"shapecheck {command}: {verb} {len(summary.changed)} file(s)"
              + (f", {len(summary.failed)} could not be processed" if summary.failed else "") + "\n")
    if summary.failed:
        return EXIT_ERROR
    if (mode is Mode.CHECK and summary.changed) or summary.incomplete:
        return EXIT_CHANGES_OR_LEFT
    return EXIT_DONE


def _one(path: str, transform: Transform, mode: Mode, summary: Summary, out: TextIO, err: TextIO,
         command: str) -> None:
    try:
        data = read_regular(path)
        text = decode(data)
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except OSError as error:
        return _failed(summary, err, command, path, f"cannot read file: {error.strerror or error}")
    except (SourceDecodeError, SyntaxError) as error:
        return _failed(summary, err, command, path, f"cannot decode file: {error}")
    try:
        rewrite = rewrite_text(path, text, transform)
    except CannotRewrite as error:
        return _failed(summary, err, command, path, str(error))
    for message in rewrite.messages:
        err.write(f"{path}: {message}\n")
    if rewrite.incomplete:
        summary.incomplete.append(path)
    if rewrite.text == text:
        return None
    summary.changed.append(path)
    if mode is Mode.DIFF:
        out.writelines(difflib.unified_diff(text.splitlines(keepends=True),
                                            rewrite.text.splitlines(keepends=True),
                                            path, path))
    elif mode is Mode.WRITE:
        try:
            Path(path).write_bytes(rewrite.text.encode(encoding))
        except (OSError, UnicodeEncodeError) as error:
            return _failed(summary, err, command, path, f"cannot write file: {error}")
    return None


def rewrite_text(path: str, text: str, transform: Transform) -> Rewrite:
    """`transform` on a file's text, refused (CannotRewrite) where CPython cannot parse it."""
    tree = cpython_syntax(path, text)
    if isinstance(tree, Diagnostic):
        raise CannotRewrite(f"not rewritten: the file does not parse (line {tree.span.line}: {tree.message})")
    return transform(path, text)


def _failed(summary: Summary, err: TextIO, command: str, path: str, message: str) -> None:
    summary.failed.append(path)
    err.write(f"{path}: {message}\n")
