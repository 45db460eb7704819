"""`--format sarif`: SARIF 2.1.0 for code-scanning dashboards."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shapecheck.diagnostic import Diagnostic, Span

_LEVEL = {"error": "error", "warning": "warning", "note": "note"}


def _region(span: Span) -> dict[str, int]:
    return {"startLine": span.line, "startColumn": span.column + 1,
            "endLine": span.end_line, "endColumn": span.end_column + 1}


def _location(path: str, span: Span, message: str | None = None) -> dict[str, Any]:
    location: dict[str, Any] = {
        "physicalLocation": {"artifactLocation": {"uri": Path(path).as_posix()}, "region": _region(span)}
    }
    if message is not None:
        location["message"] = {"text": message}
    return location


def render(diagnostics: Sequence[Diagnostic], files: int) -> str:
    from shapecheck import __version__
    from shapecheck.rules import RULES

    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.why},
            "help": {"text": rule.explain()},
        }
        for rule in RULES.values()
    ]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for d in diagnostics:
        result: dict[str, Any] = {
            "ruleId": d.code,
            "level": _LEVEL[d.severity.value],
            "message": {"text": d.message},
            "locations": [_location(d.path, d.span)],
        }
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        if d.notes:
            result["relatedLocations"] = [
                {"id": i, **_location(n.path, n.span, n.message)} for i, n in enumerate(d.notes)
            ]
        results.append(result)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "shapecheck", "version": __version__, "rules": rules}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"
