"""`shapecheck check --add-noqa`: a `# shapecheck: ignore[CODE]` comment on every line that has
a diagnostic today, so that a team can turn the check on in CI at once and fix the backlog later.

A line that has a suppression comment gets the codes merged into it; a line without one gets
`  # shapecheck: ignore[...]` at its end (after any other comment). No line is ever broken or
joined: a diagnostic whose first line ends inside a string or a backslash continuation is
suppressed on its last line, as `is_suppressed` reads both; one that can be suppressed on
neither is counted and left reported. Files are written back in their own encoding and line
endings, and only when they change.
"""

from __future__ import annotations

import io
import sys
import tokenize
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic
from shapecheck.positions import NEWLINE
from shapecheck.suppression import ALL, directives

# Codes a comment cannot or should not silence: a file not checked is not a rule, a file that
# does not parse has no comments to read, and an unused suppression wants deleting, not another.
_NOT_SUPPRESSIBLE = frozenset({Code.NOT_CHECKED, Code.SYNTAX_ERROR, Code.UNUSED_SUPPRESSION})


@dataclass(slots=True)
class Added:
    """What `--add-noqa` did: the codes added, the files changed, what could not be silenced."""

    codes: int = 0
    files: list[str] = field(default_factory=list)
    left: list[Diagnostic] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def add_noqa(diagnostics: Sequence[Diagnostic]) -> Added:
    """Write the suppression comments that silence `diagnostics`, file by file."""
    added = Added()
    by_path: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in diagnostics:
        if d.code in _NOT_SUPPRESSIBLE:
            continue
        by_path[d.path].append(d)
    for path, found in sorted(by_path.items()):
        try:
            data = Path(path).read_bytes()
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            text = data.decode(encoding)
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as error:
            added.failed.append(f"{path}: cannot read file: {error}")
            continue
        new, count, left = with_suppressions(text, found)
        added.left.extend(left)
        if new == text:
            continue
        try:
            Path(path).write_bytes(new.encode(encoding))
        except (OSError, UnicodeEncodeError) as error:
            added.failed.append(f"{path}: cannot write file: {error}")
            continue
        added.codes += count
        added.files.append(path)
    return added


def with_suppressions(text: str, diagnostics: Iterable[Diagnostic]) -> tuple[str, int, list[Diagnostic]]:
    """`text` with each diagnostic's code added to a suppression comment on its line: the new
    text, the number of codes added, and the diagnostics no comment can reach."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return text, 0, list(diagnostics)
    lines = _lines(text)
    inside = _lines_ending_inside_a_token(tokens)
    existing = {d.line: d for d in directives(text)}
    wanted: dict[int, set[str]] = defaultdict(set)
    left = []
    for d in diagnostics:
        line = next((n for n in dict.fromkeys((d.span.line, d.span.end_line))
                     if 0 < n <= len(lines) and n not in inside
                     and not lines[n - 1][0].rstrip().endswith("\\")), None)
        if line is None:
            left.append(d)
            continue
        directive = existing.get(line)
        if directive is not None and (directive.codes is ALL or d.code in directive.codes):
            continue  # already silenced (the result came from before the comment was written)
        wanted[line].add(d.code)
    count = 0
    for line, codes in wanted.items():
        content, ending = lines[line - 1]
        directive = existing.get(line)
        if directive is None:
            stripped = content.rstrip()
            content = f"{stripped}  # shapecheck: ignore[{', '.join(sorted(codes))}]{content[len(stripped):]}"
        else:
            merged = ", ".join([*directive.written, *sorted(codes - directive.codes)])
            span = directive.span
            content = f"{content[:span.column]}# shapecheck: ignore[{merged}]{content[span.end_column:]}"
        lines[line - 1] = (content, ending)
        count += len(codes)
    return "".join(content + ending for content, ending in lines), count, left


def _lines(text: str) -> list[tuple[str, str]]:
    """Each line of `text` with its own line ending ("" for the last), as Python counts lines."""
    out = []
    start = 0
    for match in NEWLINE.finditer(text):
        out.append((text[start:match.start()], match.group()))
        start = match.end()
    out.append((text[start:], ""))
    return out


def _lines_ending_inside_a_token(tokens: list[tokenize.TokenInfo]) -> set[int]:
    """Lines where a token (a triple-quoted string, an f-string) goes on past the line's end: a
    comment added there would be text."""
    inside: set[int] = set()
    for t in tokens:
        if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.DEDENT, tokenize.INDENT):
            inside.update(range(t.start[0], t.end[0]))
    return inside


def report(added: Added) -> None:
    """Say what was done, on stderr (stdout stays empty: nothing was checked for a report)."""
    for failure in added.failed:
        sys.stderr.write(f"shapecheck: {failure}\n")
    files = len(added.files)
    sys.stderr.write(f"Added {added.codes} suppression{'s' if added.codes != 1 else ''} "
                     f"in {files} file{'s' if files != 1 else ''}.\n")
    for d in added.left:
        sys.stderr.write(f"shapecheck: {d.path}:{d.span.line}: {d.code} cannot be suppressed by a comment "
                         "(its lines end inside a string or continue with a backslash)\n")
