"""`shapecheck annotate`: write the fully known inferred types as annotations.

One round analyses the text, plans the annotations that are certain (`certainty`), and writes
them with libcst (formatting and comments kept; the dtype names' imports added or merged into
the module's `from shapecheck import ...`). A written parameter can make its function closed,
whose returns and locals the next round can then annotate: rounds repeat until nothing changes,
so a second run has nothing to do. The result is analysed once more and refused, leaving the
file as it was, if it would gain a diagnostic the original did not have.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from shapecheck.codemods.certainty import Plan, plan
from shapecheck.codemods.driver import CannotRewrite, Rewrite
from shapecheck.codemods.names import module_names
from shapecheck.diagnostic import Diagnostic
from shapecheck.engine import Engine

# Each round can only add parameters to functions one level further in; real code needs two or three.
MAX_ROUNDS = 6


def annotate_text(path: str, text: str, engine: Engine) -> Rewrite:
    """The text with every certain inferred type written as an annotation."""
    before = engine.analyze(path, text, keep_types=True)
    if before.error is not None:
        raise CannotRewrite(f"not annotated: the file could not be analysed ({before.error.splitlines()[0]})")
    current, result = text, before
    messages: list[tuple[int, str]] = []
    for _ in range(MAX_ROUNDS):
        try:
            module = cst.parse_module(current)
        except cst.ParserSyntaxError as error:
            raise CannotRewrite(f"not annotated: libcst cannot parse the file ({error.message})") from error
        wrapper = cst.MetadataWrapper(module)
        planned = plan(wrapper, result.types, module_names(wrapper), result.diagnostics)
        messages = planned.messages
        if not planned:
            break
        current = _apply(wrapper, planned)
        result = engine.analyze(path, current, keep_types=True)
        if result.error is not None:
            raise CannotRewrite("not annotated: the annotated file could not be analysed "
                                f"({result.error.splitlines()[0]})")
    added = _added(before.diagnostics, result.diagnostics)
    if added:
        first = added[0]
        raise CannotRewrite(f"not annotated: the annotations would add {len(added)} diagnostic(s), "
                            f"first {first.code} {first.message}")
    # The messages' lines are the annotated text's; the only lines it adds are imports above the
    # code, so the file as it was has them that many lines higher.
    added_lines = current.count("\n") - text.count("\n")
    return Rewrite(current, [f"line {line - added_lines}: {message}" for line, message in messages])


def _apply(wrapper: cst.MetadataWrapper, planned: Plan) -> str:
    module = wrapper.module.visit(_Writer(planned))
    for source in sorted({source for source, _ in planned.imports}):
        names = sorted(name for s, name in planned.imports if s == source)
        module = _merge_import(module, source, names) or _insert_import(module, source, names)
    return module.code


def _insert_import(module: cst.Module, source: str, names: list[str]) -> cst.Module:
    """`from {source} import {names}` after the imports that open the module (after its docstring
    and `from __future__` lines when it has no other)."""
    body = list(module.body)
    at = 0
    if body and _is_docstring(body[0]):
        at = 1
    while at < len(body) and _is_import(body[at]):
        at += 1
    line = cst.parse_statement(f"from {source} import {', '.join(names)}\n")
    return module.with_changes(body=[*body[:at], line, *body[at:]])


def _is_import(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, cst.Import | cst.ImportFrom) for small in statement.body)


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and isinstance(statement.body[0].value, cst.SimpleString | cst.ConcatenatedString))


def _merge_import(module: cst.Module, source: str, names: list[str]) -> cst.Module | None:
    """Add `names` to a one-line `from {source} import ...` among the imports that open the module
    (one further down binds them too late for the annotations above it), keeping the names
    sorted where they were (what isort and ruff expect); None where there is no such line."""
    for index, statement in enumerate(module.body):
        if index == 0 and _is_docstring(statement):
            continue
        if not _is_import(statement):
            return None
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        found = statement.body[0]
        if (not isinstance(found, cst.ImportFrom) or found.relative or found.module is None
                or get_full_name_for_node(found.module) != source or isinstance(found.names, cst.ImportStar)
                or found.lpar is not None):
            continue
        written = [get_full_name_for_node(alias.name) or "" for alias in found.names]
        aliases = list(found.names) + [cst.ImportAlias(cst.Name(name)) for name in names]
        if written == sorted(written):
            aliases.sort(key=lambda alias: get_full_name_for_node(alias.name) or "")
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        aliases = [alias.with_changes(comma=comma) for alias in aliases[:-1]] + [
            aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        replacement = statement.with_changes(body=[found.with_changes(names=aliases)])
        return module.with_changes(body=[replacement if s is statement else s for s in module.body])
    return None


class _Writer(cst.CSTTransformer):
    """Writes the planned annotations; nodes are matched by identity with the planned ones."""

    def __init__(self, planned: Plan) -> None:
        super().__init__()
        self.planned = planned

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.BaseSmallStatement:
        annotation = self.planned.assignments.get(original_node)
        if annotation is None:
            return updated_node
        target = updated_node.targets[0]
        return cst.AnnAssign(
            target=target.target,
            annotation=cst.Annotation(cst.parse_expression(annotation.text)),
            value=updated_node.value,
            equal=cst.AssignEqual(whitespace_before=target.whitespace_before_equal,
                                  whitespace_after=target.whitespace_after_equal),
            semicolon=updated_node.semicolon,
        )

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        annotation = self.planned.returns.get(original_node)
        if annotation is None:
            return updated_node
        return updated_node.with_changes(returns=cst.Annotation(
            cst.parse_expression(annotation.text),
            whitespace_before_indicator=cst.SimpleWhitespace(" "),
            whitespace_after_indicator=cst.SimpleWhitespace(" "),
        ))

    def leave_Param(self, original_node: cst.Param, updated_node: cst.Param) -> cst.Param:
        annotation = self.planned.params.get(original_node)
        if annotation is None:
            return updated_node
        return updated_node.with_changes(annotation=cst.Annotation(cst.parse_expression(annotation.text)))


def _added(before: Sequence[Diagnostic], after: Sequence[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics of `after` beyond those of `before` (by code and message: lines move)."""
    remaining = Counter((d.code, d.message) for d in before)
    added = []
    for diagnostic in after:
        key = (diagnostic.code, diagnostic.message)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            added.append(diagnostic)
    return added
