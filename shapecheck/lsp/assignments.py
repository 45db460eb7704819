"""The places of a buffer the editor features point at: unannotated assignments and imports.

Read with CPython's `ast` (fast, and the analysis already proved the text parses); its columns
are UTF-8 byte offsets and are turned into code points here, the unit of our spans.
"""

from __future__ import annotations

import ast
import warnings
import weakref
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from shapecheck.analyzer.walk import statements
from shapecheck.codemods.annotations import SPEC_NAMES, is_partition_spec
from shapecheck.diagnostic import Span
from shapecheck.positions import Positions
from shapecheck.results import TypedSpan


@dataclass(frozen=True, slots=True)
class Assignment:
    """`name = value` with no annotation: the target's span and the whole statement's."""

    name: str
    target: Span
    statement: Span
    single: bool  # the only target (`a = b = v` cannot take an annotation)


def parse(text: str) -> ast.Module | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


# The assignments in each top-level statement, by its node. The tree of a keystroke keeps the
# statements the edit left alone, node for node and place for place (`lsp.reuse.spliced`): theirs
# are read once rather than at every keystroke (a sixth of a keystroke's time in a 1,000-line file).
_FOUND: weakref.WeakKeyDictionary[ast.stmt, tuple[Assignment, ...]] = weakref.WeakKeyDictionary()


def assignments(tree: ast.Module, text: str) -> list[Assignment]:
    """Every unannotated `name = value` target, in source order."""
    positions: Positions | None = None
    found: list[Assignment] = []
    for top in tree.body:
        known = _FOUND.get(top)
        if known is None:
            positions = positions or Positions(text)
            known = _FOUND[top] = tuple(_assignments(top, positions))
        found.extend(known)
    return sorted(found, key=lambda a: a.target)


def _assignments(top: ast.stmt, positions: Positions) -> Iterator[Assignment]:
    for node in statements([top], into_defs=True):  # assignments are statements
        if isinstance(node, ast.Assign):
            statement = _span(positions, node)
            single = len(node.targets) == 1
            yield from (Assignment(target.id, _span(positions, target), statement, single)
                        for target in node.targets if isinstance(target, ast.Name))


def _span(positions: Positions, node: ast.AST) -> Span:
    return positions.span(node) or Span(1, 0, 1, 0)


def value_types(found: list[Assignment], types: Iterable[TypedSpan]) -> list[TypedSpan | None]:
    """The typed span of each assignment's value: the outermost typed expression after its targets.

    Matched by containment rather than equality: the value may be written in parentheses,
    which no expression's span includes. Typed spans are sorted once and searched by start.
    """
    typed = sorted(types, key=lambda t: (t.span.line, t.span.column))
    starts = [(t.span.line, t.span.column) for t in typed]
    values: list[TypedSpan | None] = []
    for assignment in found:
        end = (assignment.statement.end_line, assignment.statement.end_column)
        best: TypedSpan | None = None
        index = bisect_left(starts, (assignment.target.end_line, assignment.target.end_column))
        while index < len(typed) and starts[index] <= end:
            span = typed[index].span
            if (span.end_line, span.end_column) <= end and (best is None or within(best.span, span)):
                best = typed[index]
            index += 1
        values.append(best)
    return values


def within(inner: Span, outer: Span) -> bool:
    """Whether `inner` lies inside `outer` (or is it)."""
    return ((outer.line, outer.column) <= (inner.line, inner.column)
            and (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column))


def contains(span: Span, line: int, column: int) -> bool:
    """Whether (1-based line, column) lies in `span`, its end included (a cursor just after a name)."""
    return (span.line, span.column) <= (line, column) <= (span.end_line, span.end_column)


def top_level_names(tree: ast.Module) -> set[str]:
    """Names the module binds at its top level by import or assignment."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def import_line(tree: ast.Module) -> int:
    """The 1-based line a new import goes before: after the docstring, `__future__` imports and
    the leading imports."""
    # Without docstring or imports: before the first statement, after a shebang or coding line.
    line = tree.body[0].lineno if tree.body else 1
    for index, node in enumerate(tree.body):
        docstring = (index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                     and isinstance(node.value.value, str))
        if docstring or isinstance(node, ast.Import | ast.ImportFrom):
            line = (node.end_lineno or node.lineno) + 1
        else:
            break
    return line


def partition_spec_name(tree: ast.Module) -> tuple[str, int] | None:
    """The name (and the line of the import binding it) under which the module's top level
    imports jax's PartitionSpec, where that is its only binding anywhere in the module: what a
    sharding annotation can be written with (as `shapecheck annotate` decides it)."""
    top = {id(node) for node in tree.body}
    lines: dict[str, list[int | None]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                bound = alias.asname or alias.name.partition(".")[0]
                if bound not in SPEC_NAMES:
                    continue
                if isinstance(node, ast.ImportFrom):
                    meaning = f"{node.module}.{alias.name}" if node.module and not node.level else None
                else:
                    meaning = alias.name
                ours = id(node) in top and is_partition_spec(meaning, bound)
                lines.setdefault(bound, []).append(node.lineno if ours else None)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and node.id in SPEC_NAMES:
            lines.setdefault(node.id, []).append(None)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name in SPEC_NAMES:
            lines.setdefault(node.name, []).append(None)
        elif isinstance(node, ast.arg) and node.arg in SPEC_NAMES:
            lines.setdefault(node.arg, []).append(None)
    usable = sorted((found[0], name) for name, found in lines.items() if len(found) == 1 and found[0] is not None)
    return (usable[0][1], usable[0][0]) if usable else None
