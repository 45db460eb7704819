"""From a file's bytes to the tree the analyzer interprets: CPython's own.

CPython's parser decides whether a file is valid Python (so SC004 agrees with the interpreter,
for the target version) and builds the tree, about ten times faster than libcst would, with
each node's place in the file. What nests past `MAX_DEPTH` is left out of the analysis.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from itertools import accumulate

from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic, Span
from shapecheck.positions import Positions, split_lines

MAX_DEPTH = 3_000
"""Expression nesting analysed; deeper parts are unknown values, reported as SC005.

CPython itself compiles about 3,000 levels at its default recursion limit ("maximum recursion
depth exceeded during compilation" past it) and parses at most about 3,000 levels of `not`,
`if`-`else` or `lambda`; the analyzer recurses once or twice per level, within its bounds.
"""

ELIDED = "_shapecheck_unanalysed"
"""The name that stands for an expression left out: unbound, so it reads as unknown."""


class SourceDecodeError(Exception):
    """A file's bytes are not text in the encoding it declares (PEP 263 line, BOM or UTF-8)."""


def decode(data: bytes) -> str:
    """The text of a source file, decoded as CPython does: BOM, then coding line, then UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise SourceDecodeError(_undecodable(data, error)) from error
    except SyntaxError as error:
        # tokenize says "invalid or missing encoding declaration" for a first or second line
        # that is not UTF-8 and declares nothing: which byte it is, UTF-8's decoder says.
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as utf8:
            if error.msg == "invalid or missing encoding declaration":
                raise SourceDecodeError(_undecodable(data, utf8)) from error
        raise SourceDecodeError(str(error)) from error
    except LookupError as error:
        raise SourceDecodeError(str(error)) from error
    # The BOM is gone ("utf-8-sig"); a second one is text, which CPython's parser refuses
    # ("invalid non-printable character U+FEFF"), as compile() of the bytes does: kept.
    return text


def _undecodable(data: bytes, error: UnicodeDecodeError) -> str:
    """Where the first byte that is not text in the file's encoding is, and what to do."""
    line = data.count(b"\n", 0, error.start) + 1
    column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
    byte = data[error.start]
    hint = ("; a file in another encoding declares it on its first or second line, as in "
            "`# -*- coding: latin-1 -*-`" if error.encoding == "utf-8" else "")
    return (f"line {line}, column {column} (byte offset {error.start}): byte 0x{byte:02x} is not "
            f"valid {error.encoding} ({error.reason}){hint}")


def cpython_syntax(path: str, text: str, feature_version: tuple[int, int] | None = None,
                   ) -> ast.Module | Diagnostic:
    """CPython's tree of `text`; or SC004 where CPython's parser rejects it, SC005 where it
    ran out of memory (the file may be valid: it is unchecked)."""
    try:
        return ast.parse(text, filename=path, feature_version=feature_version)
    except SyntaxError as syntax:
        line = max(syntax.lineno or 1, 1)
        column = max((syntax.offset or 1) - 1, 0)
        end_line = syntax.end_lineno or line
        end_column = (syntax.end_offset or 0) - 1
        if end_line < line or (end_line == line and end_column <= column):
            end_line, end_column = line, column + 1
        return Diagnostic(path, Span(line, column, end_line, end_column), Code.SYNTAX_ERROR,
                          f"syntax error: {syntax.msg}")
    except MemoryError as error:
        if _parser_gave_up(error, text):  # on nesting past its stack: the interpreter cannot run it
            return Diagnostic(path, Span(1, 0, 1, 1), Code.SYNTAX_ERROR,
                              "syntax error: too complex for CPython's parser (nesting too deep)")
        return Diagnostic(path, Span(1, 0, 1, 1), Code.ANALYSIS_LIMIT,
                          f"ran out of memory while parsing the file ({len(text):,} characters); "
                          "the file is unchecked")
    except (ValueError, RecursionError) as other:  # null bytes; nesting past the recursion limit
        return Diagnostic(path, Span(1, 0, 1, 1), Code.SYNTAX_ERROR, f"syntax error: {other}")



def _parser_gave_up(error: MemoryError, text: str) -> bool:
    """Whether CPython's parser refused nesting past its stack, rather than ran out of memory.

    Both are a MemoryError. Python 3.12 and later say which ("Parser stack overflowed - Python
    source too complex to parse"); 3.11 says nothing, so the text is measured.
    """
    if str(error):
        return "too complex" in str(error)
    from shapecheck.nesting import could_overflow_parser  # only after a MemoryError

    return could_overflow_parser(text)


@dataclass(frozen=True, slots=True)
class Parsed:
    """The tree to interpret, and the spans of the expressions left out for nesting past MAX_DEPTH."""

    module: ast.Module
    elided: tuple[Span, ...] = ()


def parse_module(text: str, tree: ast.Module) -> Parsed:
    """`tree` (CPython's, of `text`) with every expression nested past MAX_DEPTH replaced, in
    place, by the unbound name ELIDED at the same place."""
    if len(text) < MAX_DEPTH:
        return Parsed(tree)  # nothing in it can nest that deep
    elided: list[Span] = []
    positions: Positions | None = None
    starts = _line_starts(text)
    # Iterative, and only into what could nest that deep: the tree may be far deeper than
    # Python's recursion limit, and most statements are a few dozen characters long.
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.expr):
            if depth + _width(node, starts) < MAX_DEPTH:
                continue
            depth += 1
        elif isinstance(node, ast.stmt):
            # A statement spans all of its blocks: narrower than the bound, nothing in it nests
            # that deep (depth restarts at each statement, so each is measured on its own).
            # Decorators lie above a def's first line, outside its span: each is measured too.
            if _width(node, starts) < MAX_DEPTH and all(
                    _width(decorator, starts) < MAX_DEPTH for decorator in getattr(node, "decorator_list", ())):
                continue
            depth = 0
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, ast.expr) and depth >= MAX_DEPTH and _replaceable(item):
                        positions = positions or Positions(text)
                        value[index] = _placeholder(item, elided, positions)
                    elif isinstance(item, ast.AST):
                        stack.append((item, depth))
            elif isinstance(value, ast.expr) and depth >= MAX_DEPTH and _replaceable(value):
                positions = positions or Positions(text)
                setattr(node, field, _placeholder(value, elided, positions))
            elif isinstance(value, ast.AST):
                stack.append((value, depth))
    return Parsed(tree, tuple(sorted(elided)))


def _line_starts(text: str) -> list[int]:
    """Where each line starts, counting every line end as one character (a level of nesting
    is never a line end alone, so widths measured on these still bound the nesting)."""
    return [0, *accumulate(len(line) + 1 for line in split_lines(text))]


def _width(node: ast.expr | ast.stmt, starts: list[int]) -> int:
    """At least the number of characters `node` spans, so at least how deep it can nest: every
    level of nesting takes a character of its own (an operator, a bracket, a dot).

    Line starts count characters and columns UTF-8 bytes, at least as many; the start column
    is left out, so the sum never falls short.
    """
    end_line, end_column = node.end_lineno, node.end_col_offset
    if end_line is None or end_column is None or not 0 < node.lineno <= end_line < len(starts):
        return MAX_DEPTH  # no place to measure: walk it
    return starts[end_line - 1] - starts[node.lineno - 1] + end_column


def _replaceable(node: ast.expr) -> bool:
    # Targets stay (a name read in their place would be assigned to); so do slices and starred
    # items, which only wrap what is below them.
    return isinstance(getattr(node, "ctx", None), ast.Load | type(None)) and not isinstance(
        node, ast.Slice | ast.Starred)


def _placeholder(node: ast.expr, elided: list[Span], positions: Positions) -> ast.expr:
    span = positions.span(node)
    if span is not None:
        elided.append(span)
    return ast.copy_location(ast.Name(id=ELIDED, ctx=ast.Load()), node)
