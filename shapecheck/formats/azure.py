"""`--format azure`: Azure Pipelines logging commands, one `##vso[task.logissue ...]` per
diagnostic, which the pipeline shows as errors and warnings on the run's summary (as ruff
writes them). The properties are escaped as the agent unescapes them (`;` `]` `%` and line ends).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from shapecheck.diagnostic import Diagnostic, Severity
from shapecheck.formats.locations import shown

_TYPE = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "warning"}


def _property(text: str) -> str:
    return (text.replace("%", "%AZP25").replace(";", "%3B").replace("\r", "%0D").replace("\n", "%0A")
            .replace("]", "%5D"))


def _message(text: str) -> str:
    return text.replace("%", "%AZP25").replace("\r", "%0D").replace("\n", "%0A")


def render(diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None,
           texts: Mapping[str, str] | None = None) -> str:
    lines = []
    for d in diagnostics:
        notes = "".join(f"\nnote: {n.message} ({n.path}:{n.span.line})" for n in d.notes)
        lines.append(
            f"##vso[task.logissue type={_TYPE[d.severity]};sourcepath={_property(shown(d.path))};"
            f"linenumber={d.span.line};columnnumber={d.span.column + 1};code={d.code};]"
            f"{_message(shown(d.message + notes))}")
    return "".join(line + "\n" for line in lines)
