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

from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic, Span
from shapecheck.positions import Positions

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
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise SourceDecodeError(str(error)) from error
    # A BOM is not part of the program (CPython and libcst both skip it).
    return text[1:] if text.startswith("\ufeff") else text


def cpython_syntax(path: str, text: str, feature_version: tuple[int, int] | None = None,
                   ) -> ast.Module | Diagnostic:
    """CPython's tree of `text`, or SC004 where CPython's parser rejects it."""
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
    except MemoryError:
        # CPython's parser gives up on nesting past its own stack; the interpreter cannot run it.
        return Diagnostic(path, Span(1, 0, 1, 1), Code.SYNTAX_ERROR,
                          "syntax error: too complex for CPython's parser (nesting too deep)")
    except (ValueError, RecursionError) as other:  # null bytes; nesting past the recursion limit
        return Diagnostic(path, Span(1, 0, 1, 1), Code.SYNTAX_ERROR, f"syntax error: {other}")




@dataclass(frozen=True, slots=True)
class Parsed:
    """The tree to interpret, and the spans of the expressions left out for nesting past MAX_DEPTH."""

    module: ast.Module
    elided: tuple[Span, ...] = ()


def parse_module(text: str, tree: ast.Module) -> Parsed:
    """`tree` (CPython's, of `text`) with every expression nested past MAX_DEPTH replaced, in
    place, by the unbound name ELIDED at the same place."""
    elided: list[Span] = []
    positions: Positions | None = None
    # Iterative, and only into expressions that could be that deep: the tree may be far deeper
    # than Python's recursion limit, and most expressions are a few characters long.
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.expr):
            if _shallow(node, depth):
                continue
            depth += 1
        elif isinstance(node, ast.stmt):
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


def _shallow(node: ast.expr, depth: int) -> bool:
    """Whether nothing in `node` can nest past MAX_DEPTH: every level of nesting takes at least
    one character of its own (an operator, a bracket, a dot), so an expression of n characters
    nests at most n levels."""
    if node.end_lineno is None or node.end_col_offset is None or node.end_lineno != node.lineno:
        return False
    return depth + node.end_col_offset - node.col_offset < MAX_DEPTH


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
