"""`# shapecheck: ignore[SC101]` comments: which codes each line silences, and which of them
silence nothing (SC006, unused-suppression)."""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic, Severity, Span

_PATTERN = re.compile(r"#\s*shapecheck:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)

ALL = frozenset({"*"})

_CODES = frozenset(Code)


@dataclass(frozen=True, slots=True)
class Directive:
    """One suppression comment: its line, the codes it names (`ALL` for a bare ignore), and
    the span of the directive inside the comment."""

    line: int
    codes: frozenset[str]
    span: Span
    written: tuple[str, ...] = ()  # the codes in the order written (for messages)


def directives(text: str) -> list[Directive]:
    """Every suppression comment of `text`, in order. Only real comments count (not strings)."""
    if "shapecheck:" not in text:
        return []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    found = []
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        match = _PATTERN.search(token.string)
        if not match:
            continue
        line, column = token.start
        span = Span(line, column + match.start(), line, column + match.end())
        codes = match.group("codes")
        if codes is None or not codes.strip():
            found.append(Directive(line, ALL, span))
            continue
        written = tuple(dict.fromkeys(code.strip().upper() for code in codes.split(",") if code.strip()))
        found.append(Directive(line, frozenset(written), span, written))
    return found


def suppressions(text: str) -> dict[int, frozenset[str]]:
    """Line -> codes silenced there (`ALL` for a bare ignore). Only real comments count."""
    return {d.line: d.codes for d in directives(text)}


def is_suppressed(table: dict[int, frozenset[str]], line: int, code: str) -> bool:
    codes = table.get(line)
    if code == Code.UNUSED_SUPPRESSION:
        # Only a comment that names SC006 keeps itself: a bare ignore that silences nothing
        # would otherwise silence the report that it silences nothing.
        return codes is not None and code in codes
    return codes is not None and (codes is ALL or "*" in codes or code in codes)


def unused(path: str, text: str, reported: Iterable[Diagnostic],
           enabled: Callable[[str], bool]) -> list[Diagnostic]:
    """SC006 for each suppression comment of `text` that silences nothing, or names a code that
    silences nothing, among the diagnostics `reported` (those of the file before suppression).

    A code that `enabled` turns off is not reported: a comment written for a run that selects
    it is not stale in a run that does not. SC006 itself never counts as unused.
    """
    found = directives(text)
    if not found:
        return []
    on_line: dict[int, set[str]] = {}
    for d in reported:
        for line in {d.span.line, d.span.end_line}:
            on_line.setdefault(line, set()).add(d.code)
    out = []
    for directive in found:
        here = on_line.get(directive.line, set())
        if directive.codes is ALL:
            if not here:
                out.append(_unused(path, directive, _NOTHING))
            continue
        unknown = [code for code in directive.written if code not in _CODES and code != "*"]
        stale = [code for code in directive.written if code in _CODES and code not in here
                 and code != Code.UNUSED_SUPPRESSION and enabled(code)]
        parts = []
        if stale:
            parts.append(", ".join(stale) + _NOT_REPORTED[len(stale) > 1])
        if unknown:
            parts.append(", ".join(unknown) + _UNKNOWN[len(unknown) > 1])
        if parts:
            out.append(_unused(path, directive, "; ".join(parts)))
    return out


_NOTHING = "nothing is reported on this line"
_NOT_REPORTED = (" is not reported on this line", " are not reported on this line")
_UNKNOWN = (" is not a shapecheck code", " are not shapecheck codes")


def unused_codes(message: str) -> frozenset[str]:
    """The codes an SC006 message names as unused (`ALL`: the whole comment), read back from the
    message `unused` writes (for its fix, rules/sc006_unused_suppression.py)."""
    why = message.split(": ", 1)[-1]
    if why == _NOTHING:
        return ALL
    codes: set[str] = set()
    for part in why.split("; "):
        for ending in (*_NOT_REPORTED, *_UNKNOWN):
            if part.endswith(ending):
                codes.update(code.strip() for code in part[:-len(ending)].split(","))
    return frozenset(codes)


def without(comment: str, codes: frozenset[str]) -> str | None:
    """The comment `comment` without the directive's `codes` (`ALL`: without the directive); None
    where nothing of the comment is left. Other text of the comment is kept."""
    match = _PATTERN.search(comment)
    if match is None:
        return comment
    written = match.group("codes")
    kept = ([] if codes is ALL or written is None or not written.strip()
            else [c.strip() for c in written.split(",") if c.strip() and c.strip().upper() not in codes])
    if kept:
        return f"{comment[:match.start()]}# shapecheck: ignore[{', '.join(kept)}]{comment[match.end():]}"
    rest = (comment[:match.start()].rstrip() + comment[match.end():].rstrip()).rstrip()
    if not rest.strip("# \t"):
        return None
    return rest if rest.startswith("#") else f"# {rest.lstrip()}"


def _unused(path: str, directive: Directive, why: str) -> Diagnostic:
    return Diagnostic(path, directive.span, Code.UNUSED_SUPPRESSION, f"unused suppression: {why}",
                      Severity.WARNING)
