"""The fix of SC210 (varying-axes-mismatch): cast the value the diagnostic points at to vary over
the axes it names, `lax.pcast(value, ('X', 'Y'), to='varying')`, through libcst so that every
comment and space around it stays.

The checker reports an SC210 it can fix at the very value to cast: an initial loop carry (or its
member in a tuple literal), the value a branch returns, the operand of a `psum` over axes it
partly varies over, or the carry a loop's body returns after reducing it. Its message then ends
with `cast it: jax.lax.pcast(..., AXES, to='varying')` (`replication.FIXABLE`); the rewrite
wraps the expression whose span is the diagnostic's. The cast names `lax.pcast` as the module
can: through `from jax import lax` where it does that, else `jax.lax`, importing jax if needed.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Final

from shapecheck.algebra.replication import FIXABLE, RECAST, UNCAST
from shapecheck.diagnostic import Diagnostic, Span

if TYPE_CHECKING:
    import libcst as cst

    from shapecheck.fixes import Fix, Source

TITLE = "Cast to vary over {axes}"
FIXABLE_RECAST: Final = re.compile(re.escape(RECAST) + r"jax\.lax\.pcast\(\.\.\., \(([^()]*)\), to='varying'\)$")


def fixable_axes(message: str) -> tuple[str, ...] | None:
    """The axes an SC210 message asks to cast its value over, where it points at that value."""
    found = FIXABLE.search(message)
    return _literal_axes(found.group(1)) if found is not None else None


def _literal_axes(listed: str) -> tuple[str, ...] | None:
    """`'X', 'Y'` (a tuple's inside, as a message writes it) as names."""
    listed = listed.rstrip()
    try:
        axes = ast.literal_eval(f"({listed}{'' if listed.endswith(',') else ','})")
    except (ValueError, SyntaxError):
        return None
    return tuple(axes) if axes and all(isinstance(axis, str) for axis in axes) else None


def pcast_fix(diagnostic: Diagnostic, source: Source) -> Fix | None:
    """The fix for one SC210 diagnostic: its value wrapped in the cast its message names (or, for
    a `pcast` over axes its value varies over already, that cast over the others only)."""
    import libcst as cst

    from shapecheck.fixes import Applicability, Fix

    target = _expression_at(source, diagnostic.span)
    if target is None:
        return None
    if diagnostic.message.rstrip().endswith(("already", "to='varying')")) and (
            UNCAST in diagnostic.message or RECAST in diagnostic.message):
        return _recast(diagnostic.message, target)
    axes = fixable_axes(diagnostic.message)
    if axes is None:
        return None
    title = TITLE.format(axes=", ".join(repr(axis) for axis in axes))
    merged = _merged(target, axes)
    if merged is not None:
        return Fix(title, Applicability.SAFE, ((target, merged),))
    callee, imports = _callee(source.module)
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    wrapped = cst.Call(
        func=cst.parse_expression(callee),
        args=[cst.Arg(target.with_changes(lpar=[], rpar=[]) if _bare_parens(target) else target, comma=comma),
              cst.Arg(cst.parse_expression(_axes_literal(axes)), comma=comma),
              cst.Arg(cst.SimpleString("'varying'"), keyword=cst.Name("to"), equal=equal)])
    replacements: list[tuple[cst.CSTNode, cst.CSTNode]] = [(target, wrapped)]
    if imports is not None and source.module.body:
        first = source.module.body[_import_position(source.module)]
        line = cst.parse_statement("import jax\n")
        replacements.append((first, cst.FlattenSentinel([line, first])))  # type: ignore[arg-type]
    return Fix(title, Applicability.SAFE, tuple(replacements))


def _recast(message: str, target: cst.BaseExpression) -> Fix | None:
    """A `pcast` over axes its value varies over already: over the others, or none."""
    import libcst as cst

    from shapecheck.fixes import Applicability, Fix

    if not isinstance(target, cst.Call) or not _is_pcast(target) or not target.args:
        return None
    if message.rstrip().endswith("already"):
        operand = target.args[0].value
        if not _atomic(operand):
            operand = operand.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return Fix("Remove the pcast", Applicability.SAFE, ((target, operand),))
    found = FIXABLE_RECAST.search(message)
    if found is None or len(target.args) < 2:
        return None
    axes = _literal_axes(found.group(1))
    if axes is None:
        return None
    args = list(target.args)
    args[1] = args[1].with_changes(value=cst.parse_expression(_axes_literal(axes)))
    title = "Cast over " + ", ".join(repr(axis) for axis in axes) + " only"
    return Fix(title, Applicability.SAFE, ((target, target.with_changes(args=args)),))


def _merged(target: cst.BaseExpression, axes: tuple[str, ...]) -> cst.BaseExpression | None:
    """`target` itself a `pcast(x, written, to='varying')` with literal axes: the same cast over
    `written` and `axes` (rather than a cast of a cast)."""
    import libcst as cst

    if not isinstance(target, cst.Call) or not _is_pcast(target) or len(target.args) < 2 \
            or target.args[1].keyword is not None:
        return None
    written = _literal_axes_node(target.args[1].value)
    if written is None:
        return None
    union = (*written, *(axis for axis in axes if axis not in written))
    args = list(target.args)
    args[1] = args[1].with_changes(value=cst.parse_expression(_axes_literal(union)))
    return target.with_changes(args=args)


def _is_pcast(call: cst.Call) -> bool:
    import libcst as cst

    name = call.func.attr.value if isinstance(call.func, cst.Attribute) else \
        call.func.value if isinstance(call.func, cst.Name) else ""
    to = [arg for arg in call.args if arg.keyword is not None and arg.keyword.value == "to"]
    return name == "pcast" and len(to) == 1 and isinstance(to[0].value, cst.SimpleString) \
        and to[0].value.evaluated_value == "varying"


def _literal_axes_node(node: cst.BaseExpression) -> tuple[str, ...] | None:
    import libcst as cst

    items = node.elements if isinstance(node, cst.Tuple | cst.List) else [node]
    found: list[str] = []
    for item in items:
        value = item.value if isinstance(item, cst.Element) else item
        if not isinstance(value, cst.SimpleString) or not isinstance(value.evaluated_value, str):
            return None
        found.append(value.evaluated_value)
    return tuple(found)


def _atomic(node: cst.BaseExpression) -> bool:
    import libcst as cst

    return bool(node.lpar) or isinstance(node, cst.Name | cst.Call | cst.Attribute | cst.Subscript | cst.SimpleString
                                         | cst.Integer | cst.Float | cst.Tuple | cst.List | cst.Dict)


def rewrite(path: str, text: str, diagnostic: Diagnostic) -> str | None:
    """`text` with the fix of `diagnostic` applied (None when it offers none): the rewrite alone,
    for a caller that has one diagnostic and no fix loop."""
    from shapecheck.fixes import Source, _replaced

    source = Source.parse(path, text)
    if source is None:
        return None
    fix = pcast_fix(diagnostic, source)
    if fix is None:
        return None
    return _replaced(source.module, dict(fix.replacements)).code


def _expression_at(source: Source, span: Span) -> cst.BaseExpression | None:
    """The outermost expression that spans exactly `span` (1-based lines, 0-based columns); a
    parenthesised one's span is inside the parentheses that libcst counts as its own."""
    import libcst as cst

    wanted = (span.line, span.column, span.end_line, span.end_column)
    found: list[cst.BaseExpression] = []
    for node, place in source.positions.items():
        if not isinstance(node, cst.BaseExpression):
            continue
        inner = len(node.lpar), len(node.rpar)
        if wanted in ((place.start.line, place.start.column, place.end.line, place.end.column),
                      (place.start.line, place.start.column + inner[0], place.end.line, place.end.column - inner[1])):
            found.append(node)
    outermost = [node for node in found if source.parents.get(node) not in found]
    return outermost[0] if len(outermost) == 1 else None


def _bare_parens(node: cst.BaseExpression) -> bool:
    """Parentheses that only group (`(a + b)` as a call's argument needs none; a tuple's do more)."""
    import libcst as cst

    return bool(node.lpar) and not isinstance(node, cst.Tuple)


def _callee(module: cst.Module) -> tuple[str, bool | None]:
    """How this module names `jax.lax.pcast`, and whether `import jax` must be added (None: no)."""
    import libcst as cst

    jax_name: str | None = None
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative \
                    and _dotted(small.module) == "jax" and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    if _dotted(alias.name) == "lax":
                        return (alias.asname.name.value if alias.asname is not None
                                and isinstance(alias.asname.name, cst.Name) else "lax") + ".pcast", None
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if _dotted(alias.name) == "jax" and alias.asname is None:
                        jax_name = "jax"
                    elif _dotted(alias.name) == "jax.lax" and alias.asname is not None \
                            and isinstance(alias.asname.name, cst.Name):
                        return f"{alias.asname.name.value}.pcast", None
                    elif _dotted(alias.name) == "jax" and alias.asname is not None \
                            and isinstance(alias.asname.name, cst.Name):
                        jax_name = alias.asname.name.value
                    elif _dotted(alias.name).startswith("jax.") and alias.asname is None:
                        jax_name = "jax"
    if jax_name is not None:
        return f"{jax_name}.lax.pcast", None
    return "jax.lax.pcast", True


def _dotted(node: cst.BaseExpression) -> str:
    import libcst as cst

    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _import_position(module: cst.Module) -> int:
    """Where a new import goes: after the docstring and `from __future__` imports."""
    import libcst as cst

    index = 0
    for index, statement in enumerate(module.body):
        if isinstance(statement, cst.SimpleStatementLine) and statement.body:
            small = statement.body[0]
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString) and index == 0:
                continue
            if isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name) \
                    and small.module.value == "__future__":
                continue
        return index
    return index


def _axes_literal(axes: tuple[str, ...]) -> str:
    return "(" + ", ".join(repr(axis) for axis in axes) + ("," if len(axes) == 1 else "") + ")"
