"""`--format json`: one JSON array of diagnostics with 1-based lines and columns."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from shapecheck.diagnostic import Diagnostic, Span
from shapecheck.formats.locations import shown


def _position(span: Span) -> dict[str, int]:
    return {"line": span.line, "column": span.column + 1,
            "end_line": span.end_line, "end_column": span.end_column + 1}


def as_dict(d: Diagnostic) -> dict[str, Any]:
    return {
        "path": shown(d.path),
        **_position(d.span),
        "code": d.code,
        "message": shown(d.message),
        "severity": d.severity.value,
        "notes": [{"path": shown(n.path), **_position(n.span), "message": shown(n.message)} for n in d.notes],
    }


def render(diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None,
           texts: Mapping[str, str] | None = None) -> str:
    return json.dumps([as_dict(d) for d in diagnostics], indent=2) + "\n"
