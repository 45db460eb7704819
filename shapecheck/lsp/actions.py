"""Code actions: silence a diagnostic on its line; apply the fix its rule offers; write the
inferred type as an annotation."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Sequence

from lsprotocol import types

from shapecheck.codemods.annotations import annotation_text
from shapecheck.diagnostic import Diagnostic, Span
from shapecheck.lsp.analysis import Analysis
from shapecheck.lsp.assignments import parse, partition_spec_name
from shapecheck.lsp.positions import Lines
from shapecheck.positions import NEWLINE

# The directive's syntax is defined once, where suppressions are read.
from shapecheck.suppression import _PATTERN as DIRECTIVE
from shapecheck.suppression import ALL, suppressions
from shapecheck.types import ArrayType


def code_actions(analysis: Analysis, visible: types.Range, encoding: str,
                 client_diagnostics: Sequence[types.Diagnostic]) -> list[types.CodeAction]:
    lines = Lines(analysis.buffer.text, encoding)
    first, _ = lines.column(visible.start)
    last, _ = lines.column(visible.end)
    actions: list[types.CodeAction] = []
    seen: set[tuple[int, str]] = set()
    for diagnostic in analysis.result.diagnostics:
        if diagnostic.span.end_line < first or diagnostic.span.line > last:
            continue
        edit = suppression_edit(analysis.buffer.text, diagnostic)
        if edit is None or (edit[0].line, diagnostic.code) in seen:
            continue
        seen.add((edit[0].line, diagnostic.code))
        related = [d for d in client_diagnostics if d.code == diagnostic.code
                   and d.range.start.line + 1 <= diagnostic.span.end_line
                   and diagnostic.span.line <= d.range.end.line + 1]
        actions.append(_action(f"Suppress {diagnostic.code} on this line", analysis, lines,
                               [edit], related or None))
        fixed = _rule_fix(analysis.buffer.text, diagnostic)
        if fixed is not None:
            actions.append(_action(fixed[0], analysis, lines, [fixed[1]], related or None))
    actions.extend(_annotations(analysis, lines, first, last))
    return actions


def _rule_fix(text: str, diagnostic: Diagnostic) -> tuple[str, tuple[Span, str]] | None:
    """The fix the diagnostic's rule offers (`shapecheck.fixes`), as one edit of the span it
    changes: its title and (span, new text)."""
    from shapecheck.fixes import Source, _replaced, fixers, fixes

    if diagnostic.code not in fixers():
        return None
    source = Source.parse(diagnostic.path, text)
    if source is None:
        return None
    found = fixes(source, [diagnostic])
    if not found:
        return None
    _, fix = found[0]
    new = _replaced(source.module, dict(fix.replacements)).code
    start = 0
    while start < min(len(text), len(new)) and text[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(text), len(new)) - start and text[-1 - end] == new[-1 - end]:
        end += 1
    return fix.title, (_span_of(text, start, len(text) - end), new[start:len(new) - end])


def _span_of(text: str, start: int, end: int) -> Span:
    """The span of `text[start:end]` (1-based lines, 0-based columns in characters)."""
    def place(offset: int) -> tuple[int, int]:
        line = text.count("\n", 0, offset) + 1
        return line, offset - (text.rfind("\n", 0, offset) + 1)

    (line, column), (end_line, end_column) = place(start), place(end)
    return Span(line, column, end_line, end_column)


def _action(title: str, analysis: Analysis, lines: Lines, edits: list[tuple[Span, str]],
            diagnostics: list[types.Diagnostic] | None = None) -> types.CodeAction:
    text_edits: list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit] = [
        types.TextEdit(range=lines.range(span), new_text=new) for span, new in edits]
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=diagnostics,
        edit=types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(
                uri=analysis.buffer.uri, version=analysis.buffer.version),
            edits=text_edits,
        )]),
    )


def suppression_edit(text: str, diagnostic: Diagnostic) -> tuple[Span, str] | None:
    """The edit that adds `diagnostic`'s code to the suppression comment of its line (or of its
    last line, where the first ends inside a string or a backslash continuation); None where
    no comment can go, or a bare ignore already silences everything."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    source = NEWLINE.split(text)
    for line in dict.fromkeys((diagnostic.span.line, diagnostic.span.end_line)):
        if not 0 < line <= len(source) or source[line - 1].rstrip().endswith("\\"):
            continue
        if any(t.start[0] <= line < t.end[0] for t in tokens
               if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.DEDENT, tokenize.INDENT)):
            continue  # the line ends inside a multi-line token: a comment there would be text
        return _comment_edit(source[line - 1], line, tokens, text, diagnostic.code)
    return None


def _comment_edit(content: str, line: int, tokens: list[tokenize.TokenInfo], text: str,
                  code: str) -> tuple[Span, str] | None:
    comment = next((t for t in tokens if t.type == tokenize.COMMENT and t.start[0] == line), None)
    match = DIRECTIVE.search(comment.string) if comment is not None else None
    if comment is None or match is None:
        end = len(content.rstrip())
        return Span(line, end, line, len(content)), f"  # shapecheck: ignore[{code}]"
    codes = suppressions(text).get(line, frozenset())
    if codes is ALL or "*" in codes:
        return None
    merged = ", ".join(sorted(codes | {code}))
    start = comment.start[1] + match.start()
    return Span(line, start, line, comment.start[1] + match.end()), f"# shapecheck: ignore[{merged}]"


def annotation(value: ArrayType, names: frozenset[str], spec: str | None = None) -> str | None:
    """The annotation that says exactly `value`, where every part of it is known; its split
    over Explicit mesh axes too where `spec` names jax's PartitionSpec in the module."""
    known = (value.dtype is not None and value.dtype in names and value.ellipsis is None
             and not value.named_open and not value.weak
             and all(type(size) is int
                     for size in (*value.dims, *(size for _, size in value.named))))
    return annotation_text(value, spec) if known else None


def _annotations(analysis: Analysis, lines: Lines, first: int, last: int) -> list[types.CodeAction]:
    syntax = analysis.syntax
    if syntax is None:
        return []
    actions: list[types.CodeAction] = []
    spec: tuple[str, int] | None = None
    looked = False
    for assignment, typed in syntax.assignments:
        if typed is None or not assignment.single or not first <= assignment.target.line <= last:
            continue
        value = typed.type
        sharding = value.sharding
        if not looked and sharding is not None and sharding.known and sharding.split:
            # Read (a walk of the module) only when a value in view is split.
            tree = parse(analysis.buffer.text)
            spec = partition_spec_name(tree) if tree is not None else None
            looked = True
        name = spec[0] if spec is not None and spec[1] < assignment.target.line else None
        text = annotation(value, analysis.config.annotation_names, name)
        if text is None or value.dtype is None:
            continue
        target = assignment.target
        edits = [(Span(target.end_line, target.end_column, target.end_line, target.end_column), f": {text}")]
        if value.dtype not in syntax.bound:
            at = syntax.import_line
            edits.insert(0, (Span(at, 0, at, 0), f"from shapecheck import {value.dtype}\n"))
        actions.append(_action(f"Annotate {assignment.name} with {text}", analysis, lines, edits))
    return actions
