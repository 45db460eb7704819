"""Fast structural walks over statements: libcst's visitor machinery rebuilds nodes as it goes,
which costs more than the analysis itself on large files."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

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


# Calls that bind axis names or carry them to something that does.
_BINDERS = frozenset({
    "xmap", "vmap", "pmap", "shard_map", "smap", "partial", "Mesh", "make_mesh", "AbstractMesh",
    "pjit", "jit", "PartitionSpec", "P", "NamedSharding",
})
_NAME_KEYWORDS = frozenset({"axis_name", "spmd_axis_name", "axis_names", "in_axes", "out_axes",
                            "axis_sizes", "axis_resources"})


def map_axis_names(module: cst.Module) -> frozenset[str]:
    """The strings that could name an axis some map of `module` binds: every string literal in
    a call of a map, a mesh or `partial` (`partial(jax.pmap, axis_name='i')`), in an axis-name
    keyword anywhere, every string assigned to a name, alone or in a tuple, list or set
    (`BATCH = 'batch'`, `AXES = ('data', 'model')`), and string defaults of parameters. A
    superset, so that what it lacks is certainly bound by no map the module builds."""
    names: set[str] = set()
    stack: list[cst.CSTNode] = [module]
    while stack:  # iterative: deeply nested expressions must not exhaust the Python stack
        node = stack.pop()
        if isinstance(node, cst.Call) and _callee(node.func) in _BINDERS:
            names.update(_strings(node.args))
        elif isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value in _NAME_KEYWORDS:
            names.update(_strings([node]))
        if isinstance(node, cst.Assign | cst.AnnAssign) and isinstance(
                node.value, cst.SimpleString | cst.Tuple | cst.List | cst.Set):
            names.update(_strings([node.value]))
        elif isinstance(node, cst.Param) and isinstance(node.default, cst.SimpleString):
            names.update(_strings([node.default]))  # `def step(x, axis_name='batch')`
        stack.extend(node.children)
    return frozenset(names)


def _callee(func: cst.BaseExpression) -> str:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return ""


def _strings(nodes: Sequence[cst.CSTNode]) -> Iterator[str]:
    """String literals in `nodes`, except in a lambda's body: the mapped function's own strings
    (`pmap(lambda v: psum(v, 'k'), ...)`) are what is checked, not what is bound."""
    stack: list[cst.CSTNode] = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            if isinstance(value, str):
                yield value
        elif not isinstance(node, cst.Lambda):
            stack.extend(node.children)
