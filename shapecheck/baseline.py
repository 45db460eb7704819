"""`shapecheck check --baseline FILE`: the diagnostics a codebase has today, kept in a file, so that
only new ones are reported (the alternative to `--add-noqa` that leaves the sources as they are).

An entry is keyed by the file's path relative to the project root, the code and a fingerprint:
GitLab's (formats/gitlab.py), which hashes the path, code, message and the diagnostic's rank
among the identical ones of its file, never its line. A diagnostic keeps its entry when code
above it moves; a second identical one in a file is new. The file is JSON, sorted, one entry a
line, so that its diffs review well.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from shapecheck.config import ConfigError
from shapecheck.diagnostic import INCOMPLETE, NOT_CHECKED, Diagnostic
from shapecheck.formats.gitlab import keys, relative_path

VERSION = 1


@dataclass(frozen=True, slots=True)
class Entry:
    path: str
    code: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class Filtered:
    """What a baseline leaves of a run: the new diagnostics, and how many entries are gone."""

    diagnostics: tuple[Diagnostic, ...]
    baselined: int
    fixed: int  # entries that no diagnostic matches any more: the baseline can shrink


def entries(diagnostics: Sequence[Diagnostic], root: Path) -> list[tuple[Entry, Diagnostic]]:
    return [(Entry(path, d.code, fingerprint), d) for (path, fingerprint), d in zip(keys(diagnostics, root),
                                                                                  diagnostics, strict=True)]


def write(file: Path, diagnostics: Sequence[Diagnostic], root: Path) -> int:
    """Write the baseline of `diagnostics`; the number of entries. A file that was not checked
    (SC000, SC005) has no entry: its diagnostics are not known, so none can be accepted."""
    kept = [(entry, d) for entry, d in entries(diagnostics, root) if d.code not in INCOMPLETE]
    rows = sorted({entry: d.message for entry, d in kept}.items(),
                  key=lambda item: (item[0].path, item[0].code, item[0].fingerprint))
    lines = [json.dumps({"path": e.path, "code": e.code, "fingerprint": e.fingerprint, "message": message},
                        ensure_ascii=False) for e, message in rows]
    body = ",\n    ".join(lines)
    text = (f'{{\n  "version": {VERSION},\n  "tool": "shapecheck",\n  "diagnostics": [\n    {body}\n  ]\n}}\n'
            if lines else f'{{\n  "version": {VERSION},\n  "tool": "shapecheck",\n  "diagnostics": []\n}}\n')
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, encoding="utf-8")
    return len(rows)


def read(file: Path) -> frozenset[Entry]:
    """The entries of a baseline file; a file that is not one is a usage error."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        if data.get("version") != VERSION:
            raise ValueError(f"version {data.get('version')!r}, not {VERSION}")
        return frozenset(Entry(str(item["path"]), str(item["code"]), str(item["fingerprint"]))
                         for item in data["diagnostics"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ConfigError(f"{file} is not a shapecheck baseline ({error}); delete it to write a new "
                          "one, or pass --update-baseline") from error


def apply(baseline: frozenset[Entry], diagnostics: Sequence[Diagnostic], root: Path,
          checked: Sequence[str]) -> Filtered:
    """The diagnostics `baseline` does not hold (a file not checked is always kept); `fixed`
    counts the entries of the `checked` files that no diagnostic matches any more."""
    kept = []
    seen: set[Entry] = set()
    for entry, d in entries(diagnostics, root):
        if entry in baseline and d.code != NOT_CHECKED:
            seen.add(entry)
        else:
            kept.append(d)
    paths = {relative_path(path, root) for path in checked}
    fixed = sum(1 for entry in baseline - seen if entry.path in paths)
    return Filtered(tuple(kept), len(diagnostics) - len(kept), fixed)
