"""`--format sarif`: SARIF 2.1.0 for code-scanning dashboards (GitHub's upload-sarif and others).

Locations are URIs relative to the uriBaseId `%SRCROOT%`, the project root (the folder of the
pyproject.toml in use), percent-encoded as RFC 3986 wants (`sub dir/my prog.py` is
`sub%20dir/my%20prog.py`); the root itself is left to the consumer (GitHub resolves it to the
checkout), so the log is the same on every machine. A file outside the root gets an absolute
`file:` URI. Columns count Unicode code points, as Python's `str` does, and the run says so
(`columnKind`): SARIF's default would be UTF-16 code units, which differ on any character
outside the Basic Multilingual Plane.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from shapecheck.diagnostic import Diagnostic, Severity, Span
from shapecheck.formats.locations import project_relative, shown

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
ROOT_ID = "%SRCROOT%"

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def _region(span: Span) -> dict[str, int]:
    return {"startLine": span.line, "startColumn": span.column + 1,
            "endLine": span.end_line, "endColumn": span.end_column + 1}


def artifact_location(path: str, root: Path) -> dict[str, str]:
    relative = project_relative(path, root)
    if relative is None:
        return {"uri": Path(os.path.abspath(path)).as_uri()}
    # The name's bytes, percent-encoded: a name that is not UTF-8 keeps every byte (`%FF`).
    return {"uri": quote(os.fsencode(str(relative)), safe="/"), "uriBaseId": ROOT_ID}


def _location(path: str, span: Span, root: Path, message: str | None = None) -> dict[str, Any]:
    location: dict[str, Any] = {
        "physicalLocation": {"artifactLocation": artifact_location(path, root), "region": _region(span)}
    }
    if message is not None:
        location["message"] = {"text": shown(message)}
    return location


@cache
def documentation_url() -> str | None:
    """The docs site declared in the installed package's metadata (`[project.urls]
    Documentation`), ending in `/`; None when none is declared: helpUri is then left out
    rather than pointing at a guess."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        urls = metadata("shapecheck").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = str(entry).partition(",")
        if label.strip().lower() in ("documentation", "docs") and url.strip():
            return url.strip().rstrip("/") + "/"
    return None


def rule_page(code: str) -> str:
    """A rule's page in the docs site (docs/rules/, generated from rules/)."""
    return f"rules/{code.lower()}/"


def _rules() -> list[dict[str, Any]]:
    from shapecheck.rules import RULES

    docs = documentation_url()
    rules = []
    for rule in RULES.values():
        entry: dict[str, Any] = {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.why},
            "help": {"text": rule.explain()},
            "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        }
        if docs is not None:
            entry["helpUri"] = docs + rule_page(rule.code)
        rules.append(entry)
    return rules


def render(diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None,
           texts: Mapping[str, str] | None = None) -> str:
    from shapecheck import __version__

    root = root or Path.cwd()
    rules = _rules()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for d in diagnostics:
        result: dict[str, Any] = {
            "ruleId": d.code,
            "level": _LEVEL[d.severity],
            "message": {"text": shown(d.message)},
            "locations": [_location(d.path, d.span, root)],
        }
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        if d.notes:
            result["relatedLocations"] = [
                {"id": i, **_location(n.path, n.span, root, n.message)} for i, n in enumerate(d.notes)
            ]
        results.append(result)
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "shapecheck", "version": __version__, "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"
