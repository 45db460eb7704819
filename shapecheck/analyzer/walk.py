"""Fast structural walks over statements: libcst's visitor machinery rebuilds nodes as it goes,
which costs more than the analysis itself on large files."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst


def target_names(node: cst.CSTNode) -> list[str]:
    """The names an assignment target binds."""
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, cst.Tuple | cst.List):
        return [name for element in node.elements for name in target_names(element.value)]
    if isinstance(node, cst.StarredElement):
        return target_names(node.value)
    return []


def assigned_names(node: cst.CSTNode) -> set[str]:
    """Every name a block of statements may rebind (not looking into nested defs and classes)."""
    names: set[str] = set()
    for statement in _statements(node):
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        names.update(target_names(target.target))
                elif isinstance(small, cst.AnnAssign | cst.AugAssign):
                    names.update(target_names(small.target))
                elif isinstance(small, cst.Import | cst.ImportFrom) and not isinstance(
                    getattr(small, "names", None), cst.ImportStar
                ):
                    for alias in small.names:  # type: ignore[union-attr]
                        if alias.asname is not None:
                            names.update(target_names(alias.asname.name))
                        else:
                            dotted = alias.name
                            while isinstance(dotted, cst.Attribute):
                                dotted = dotted.value
                            if isinstance(dotted, cst.Name):
                                names.add(dotted.value)
        elif isinstance(statement, cst.FunctionDef | cst.ClassDef):
            names.add(statement.name.value)
        elif isinstance(statement, cst.For):
            names.update(target_names(statement.target))
        elif isinstance(statement, cst.With):
            for item in statement.items:
                if item.asname is not None:
                    names.update(target_names(item.asname.name))
        elif isinstance(statement, cst.Try | cst.TryStar):
            for handler in statement.handlers:
                if handler.name is not None:
                    names.update(target_names(handler.name.name))
    return names


def _statements(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Statements in `node` and in the blocks nested in them, except nested defs' bodies."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.IndentedBlock | cst.SimpleStatementSuite):
            stack.extend(current.body)
            continue
        if isinstance(current, cst.Module):
            stack.extend(current.body)
            continue
        yield current
        if isinstance(current, cst.FunctionDef | cst.ClassDef | cst.SimpleStatementLine):
            continue
        for block in _blocks(current):
            stack.append(block)


def _blocks(statement: cst.CSTNode) -> Iterator[cst.CSTNode]:
    body = getattr(statement, "body", None)
    if isinstance(body, cst.BaseSuite):
        yield body
    orelse = getattr(statement, "orelse", None)
    if isinstance(orelse, cst.If):
        yield orelse
    elif isinstance(orelse, cst.Else):
        yield orelse.body
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    final = getattr(statement, "finalbody", None)
    if isinstance(final, cst.Finally):
        yield final.body
    for case in getattr(statement, "cases", ()):
        yield case.body


def subscripts(node: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """Subscripts and strings nested in an annotation (`Callable[[f32[(3,)]], f32[()]]`, `A | B`)."""
    stack: list[cst.BaseExpression] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Subscript):
            yield current
            for element in current.slice:
                if isinstance(element.slice, cst.Index):
                    stack.append(element.slice.value)
        elif isinstance(current, cst.SimpleString):
            yield current
        elif isinstance(current, cst.Tuple | cst.List):
            stack.extend(element.value for element in current.elements)
        elif isinstance(current, cst.BinaryOperation):
            stack.extend((current.left, current.right))
