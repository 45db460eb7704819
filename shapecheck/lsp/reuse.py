"""Findings reused while only a buffer's comments and layout change.

Typing in a comment, adding a blank line above a function, splitting a call over two lines:
the tree the engine interprets is the same, and so is what it finds; only the places move. So
each top-level statement is compared with its counterpart in the last analysis of the buffer,
by its text where that is unchanged (most of them) and else by its tokens, comments and line
breaks left out (the parentheses that tell `f32[(4,), {}]` from `f32[4, {}]` are tokens, unlike
in the tree). When every statement reads the same, and so do the project modules that analysis
read and what the interpretation reads of the text itself (`names_axes`), its findings and
types are moved to their places in the new text and filtered again by the settings and the new
suppression comments, as `analyze_text` filters them. Anything else is analysed in full, and so
is a text where a place cannot be moved (one that is not a token's edge in both texts).

An edit of the code itself is analysed in full, but parsed in part: where it lies within one
top-level statement's lines (a keystroke in a function body), that statement alone is parsed
and the rest of the tree is the last one's (`spliced`). Besides the parse, what the analysis
keeps per node (each signature read, each function's stored attributes) stays with the nodes
that the edit left alone.

Run in the checker's process (checker.py), one analysis at a time.
"""

from __future__ import annotations

import ast
import io
import logging
import os
import tokenize
from bisect import bisect_right
from dataclasses import dataclass, replace

from shapecheck.analysis import filtered, names_axes, source_size
from shapecheck.analyzer.summaries import Summaries
from shapecheck.bounds import AnalysisTimeout, run_bounded
from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic, Note, Span
from shapecheck.engine import Engine
from shapecheck.parsing import cpython_syntax
from shapecheck.positions import split_lines
from shapecheck.project import ModuleSource, content_hash
from shapecheck.results import FileResult, TypedSpan

log = logging.getLogger(__name__)

_NO_PLACE = Span(1, 0, 1, 0)  # where a finding at a node without a recorded place is shown
# The largest text whose tree is kept between analyses for `spliced`: a tree takes about 70 bytes
# of memory per character of its text, held while its buffer is open.
TREE_KEPT_CHARACTERS = 1_000_000
_LAYOUT = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.ENDMARKER})
_BARE = frozenset({tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE})  # their text is layout


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a module's top-level statements stand: first and last line of each (decorators
    included), and their text."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]
    texts: tuple[str, ...]


def layout(tree: ast.Module, lines: list[str]) -> Layout | None:
    """The layout of `tree`, parsed from `lines`; None where two statements share a line
    (`a = 1; b = 2`), which lines cannot tell apart."""
    starts: list[int] = []
    ends: list[int] = []
    for statement in tree.body:
        decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
        first = min([statement.lineno, *(d.lineno for d in decorators)])
        if ends and first <= ends[-1]:
            return None
        starts.append(first)
        ends.append(statement.end_lineno or statement.lineno)
    texts = tuple("\n".join(lines[first - 1:last]) for first, last in zip(starts, ends, strict=True))
    return Layout(tuple(starts), tuple(ends), texts)


@dataclass(frozen=True, slots=True)
class Tokens:
    """One statement's significant tokens: what it says, and where each but the line breaks
    and indentation starts and ends (line 1 is the statement's first line)."""

    said: tuple[tuple[int, str], ...]
    starts: tuple[tuple[int, int], ...]
    ends: tuple[tuple[int, int], ...]


def tokens(text: str) -> Tokens | None:
    """The tokens of a statement's text (None where the tokenizer refuses it alone)."""
    said: list[tuple[int, str]] = []
    starts: list[tuple[int, int]] = []
    ends: list[tuple[int, int]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in _LAYOUT:
                continue
            if token.type in _BARE:  # where it stands follows the comments before it; no node starts there
                said.append((token.type, ""))
                continue
            said.append((token.type, token.string))
            starts.append(token.start)
            ends.append(token.end)
    except (tokenize.TokenError, SyntaxError):
        return None
    return Tokens(tuple(said), tuple(starts), tuple(ends))


def spliced(tree: ast.Module, old: Layout, before: str, text: str,
            feature_version: tuple[int, int] | None = None) -> ast.Module | None:
    """CPython's tree of `text`, where it differs from `before` (whose tree is `tree`, laid out
    as `old`) only within the lines of one top-level statement: that statement parsed alone,
    the others taken from `tree`; None where it cannot be told so (parse the whole text).

    A statement starts on a fresh line at the top level and ends where its tokens close every
    bracket, so where its lines parse alone as one statement spanning all of them, the text
    around them tokenizes and parses as it did. The edited statement is a new node: the others
    are the same objects, which nothing changes (only `parse_module` would, for nesting past
    its bound, and a text that reached a bound keeps no tree). `from __future__` is left to the
    whole parse: only there can it be refused for its place.
    """
    lines = _changed_lines(before, text)
    if lines is None or lines[0] > lines[1]:
        return None
    first, end = lines
    index = bisect_right(old.starts, end) - 1
    if index < 0 or not old.starts[index] <= first or old.ends[index] < end or len(old.starts) != len(tree.body):
        return None
    start, stop = old.starts[index], old.ends[index]
    try:
        alone = ast.parse("\n".join(split_lines(text)[start - 1:stop]) + "\n", feature_version=feature_version)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(alone.body) != 1:
        return None
    statement = alone.body[0]
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    if (min([statement.lineno, *(d.lineno for d in decorators)]) != 1 or statement.end_lineno != stop - start + 1
            or (isinstance(statement, ast.ImportFrom) and statement.module == "__future__")):
        return None
    ast.increment_lineno(statement, start - 1)
    return ast.Module(body=[*tree.body[:index], statement, *tree.body[index + 1:]], type_ignores=[])


def _parse(last: _Last | None, engine: Engine, path: str, text: str) -> ast.Module | Diagnostic:
    """CPython's tree of `text`: the last analysis's tree with the edited statement parsed alone
    where `spliced` can, else the whole text parsed. The last tree was parsed for the last
    engine's target version: another engine (the settings were read again) parses it whole."""
    version = engine.config.target_version
    if last is not None and last.tree is not None and last.engine is engine:
        found = spliced(last.tree, last.layout, last.text, text, version)
        if found is not None:
            return found
    return cpython_syntax(path, text, version)


class Moves:
    """Where the places of an old text are in a new one whose statements read the same."""

    def __init__(self, old: Layout, new: Layout, old_tokens: list[Tokens | None],
                 new_tokens: list[Tokens | None]) -> None:
        self.old, self.new = old, new
        self._old_tokens, self._new_tokens = old_tokens, new_tokens  # None where the text is the same
        self._edges: dict[tuple[int, bool], dict[tuple[int, int], tuple[int, int]]] = {}
        # By old line: how far it moved, where its statement's text is unchanged (most lines).
        self._shift: list[int | None] = [None] * ((old.ends[-1] + 1) if old.ends else 0)
        for index, (first, last) in enumerate(zip(old.starts, old.ends, strict=True)):
            if old_tokens[index] is None:
                self._shift[first:last + 1] = [new.starts[index] - first] * (last + 1 - first)

    def span(self, span: Span) -> Span | None:
        line, end_line = span.line, span.end_line
        shift = self._shift[line] if 0 <= line < len(self._shift) else None
        if shift is not None and shift == (self._shift[end_line] if 0 <= end_line < len(self._shift) else None):
            return span if shift == 0 else Span(line + shift, span.column, end_line + shift, span.end_column)
        if span == _NO_PLACE:
            return span
        start = self._point(span.line, span.column, True)
        end = self._point(span.end_line, span.end_column, False)
        if start is None or end is None:
            return None
        return Span(start[0], start[1], end[0], end[1])

    def _point(self, line: int, column: int, start: bool) -> tuple[int, int] | None:
        shift = self._shift[line] if 0 <= line < len(self._shift) else None
        if shift is not None:
            return line + shift, column
        index = bisect_right(self.old.starts, line) - 1
        if index < 0 or line > self.old.ends[index] or self._old_tokens[index] is None:
            return None  # between statements: no finding is placed there
        old_first, new_first = self.old.starts[index], self.new.starts[index]
        edges = self._edges.get((index, start))
        if edges is None:
            old, new = self._old_tokens[index], self._new_tokens[index]
            assert old is not None and new is not None  # compared equal by their tokens
            pairs = zip(old.starts, new.starts, strict=True) if start else zip(old.ends, new.ends, strict=True)
            edges = self._edges[(index, start)] = dict(pairs)
        moved = edges.get((line - old_first + 1, column))
        return (moved[0] + new_first - 1, moved[1]) if moved is not None else None


@dataclass(frozen=True, slots=True)
class Outcome:
    """One analysis of a buffer."""

    result: FileResult
    tree: ast.Module | None = None  # CPython's tree of the text, for the editor features (None: parse it)
    same_places: bool = False
    """Whether every statement stands where it stood in the last analysis, in the same words:
    what the editor features read of the tree is as it was."""


@dataclass(frozen=True, slots=True)
class _Last:
    """The last full or moved analysis of one buffer."""

    engine: Engine  # its settings: a new engine (the settings were read again) analyses in full
    text: str
    layout: Layout
    names_axes: bool
    unfiltered: tuple[Diagnostic, ...]
    result: FileResult
    tree: ast.Module | None = None
    """CPython's tree of `text`, place for place (None: not kept, its places moved): the
    statements an edit leaves alone are taken from it rather than parsed again (`spliced`)."""


class Reuse:
    """The findings of each buffer's last analysis, reused while it reads the same."""

    def __init__(self) -> None:
        self._last: dict[str, _Last] = {}
        self._tokens: dict[str, Tokens | None] = {}  # by statement text, of the last analyses
        # The function analyses and top-level statements of each buffer's last full analysis,
        # replayed by the next where they hold (`analyzer.summaries`): only while all else it
        # read is the same, and only where its tree is kept (the nodes they ran are met again).
        self._summaries: dict[str, Summaries] = {}
        self.fallbacks = 0  # analyses done again without summaries after an internal error
        # SHAPECHECK_LSP_REPLAY=0 turns the replay off (every edit interpreted in full), should
        # a replay ever show other than a full check does.
        self.replay = os.environ.get("SHAPECHECK_LSP_REPLAY", "1") != "0"

    def analyze(self, engine: Engine, source: ModuleSource, path: str, text: str) -> Outcome:
        """The result of `engine.analyze(path, text, keep_types=True)`, with the project's
        modules read from `source`."""
        if source_size(text) > engine.config.max_file_size:
            self._last.pop(path, None)
            return Outcome(engine.analyze(path, text, keep_types=True))
        last = self._last.get(path)
        if last is not None:
            kept = self._unparsed(last, engine, source, path, text)
            if kept is not None:
                return Outcome(kept, None, True)
        try:
            # On the analysis's large stack, as the engine parses: the parser recurses per level.
            syntax: ast.Module | Diagnostic | None = run_bounded(lambda: _parse(last, engine, path, text),
                                                                 engine.time_limit)
        except (AnalysisTimeout, Exception):
            syntax = None  # the engine meets it again and says what it is
        if not isinstance(syntax, ast.Module):
            self._last.pop(path, None)
            return Outcome(engine.analyze(path, text, keep_types=True, syntax=syntax))
        new = layout(syntax, split_lines(text))
        if new is not None and last is not None:
            moved = self._moved(last, new, engine, source, path, text)
            if moved is not None:
                return Outcome(moved[0], syntax, moved[1])
        unfiltered: list[Diagnostic] = []
        summaries = self._summaries.pop(path, None)
        if summaries is None or last is None or not self._same_inputs(last, engine, source, text):
            summaries = Summaries()
        if len(text) > TREE_KEPT_CHARACTERS or not self.replay:
            summaries = None  # no tree kept, so no node to meet again: nothing worth recording
        replaying = summaries is not None and bool(summaries.entries or summaries.statements)
        result = engine.analyze(path, text, keep_types=True, syntax=syntax, unfiltered=unfiltered,
                                summaries=summaries)
        if result.error is not None and replaying:
            # An internal error with summaries to replay: the replay's own fault must cost a full
            # analysis, never the buffer's diagnostics (counted: the tests demand none).
            log.warning("analysing %s with the last analysis's summaries failed; analysing it in full:\n%s",
                        path, result.error)
            self.fallbacks += 1
            summaries = Summaries()
            unfiltered.clear()
            result = engine.analyze(path, text, keep_types=True, syntax=syntax, unfiltered=unfiltered,
                                    summaries=summaries)
        # A bound reached (SC005) may have cut the tree (nesting elided in place) or the analysis short.
        complete = result.error is None and not any(d.code == Code.ANALYSIS_LIMIT for d in unfiltered)
        if complete and new is not None and summaries is not None:
            self._summaries[path] = summaries
        if new is not None and complete:
            self._last[path] = _Last(engine, text, new, names_axes(text), tuple(unfiltered), result,
                                     syntax if len(text) <= TREE_KEPT_CHARACTERS else None)
            self._tokens = {t: self._tokens[t] for t in new.texts if t in self._tokens}
        else:
            self._last.pop(path, None)
        return Outcome(result, syntax if complete else None)

    def forget(self, path: str) -> None:
        self._last.pop(path, None)
        self._summaries.pop(path, None)

    def keep(self, paths: set[str]) -> None:
        """Forget the buffers not at these paths (closed)."""
        self._last = {path: last for path, last in self._last.items() if path in paths}
        self._summaries = {path: kept for path, kept in self._summaries.items() if path in paths}

    def _unparsed(self, last: _Last, engine: Engine, source: ModuleSource, path: str, text: str) -> FileResult | None:
        """The last result, where `text` differs from the last text only on lines that hold
        no statement or within one statement without moving any of its tokens (a keystroke in
        a comment): its tree is the last one, place for place, so it is not even parsed."""
        old = last.layout
        lines = _changed_lines(last.text, text)
        if lines is None or not self._same_inputs(last, engine, source, text):
            return None
        first, end = lines
        index = bisect_right(old.starts, end) - 1
        if first > end:
            new = old
        elif index < 0 or old.ends[index] < first:  # no statement on these lines: only comments must be there
            said = tokens("\n".join(split_lines(text)[first - 1:end]) + "\n")
            if said is None or said.said:
                return None
            new = old
        elif old.starts[index] <= first and end <= old.ends[index]:  # within one statement
            texts = list(old.texts)
            texts[index] = "\n".join(split_lines(text)[old.starts[index] - 1:old.ends[index]])
            before, after = self._of(old.texts[index]), self._of(texts[index])
            if before is None or after is None or before != after:
                return None
            new = Layout(old.starts, old.ends, tuple(texts))
        else:
            return None
        result = replace(last.result, diagnostics=filtered(last.unfiltered, text, engine.config, path),
                         text_hash=content_hash(text))
        self._last[path] = _Last(engine, text, new, last.names_axes, last.unfiltered, result, last.tree)
        self._tokens = {t: self._tokens[t] for t in new.texts if t in self._tokens}
        return result

    def _same_inputs(self, last: _Last, engine: Engine, source: ModuleSource, text: str) -> bool:
        """Whether all the last analysis read but the tree is as it was."""
        return last.engine is engine and last.names_axes == names_axes(text) and _same_reads(last.result, source)

    def _moved(self, last: _Last, new: Layout, engine: Engine, source: ModuleSource, path: str,
               text: str) -> tuple[FileResult, bool] | None:
        """The last result moved to `text`, and whether its places are the same; None where
        `text` must be analysed in full."""
        old = last.layout
        if len(old.texts) != len(new.texts) or not self._same_inputs(last, engine, source, text):
            return None
        old_tokens: list[Tokens | None] = []
        new_tokens: list[Tokens | None] = []
        for before, after in zip(old.texts, new.texts, strict=True):
            if before == after:
                old_tokens.append(None)
                new_tokens.append(None)
                continue
            said_before, said_after = self._of(before), self._of(after)
            if said_before is None or said_after is None or said_before.said != said_after.said:
                return None
            old_tokens.append(said_before)
            new_tokens.append(said_after)
        same_places = old.starts == new.starts and old.ends == new.ends and all(
            before == after for before, after in zip(old_tokens, new_tokens, strict=True))
        if same_places:  # every token where it was: only comments and spaces after the last changed
            unfiltered: tuple[Diagnostic, ...] | None = last.unfiltered
            types: tuple[TypedSpan, ...] | None = last.result.types
        else:
            moves = Moves(old, new, old_tokens, new_tokens)
            unfiltered = _moved_diagnostics(last.unfiltered, moves)
            types = _moved_types(last.result.types, moves)
        if unfiltered is None or types is None:
            return None
        result = replace(last.result, diagnostics=filtered(unfiltered, text, engine.config, path), types=types,
                         lines=text.count("\n") + 1, text_hash=content_hash(text))
        # The tree of `text` is `last.tree` only where every token kept its place.
        self._last[path] = _Last(engine, text, new, last.names_axes, unfiltered, result,
                                 last.tree if same_places else None)
        self._tokens = {t: self._tokens[t] for t in new.texts if t in self._tokens}
        return result, same_places

    def _of(self, text: str) -> Tokens | None:
        if text not in self._tokens:
            self._tokens[text] = tokens(text)
        return self._tokens[text]


def _changed_lines(old: str, new: str) -> tuple[int, int] | None:
    """The first and last line where `new` differs from `old`, where the two have as many
    lines and those lines hold only plain ASCII (no character that CPython reads otherwise
    than `tokenize`, such as NUL); None otherwise."""
    if "\r" in new or "\r" in old or old.count("\n") != new.count("\n"):
        return None
    if old == new:
        return 1, 0  # no line
    shortest = min(len(old), len(new))
    low, high = 0, shortest  # the common start's length, by halves: slices compare at C speed
    while low < high:
        middle = (low + high + 1) // 2
        if old[:middle] == new[:middle]:
            low = middle
        else:
            high = middle - 1
    start = low
    low, high = 0, shortest - start
    while low < high:
        middle = (low + high + 1) // 2
        if old[len(old) - middle:] == new[len(new) - middle:]:
            low = middle
        else:
            high = middle - 1
    end = len(new) - low
    first = new.count("\n", 0, start) + 1
    last = first + new.count("\n", start, end)
    begin = new.rfind("\n", 0, start) + 1
    finish = new.find("\n", end)
    region = new[begin:finish if finish >= 0 else len(new)]
    if not region.isascii() or any(char in region for char in "\0\f\v"):
        return None
    return first, last


def _same_reads(result: FileResult, source: ModuleSource) -> bool:
    """Whether the project modules the result read have the same texts, and those it looked
    for and did not find are still missing."""
    for dependency in result.dependencies:
        found = source.find(dependency.module)
        if found is None or content_hash(found[1]) != dependency.hash:
            return False
    return all(source.find(module) is None for module in result.missing)


def _moved_diagnostics(found: tuple[Diagnostic, ...], moves: Moves) -> tuple[Diagnostic, ...] | None:
    moved: list[Diagnostic] = []
    for diagnostic in found:
        span = moves.span(diagnostic.span)
        if span is None:
            return None
        notes: list[Note] = []
        for note in diagnostic.notes:
            place = moves.span(note.span)
            if place is None:
                return None
            notes.append(replace(note, span=place) if place != note.span else note)
        moved.append(replace(diagnostic, span=span, notes=tuple(notes))
                     if span != diagnostic.span or notes != list(diagnostic.notes) else diagnostic)
    return tuple(moved)


def _moved_types(found: tuple[TypedSpan, ...], moves: Moves) -> tuple[TypedSpan, ...] | None:
    moved: list[TypedSpan] = []
    for typed in found:
        span = moves.span(typed.span)
        if span is None:
            return None
        moved.append(typed if span == typed.span else TypedSpan(span, typed.type, typed.placement))
    return tuple(moved)
