"""libcst expressions to the neutral literal tree, reading through names bound to literals."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from shapecheck.literal import Kind, Lit

# Resolves a name to the literal it was assigned (module-level spec constants), if any.
NameLookup = Callable[[str], Lit | None]


def to_lit(node: cst.BaseExpression, lookup: NameLookup | None = None) -> Lit:
    """The literal tree of `node`; anything that is not a literal is an OTHER node (never evaluated)."""
    if isinstance(node, cst.Integer):
        return Lit(Kind.INT, int(node.value.replace("_", ""), 0), text=node.value, origin=node)
    if isinstance(node, cst.Float):
        return Lit(Kind.FLOAT, None, text=node.value, origin=node)
    if isinstance(node, cst.SimpleString):
        text = string_value(node)
        if text is not None:
            return Lit(Kind.STR, text, text=node.value, origin=node)
        return Lit(Kind.OTHER, text=node.value, origin=node)
    if isinstance(node, cst.ConcatenatedString):
        joined = node.evaluated_value
        if isinstance(joined, str):
            return Lit(Kind.STR, joined, text=repr(joined), origin=node)
        return Lit(Kind.OTHER, text="<string>", origin=node)
    if isinstance(node, cst.Ellipsis):
        return Lit(Kind.ELLIPSIS, text="...", origin=node)
    if isinstance(node, cst.Name):
        if node.value in ("None", "True", "False"):
            if node.value == "None":
                return Lit(Kind.NONE, text="None", origin=node)
            return Lit(Kind.BOOL, node.value == "True", text=node.value, origin=node)
        if lookup is not None:
            found = lookup(node.value)
            if found is not None:
                return found
        return Lit(Kind.NAME, node.value, text=node.value, origin=node)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = to_lit(node.expression, lookup)
        if inner.kind is Kind.INT and isinstance(inner.value, int):
            return Lit(Kind.INT, -inner.value, text=f"-{inner.text}", origin=node)
        if inner.kind is Kind.FLOAT:
            return Lit(Kind.FLOAT, None, text=f"-{inner.text}", origin=node)
    if isinstance(node, cst.Tuple | cst.List):
        items = tuple(
            to_lit(el.value, lookup) if not isinstance(el, cst.StarredElement)
            else Lit(Kind.OTHER, text="*", origin=el)
            for el in node.elements
        )
        kind = Kind.TUPLE if isinstance(node, cst.Tuple) else Kind.LIST
        return Lit(kind, items=items, text=_code(node), origin=node)
    if isinstance(node, cst.Dict):
        flat: list[Lit] = []
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                flat += [to_lit(element.key, lookup), to_lit(element.value, lookup)]
            else:
                return Lit(Kind.OTHER, text=_code(node), origin=node)
        return Lit(Kind.DICT, items=tuple(flat), text=_code(node), origin=node)
    if isinstance(node, cst.Attribute):
        return Lit(Kind.NAME, _code(node), text=_code(node), origin=node)
    return Lit(Kind.OTHER, text=_code(node), origin=node)


def string_value(node: cst.SimpleString) -> str | None:
    """The text of a string literal (None for bytes). Plain strings are read directly: libcst's
    `evaluated_value` compiles every literal, a cost that shows on large files."""
    raw = node.value
    prefix = node.prefix.lower()
    quote = node.quote
    body = raw[len(node.prefix) + len(quote) : len(raw) - len(quote)]
    if "b" in prefix:
        return None
    if "\\" not in body or "r" in prefix:
        return body
    value = node.evaluated_value
    return value if isinstance(value, str) else None


_MODULE = cst.Module(body=[])


def _code(node: cst.CSTNode) -> str:
    text = _MODULE.code_for_node(node)
    return " ".join(text.split())
