"""Our diagnostics as LSP diagnostics: code, severity, notes as related information, docs link."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from pathlib import Path

from lsprotocol import types

from shapecheck.diagnostic import Diagnostic, Severity
from shapecheck.lsp.positions import Lines

SOURCE = "shapecheck"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.NOTE: types.DiagnosticSeverity.Information,
}


@cache
def docs_uri(code: str) -> str | None:
    """Where a rule's docs live: the page SARIF's helpUri names when the package declares its
    docs site; otherwise the installed rule module (its RULE holds the What / Why / Example /
    Use instead text `shapecheck explain` prints). None for a code without a rule (SC000)."""
    from shapecheck.formats.sarif import documentation_url, rule_page
    from shapecheck.rules import get_rule

    rule = get_rule(code)
    if rule is None:
        return None
    site = documentation_url()
    if site is not None:
        return site + rule_page(rule.code)
    try:
        module = importlib.import_module(f"shapecheck.rules.{code.lower()}_{rule.name.replace('-', '_')}")
    except ImportError:
        return None
    file = getattr(module, "__file__", None)
    return Path(file).resolve().as_uri() if file else None


def to_lsp(diagnostic: Diagnostic, lines: Lines, uri_of: Callable[[str], str],
           lines_of: Callable[[str], Lines]) -> types.Diagnostic:
    """One diagnostic of the buffer `lines`; its notes may point into other files (`lines_of`)."""
    href = docs_uri(diagnostic.code)
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri_of(note.path), range=lines_of(note.path).range(note.span)),
            message=note.message,
        )
        for note in diagnostic.notes
    ]
    return types.Diagnostic(
        range=lines.range(diagnostic.span),
        message=diagnostic.message,
        severity=_SEVERITY.get(diagnostic.severity, types.DiagnosticSeverity.Error),
        code=str(diagnostic.code),
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        related_information=related or None,
    )
