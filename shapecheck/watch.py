"""`shapecheck check --watch`: check, then check again whenever a file changes, printing only what
changed: each diagnostic that appeared (`+`) or went away (`-`), then a summary line.

Changes are found by polling the files' `stat` signatures (no dependency, and it works on every
file system, network mounts included); the folders are walked again each time, so new files are
seen. A diagnostic is the same one across runs when its path, code and GitLab fingerprint are
(formats/gitlab.py): code that only moves is not a change. The result cache makes each re-check
cost about the changed files.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from shapecheck.diagnostic import Diagnostic
from shapecheck.formats.gitlab import keys
from shapecheck.formats.locations import one_line, shown
from shapecheck.results import Report

INTERVAL_S = float(os.environ.get("SHAPECHECK_WATCH_INTERVAL", "0.5"))


def _line(sign: str, d: Diagnostic) -> str:
    return f"{sign} {shown(d.path)}:{d.span.line}:{d.span.column + 1}: {d.code} {one_line(shown(d.message))}\n"


def _signatures(files: Sequence[str]) -> dict[str, tuple[int, int, int]]:
    out = {}
    for path in files:
        try:
            stat = os.stat(path)
        except OSError:
            continue
        out[path] = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
    return out


def changes(before: Sequence[Diagnostic], after: Sequence[Diagnostic], root: Path) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(appeared, went away) between two runs; a diagnostic that only moved is neither."""
    old = dict(zip(((d.code, *key) for d, key in zip(before, keys(before, root), strict=True)), before, strict=True))
    new = dict(zip(((d.code, *key) for d, key in zip(after, keys(after, root), strict=True)), after, strict=True))
    return [d for key, d in new.items() if key not in old], [d for key, d in old.items() if key not in new]


def watch(discover: Callable[[], list[str]], check: Callable[[list[str]], Report], root: Path,
          out: TextIO | None = None, interval: float = INTERVAL_S, runs: int | None = None) -> int:
    """Check, print every diagnostic, then print only the changes after each change of a file,
    until interrupted (or `runs` checks, for tests). Exit 0 when stopped with Ctrl-C."""
    out = out or sys.stdout
    try:
        files = discover()
        signatures = _signatures(files)
        report = check(files)
        previous = report.diagnostics
        out.writelines(_line("+", d) for d in previous)
        _summary(out, len(previous), len(previous), 0, len(files))
        done = 1
        while runs is None or done < runs:
            time.sleep(interval)
            files = discover()
            now = _signatures(files)
            if now == signatures:
                continue
            signatures = now
            report = check(files)
            current = report.diagnostics
            appeared, gone = changes(previous, current, root)
            out.writelines(_line("-", d) for d in gone)
            out.writelines(_line("+", d) for d in appeared)
            _summary(out, len(current), len(appeared), len(gone), len(files))
            previous = current
            done += 1
    except KeyboardInterrupt:
        return 0
    return 0


def _summary(out: TextIO, total: int, appeared: int, gone: int, files: int) -> None:
    out.write(f"[{time.strftime('%H:%M:%S')}] {total} diagnostic{'s' if total != 1 else ''} in {files} "
              f"file{'s' if files != 1 else ''} ({appeared} new, {gone} gone); watching for changes\n")
    out.flush()
