"""From a file's text to a libcst tree, agreeing with CPython and in time linear in nesting.

CPython's own parser decides whether a file is valid Python (so SC004 agrees with the
interpreter, for the target version). libcst's native parser then builds the tree, but its time
grows faster than the square of an expression's nesting depth (a 2,000-long subscript chain
takes 25 s) and it refuses long implicit string concatenations that CPython accepts. So deep
expressions are parsed in pieces: CPython's tree says where each expression starts and ends,
every expression `PIECE_DEPTH` levels below the last cut becomes a placeholder name in its
parent's text, each piece is parsed on its own, and the pieces are stitched back together.
The stitched tree prints exactly the original text, so positions are those of the file.
"""

from __future__ import annotations

import ast
import io
import re
import threading
import tokenize
from bisect import bisect_right
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from itertools import accumulate, count
from typing import TYPE_CHECKING

from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic, Span

if TYPE_CHECKING:
    # Imported where a tree is built: `decode` and `cpython_syntax` serve runs and output
    # formats that never parse with libcst (a cached run), and `import libcst` costs ~0.2 s.
    import libcst as cst

PIECE_DEPTH = 100
"""Expression levels parsed in one libcst call (libcst takes ~0.01 s for 100 nested levels)."""

STRING_PIECE = 1_000
"""Implicitly concatenated strings parsed in one libcst call (libcst refuses ~5,000)."""

MAX_DEPTH = 3_000
"""Expression nesting analysed; deeper parts are unknown values, reported as SC005.

CPython itself compiles about 3,000 levels at its default recursion limit ("maximum recursion
depth exceeded during compilation" past it) and parses at most about 3,000 levels of `not`,
`if`-`else` or `lambda`; analysing 3,000 levels takes a few seconds.
"""

MAX_STRINGS = 20_000
"""Implicitly concatenated strings analysed (libcst nests them); the rest are one unknown string."""

_ELIDED = "_shapecheck_unanalysed"

_PLACEHOLDER = "_shapecheck_piece_"
_NEWLINE = re.compile(r"\r\n|\r|\n")
_INDENT = re.compile(r"[ \t\f]*")


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


@dataclass(slots=True)
class _Piece:
    """A range of the text parsed by one libcst call; its children are placeholders in it."""

    start: int
    end: int
    name: str  # the placeholder that stands for it in its parent's text
    string: bool = False  # the tail of an implicit string concatenation, not an expression
    elided: bool = False  # past MAX_DEPTH: blanked out, analysed as an unknown value
    indent: str = ""  # of the statement it is in: libcst prints continuation lines relative to it
    children: list[_Piece] = field(default_factory=list)


class _Offsets:
    """(line, UTF-8 byte column) as CPython reports them -> offsets into the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        if "\r" in text:
            self.starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
        else:  # the usual case, several times faster than the pattern
            self.starts = [0, *accumulate(len(line) + 1 for line in text.split("\n")[:-1])]

    def __call__(self, line: int, byte_column: int) -> int:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        source = self.text[start:end]
        if source.isascii():
            return start + byte_column
        return start + len(source.encode("utf-8")[:byte_column].decode("utf-8", "ignore"))


@dataclass(frozen=True, slots=True)
class Parsed:
    """libcst's tree, and the spans of expressions left out for nesting past MAX_DEPTH."""

    module: cst.Module
    elided: tuple[Span, ...] = ()


def parse_module(text: str, tree: ast.Module) -> Parsed:
    """libcst's tree of `text` (already accepted by CPython as `tree`), parsed in pieces.

    An expression left out stands as a parenthesised unknown name with the same lines and
    last column, so every position outside it is the file's own.
    """
    import libcst as cst

    offsets = _Offsets(text)
    root = _Piece(0, len(text), "")
    elided: list[Span] = []
    _cut(tree, offsets, root, text, elided)
    with _unvalidated():
        if not root.children:
            return Parsed(cst.parse_module(text))
        names = count()
        module = cst.parse_module(_source(text, root, names))
        module = module.visit(_stitcher(_parsed_children(text, root, names)))
    # A piece lost or doubled would show here. Only the statements are compared, without their
    # whitespace: libcst itself does not print back some blank lines and comments at the end
    # of a file.
    last = tree.body[-1] if tree.body else None
    statements = text[:offsets(last.end_lineno or 1, last.end_col_offset or 0)] if last else ""
    if not elided and not "".join(module.code.split()).startswith("".join(statements.split())):
        raise ValueError("the pieces of the file do not print its text back")
    return Parsed(module, tuple(elided))


_building = threading.local()


@contextmanager
def _unvalidated() -> Iterator[None]:
    """Nodes built in this thread meanwhile skip libcst's validation.

    libcst validates every node it constructs (about a quarter of its parse time); the nodes of
    a text CPython has accepted are valid by construction (libcst's own comment on
    `CSTNode.__post_init__` suggests not validating parsed trees). Other threads, such as a
    codemod building nodes by hand, still validate theirs.
    """
    _skip_validation_when_building()
    previous = getattr(_building, "parsed", False)
    _building.parsed = True
    try:
        yield
    finally:
        _building.parsed = previous


@cache
def _skip_validation_when_building() -> None:
    import libcst as cst

    validate = cst.CSTNode.__post_init__

    def __post_init__(self: cst.CSTNode) -> None:
        if not getattr(_building, "parsed", False):
            validate(self)

    cst.CSTNode.__post_init__ = __post_init__  # type: ignore[method-assign]


def _cut(tree: ast.Module, offsets: _Offsets, root: _Piece, text: str, elided: list[Span]) -> None:
    """Give every expression `PIECE_DEPTH` levels below the previous cut a piece of its own,
    and leave out what nests past MAX_DEPTH."""
    # Iterative: the tree may be far deeper than Python's recursion limit. Each entry carries
    # its statement's line, whose indentation a piece needs (looked up only for a piece).
    stack: list[tuple[ast.AST, int, int, _Piece, bool, int]] = [(tree, 0, 0, root, False, 1)]
    while stack:
        node, depth, total, piece, in_slice, line = stack.pop()
        if isinstance(node, ast.stmt):
            depth = total = 0
            line = node.lineno
        elif isinstance(node, ast.expr):
            if _shallow(node, offsets, depth, total):
                continue
            # `a and b and c` is one node for CPython, two nested ones for libcst.
            levels = len(node.values) - 1 if isinstance(node, ast.BoolOp) else 0
            too_deep = total + levels >= MAX_DEPTH
            if (depth >= PIECE_DEPTH or too_deep) and _cuttable(node, in_slice):
                start = offsets(node.lineno, node.col_offset)
                end = offsets(node.end_lineno or node.lineno, node.end_col_offset or 0)
                if too_deep and _fits_placeholder(text[start:end]):
                    piece.children.append(_Piece(start, end, "", elided=True))
                    elided.append(_span(text, offsets, start, end))
                    continue
                child = _Piece(start, end, "", indent=_indentation(text, offsets, line))
                piece.children.append(child)
                piece, depth = child, 0
            if isinstance(node, ast.Constant | ast.JoinedStr):
                _cut_strings(node, offsets, piece, text, elided, line)
                continue  # f-string internals have no reliable positions before Python 3.12
            depth += 1 + levels
            total += 1 + levels
        for name, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for child_node in children:
                if isinstance(child_node, ast.AST):
                    slice_of = isinstance(node, ast.Subscript) and name == "slice"
                    stack.append((child_node, depth, total, piece, slice_of, line))


def _shallow(node: ast.expr, offsets: _Offsets, depth: int, total: int) -> bool:
    """Whether nothing in `node` can need a cut: it is too short to nest that deep.

    Every level of nesting takes at least one character of its own (an operator, a bracket, a
    dot), so an expression of n characters nests at most n levels; most expressions are short
    and are skipped whole instead of walked node by node.
    """
    if node.end_col_offset is None or node.end_lineno is None:
        return False
    if node.end_lineno == node.lineno:
        width = node.end_col_offset - node.col_offset  # UTF-8 bytes: at least the characters
    else:
        width = offsets(node.end_lineno, node.end_col_offset) - offsets(node.lineno, node.col_offset)
    return depth + width < PIECE_DEPTH and total + width < MAX_DEPTH and width < 2 * STRING_PIECE


def _indentation(text: str, offsets: _Offsets, line: int) -> str:
    start = offsets.starts[line - 1]
    match = _INDENT.match(text, start)
    return match.group() if match else ""


def _parse_piece(source: str, indent: str) -> cst.BaseExpression:
    """The piece's expression, parsed at its statement's indentation, in added parentheses.

    libcst stores a continuation line's whitespace relative to the enclosing block's indentation
    and adds that indentation back when printing: parsed at another level, a piece would print
    (and be positioned) shifted.
    """
    import libcst as cst

    if not indent:
        return cst.parse_expression(f"({source})")
    module = cst.parse_module(f"if 1:\n{indent}({source})\n")
    block = module.body[0]
    assert isinstance(block, cst.If) and isinstance(block.body, cst.IndentedBlock)
    line = block.body.body[0]
    assert isinstance(line, cst.SimpleStatementLine) and isinstance(line.body[0], cst.Expr)
    return line.body[0].value


def _fits_placeholder(source: str) -> bool:
    return len(source) >= len(_ELIDED) + 2 or _NEWLINE.search(source) is not None


def _elided_placeholder(source: str) -> str:
    """`(name)` with the same line breaks and the same length of last line as `source`."""
    breaks = _NEWLINE.findall(source)
    if not breaks:
        return f"({_ELIDED}{' ' * (len(source) - len(_ELIDED) - 2)})"
    last = len(_NEWLINE.split(source)[-1])
    return f"({_ELIDED}{''.join(breaks)}{' ' * (last - 1)})"


def _elided_string(text: str, piece: _Piece) -> str:
    """One string literal standing for the strings it replaces: the same line breaks (between
    strings, where libcst keeps them) and a last line of the same length (padded inside the
    quotes, as spaces after it would be dropped with the parenthesis they precede)."""
    source = text[piece.start:piece.end]
    prefix = _bytes_prefix(text, piece)
    breaks = _NEWLINE.findall(source)
    width = len(_NEWLINE.split(source)[-1]) - len(prefix) - 2
    content = _ELIDED[:width].ljust(width)
    return "".join(breaks) + f"{prefix}'{content}'"


def _span(text: str, offsets: _Offsets, start: int, end: int) -> Span:
    def position(offset: int) -> tuple[int, int]:
        line = bisect_right(offsets.starts, offset)
        return line, offset - offsets.starts[line - 1]

    return Span(*position(start), *position(end))


def _cuttable(node: ast.expr, in_slice: bool) -> bool:
    # A placeholder name must be valid where the expression stood and stitch back to the same
    # libcst structure: not a starred item, a slice, a generator expression (its range may be
    # a call's parentheses) or the bare tuple of a subscript (libcst keeps its elements apart).
    if isinstance(node, ast.Starred | ast.Slice | ast.GeneratorExp):
        return False
    return not (in_slice and isinstance(node, ast.Tuple))


def _cut_strings(node: ast.Constant | ast.JoinedStr, offsets: _Offsets, piece: _Piece, text: str,
                 elided: list[Span], line: int) -> None:
    if isinstance(node, ast.Constant) and not isinstance(node.value, str | bytes):
        return
    start = offsets(node.lineno, node.col_offset)
    end = offsets(node.end_lineno or node.lineno, node.end_col_offset or 0)
    if end - start < 2 * STRING_PIECE:  # each string is at least two characters long
        return
    strings = _string_starts(text[start:end])
    indent = _indentation(text, offsets, line)
    for index in range(STRING_PIECE, min(len(strings), MAX_STRINGS), STRING_PIECE):
        child = _Piece(start + strings[index], end, "", string=True, indent=indent)
        piece.children.append(child)
        piece = child
    if len(strings) > MAX_STRINGS:
        tail = start + strings[MAX_STRINGS]
        piece.children.append(_Piece(tail, end, "", string=True, elided=True))
        elided.append(_span(text, offsets, tail, end))


def _string_starts(source: str) -> list[int]:
    """Offsets of the string literals of one (implicitly concatenated) string expression."""
    # In parentheses, as it stands in the file: continuation lines may be indented anyhow.
    enclosed = f"({source})"
    lines = [0, *(m.end() for m in _NEWLINE.finditer(enclosed))]
    tokens = tokenize.generate_tokens(io.StringIO(enclosed).readline)
    try:
        return [lines[t.start[0] - 1] + t.start[1] - 1 for t in tokens if t.type == tokenize.STRING]
    except (tokenize.TokenError, SyntaxError):
        return []


def _source(text: str, piece: _Piece, names: count[int]) -> str:
    """The piece's text with each child replaced by its placeholder."""
    parts: list[str] = []
    position = piece.start
    for child in sorted(piece.children, key=lambda c: c.start):
        child.name = f"{_PLACEHOLDER}{next(names)}"
        parts.append(text[position:child.start])
        if child.elided and child.string:
            parts.append(_elided_string(text, child))
        elif child.elided:
            parts.append(_elided_placeholder(text[child.start:child.end]))
        else:
            parts.append(_string_placeholder(text, child) if child.string else child.name)
        position = child.end
    parts.append(text[position:piece.end])
    return "".join(parts)


def _string_placeholder(text: str, piece: _Piece) -> str:
    return f"{_bytes_prefix(text, piece)}'{piece.name}'"


def _bytes_prefix(text: str, piece: _Piece) -> str:
    # Same kind as the string it stands for: libcst refuses to concatenate str and bytes.
    prefix = text[piece.start:piece.start + 3].split("'")[0].split('"')[0].lower()
    return "b" if "b" in prefix else ""


def _parsed_children(text: str, piece: _Piece, names: count[int]) -> dict[str, cst.BaseExpression]:
    """Placeholder -> its piece's libcst tree (itself stitched), for every child of `piece`."""
    import libcst as cst

    parsed: dict[str, cst.BaseExpression] = {}
    for child in piece.children:
        if child.elided:
            continue
        source = _source(text, child, names)
        node = _parse_piece(source, child.indent)
        inner = _parsed_children(text, child, names)
        if inner:
            stitched = node.visit(_stitcher(inner))
            assert isinstance(stitched, cst.BaseExpression)
            node = stitched
        # Drop the parentheses added above; the placeholder's own go back on in `_Stitcher`.
        parsed[child.name] = node.with_changes(lpar=node.lpar[1:], rpar=node.rpar[:-1])
    return parsed


def _stitcher(pieces: dict[str, cst.BaseExpression]) -> cst.CSTTransformer:
    """A transformer that puts each piece's tree where its placeholder stands."""
    return _stitcher_class()(pieces)


@cache
def _stitcher_class() -> Callable[[dict[str, cst.BaseExpression]], cst.CSTTransformer]:
    import libcst as cst

    class Stitcher(cst.CSTTransformer):
        def __init__(self, pieces: dict[str, cst.BaseExpression]) -> None:
            super().__init__()
            self.pieces = pieces

        def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
            piece = self.pieces.get(updated_node.value)
            if piece is None:
                return updated_node
            return piece.with_changes(lpar=[*updated_node.lpar, *piece.lpar],
                                      rpar=[*piece.rpar, *updated_node.rpar])

        def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString,
                               ) -> cst.BaseExpression:
            piece = self.pieces.get(updated_node.value.lstrip("bB")[1:-1])
            return updated_node if piece is None else piece

    return Stitcher
