"""Our diagnostics as LSP diagnostics: code, severity, notes as related information, docs link."""

from __future__ import annotations

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
    docs site; otherwise the rule's page as `shapecheck explain` writes it (What it does / Why
    is this bad? / Example / Use instead), a Markdown file in the user's cache that editors open
    and preview. None for a code without a rule (SC000)."""
    from shapecheck.formats.sarif import documentation_url, rule_page
    from shapecheck.rules import get_rule

    rule = get_rule(code)
    if rule is None:
        return None
    site = documentation_url()
    if site is not None:
        return site + rule_page(rule.code)
    page = _rules_folder() / f"{rule.code.lower()}.md"
    try:
        text = f"# {rule.explain()}"
        if not page.is_file() or page.read_text(encoding="utf-8") != text:
            from shapecheck.atomic import write_atomically

            page.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(page, text.encode("utf-8"))
    except OSError:
        return None
    return page.resolve().as_uri()


def _rules_folder() -> Path:
    """The folder of the rule pages, per version of shapecheck (its rules' text may differ)."""
    import os

    from shapecheck import __version__

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "shapecheck" / "rules" / __version__


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
