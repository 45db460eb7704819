"""Expressions to the neutral literal tree, reading through names bound to literals."""

from __future__ import annotations

import ast
from collections.abc import Callable

from shapecheck.analyzer.walk import code
from shapecheck.literal import Kind, Lit

# Resolves a name to the literal it was assigned (module-level spec constants), if any.
NameLookup = Callable[[str], Lit | None]


def to_lit(node: ast.expr, lookup: NameLookup | None = None) -> Lit:
    """The literal tree of `node`; anything that is not a literal is an OTHER node (never evaluated).

    Scalars' texts are their Python spelling (`1000` for `1_000`, `'a'` for `"a"`): the tree
    keeps values, not the source text."""
    if isinstance(node, ast.Constant):
        return _constant(node)
    if isinstance(node, ast.Name):
        if lookup is not None:
            found = lookup(node.id)
            if found is not None:
                return found
        return Lit(Kind.NAME, node.id, text=node.id, origin=node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = to_lit(node.operand, lookup)
        if inner.kind is Kind.INT and isinstance(inner.value, int):
            return Lit(Kind.INT, -inner.value, text=f"-{inner.text}", origin=node)
        if inner.kind is Kind.FLOAT:
            return Lit(Kind.FLOAT, None, text=f"-{inner.text}", origin=node)
    elif isinstance(node, ast.Tuple | ast.List):
        items = tuple(
            to_lit(el, lookup) if not isinstance(el, ast.Starred) else Lit(Kind.OTHER, text="*", origin=el)
            for el in node.elts
        )
        kind = Kind.TUPLE if isinstance(node, ast.Tuple) else Kind.LIST
        return Lit(kind, items=items, text=_spelled(node, kind, items), origin=node)
    elif isinstance(node, ast.Dict):
        flat: list[Lit] = []
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:  # `**other`
                return Lit(Kind.OTHER, text=code(node), origin=node)
            flat += [to_lit(key, lookup), to_lit(value, lookup)]
        return Lit(Kind.DICT, items=tuple(flat), text=code(node), origin=node)
    elif isinstance(node, ast.Attribute):
        dotted = code(node)
        return Lit(Kind.NAME, dotted, text=dotted, origin=node)
    elif isinstance(node, ast.Call) and not node.keywords and isinstance(node.func, ast.Name | ast.Attribute):
        # Still unknown to every reader (an OTHER node), but a `P('X', None)` in an annotation
        # is read as data: the callee's name and the literal arguments, never called.
        callee = to_lit(node.func)
        if callee.kind is Kind.NAME and not any(isinstance(arg, ast.Starred) for arg in node.args):
            args = tuple(to_lit(arg, lookup) for arg in node.args)
            return Lit(Kind.OTHER, callee.value, items=args, text=code(node), origin=node)
    return Lit(Kind.OTHER, text=code(node), origin=node)


def _constant(node: ast.Constant) -> Lit:
    value = node.value
    kind = type(value)  # not isinstance: a bool is an int
    if kind is int:
        return Lit(Kind.INT, value, text=repr(value), origin=node)
    if kind is float:
        return Lit(Kind.FLOAT, None, text=repr(value), origin=node)
    if kind is str:
        return Lit(Kind.STR, value, text=repr(value), origin=node)
    if kind is bool:
        return Lit(Kind.BOOL, value, text=repr(value), origin=node)
    if value is None:
        return Lit(Kind.NONE, text="None", origin=node)
    if value is Ellipsis:
        return Lit(Kind.ELLIPSIS, text="...", origin=node)
    return Lit(Kind.OTHER, text=code(node), origin=node)  # bytes, complex



# Literals whose text is CPython's own spelling of their node, wherever it stands.
_SPELLED_AS_WRITTEN = frozenset({Kind.INT, Kind.STR, Kind.BOOL, Kind.NONE, Kind.NAME, Kind.ELLIPSIS, Kind.TUPLE,
                                 Kind.LIST})


def _spelled(node: ast.Tuple | ast.List, kind: Kind, items: tuple[Lit, ...]) -> str:
    """`code(node)`, joined from its items' texts where each is its own element's spelling (a
    spec of names and numbers): unparsing each level of a nested spec again would cost more than
    reading it, and a function's specs are read once per call analysed."""
    if not all(item.kind in _SPELLED_AS_WRITTEN and item.origin is element and item.text
               for item, element in zip(items, node.elts, strict=True)):
        return code(node)
    inner = ", ".join(item.text for item in items)
    if kind is Kind.LIST:
        return f"[{inner}]"
    return f"({inner},)" if len(items) == 1 else f"({inner})"
