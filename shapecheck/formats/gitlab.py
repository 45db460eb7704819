"""`--format gitlab`: a GitLab Code Quality report (the merge-request widget's JSON array).

Each issue has GitLab's required keys: `description`, `check_name`, `fingerprint`, `severity`
and `location` (`path` relative to the project root, `lines.begin`). The fingerprint is what
GitLab compares between the base and head pipelines to show new and fixed issues, and it keeps
only the first issue of each fingerprint. It hashes the path, the code, the message and the
issue's rank among the identical ones of its file, never the line: a finding keeps its
fingerprint when the code above it moves, and two identical findings in one file still differ.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from shapecheck.diagnostic import INCOMPLETE, Diagnostic, Severity
from shapecheck.formats.locations import project_relative, shown

# GitLab's scale is info < minor < major < critical < blocker. A finding is a bug in the checked
# program (major); a file that could not be checked at all hides every finding in it (critical).
_SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.NOTE: "info"}
_UNCHECKED = "critical"


def _fingerprint(path: str, d: Diagnostic, occurrence: int) -> str:
    key = "\0".join((path, d.code, d.message, str(occurrence)))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def relative_path(path: str, root: Path) -> str:
    """A diagnostic's path as the report names it: relative to the project root where it can be."""
    relative = project_relative(path, root)
    return shown(str(relative) if relative is not None else Path(path).as_posix())


def keys(diagnostics: Sequence[Diagnostic], root: Path) -> list[tuple[str, str]]:
    """(path, fingerprint) of each diagnostic: what identifies it across runs (also the key of
    a baseline, baseline.py)."""
    seen: Counter[tuple[str, str, str]] = Counter()
    out = []
    for d in diagnostics:
        path = relative_path(d.path, root)
        seen[path, d.code, d.message] += 1
        out.append((path, _fingerprint(path, d, seen[path, d.code, d.message])))
    return out


def issues(diagnostics: Sequence[Diagnostic], root: Path) -> list[dict[str, Any]]:
    out = []
    for d, (path, fingerprint) in zip(diagnostics, keys(diagnostics, root), strict=True):
        notes = "".join(f"\nnote: {n.message} ({n.path}:{n.span.line})" for n in d.notes)
        out.append({
            "type": "issue",
            "check_name": d.code,
            "description": shown(f"{d.code} {d.message}{notes}"),
            "severity": _UNCHECKED if d.code in INCOMPLETE else _SEVERITY[d.severity],
            "fingerprint": fingerprint,
            "location": {"path": path, "lines": {"begin": d.span.line, "end": d.span.end_line}},
        })
    return out


def render(diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None,
           texts: Mapping[str, str] | None = None) -> str:
    return json.dumps(issues(diagnostics, root or Path.cwd()), indent=2) + "\n"
