"""Reading annotations: which subscripts are ours, and what they say (never evaluated)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

import libcst as cst

from shapecheck.analyzer.literals import to_lit
from shapecheck.analyzer.values import Class, Function, Lazy, Qual, Value
from shapecheck.annotation import (
    JAXTYPING_DTYPES,
    AnnotationError,
    parse_annotation,
    parse_jaxtyping,
)
from shapecheck.dtypes import DTYPE_NAMES
from shapecheck.types import ArrayType


@dataclass(frozen=True, slots=True)
class Invalid:
    """An annotation in our language's form with an error (SC001) at `node`."""

    message: str
    node: cst.CSTNode


Resolve = Callable[[str], Value]


def read_annotation(
    node: cst.BaseExpression, resolve: Resolve, names: Collection[str],
) -> ArrayType | Invalid | None:
    """The array type an annotation expression declares; None when it is not ours."""
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        text = node.evaluated_value
        if not isinstance(text, str):
            return None
        try:
            inner = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return None
        found = read_annotation(inner, resolve, names)
        # Positions inside a string annotation are not the file's: blame the string.
        return Invalid(found.message, node) if isinstance(found, Invalid) else found
    if not isinstance(node, cst.Subscript):
        return None
    kind, dtype = _head(node.value, resolve, names)
    if kind is None:
        return None
    elements = []
    for element in node.slice:
        if not isinstance(element.slice, cst.Index):
            return Invalid("slices are not part of the annotation language", element)
        elements.append(to_lit(element.slice.value))
    parse = parse_annotation if kind == "shapecheck" else parse_jaxtyping
    whole = to_lit(node)
    result = parse(dtype, elements, whole)
    if isinstance(result, AnnotationError):
        origin = result.origin if isinstance(result.origin, cst.CSTNode) else node
        return Invalid(result.message, origin)
    return result


def _head(base: cst.BaseExpression, resolve: Resolve, names: Collection[str]) -> tuple[str | None, str | None]:
    """Which language a subscript base belongs to ('shapecheck' or 'jaxtyping') and its dtype."""
    dotted = _dotted(base)
    if dotted is None:
        return None, None
    root, _, last = dotted.rpartition(".")
    value = resolve(dotted.split(".")[0]) if not root else None
    qual = value.name if isinstance(value, Qual) else None
    if isinstance(value, Lazy):
        # Imported from a module of the checked project: the same rules as any import.
        qual = f"{value.module}.{value.attr}" if value.attr else value.module
    if root:
        rooted = resolve(root.split(".")[0])
        if isinstance(rooted, Qual):
            qual = rooted.name + dotted[len(root.split(".")[0]):]
    if qual is not None:
        module, _, attr = qual.rpartition(".")
        if module == "jaxtyping" and attr in JAXTYPING_DTYPES:
            return "jaxtyping", JAXTYPING_DTYPES[attr]
        if module.split(".")[0] == "shapecheck" and (attr in DTYPE_NAMES or attr == "Array"):
            return "shapecheck", None if attr == "Array" else attr
        if module.split(".")[0] in ("jax", "numpy", "typing", "jaxtyping", "collections") or attr == "Array":
            # `Array` names other libraries' classes too (ctypes.Array, jax.Array): only
            # shapecheck's, or one defined here, is ours. A dtype name re-exported is ours.
            return None, None
    if isinstance(value, Class | Function):
        return None, None  # a class or function of this module, not an annotation factory
    if not root and last in names:
        # Tutorial style: `f32 = ArrayType()` defined locally, or a configured alias.
        return "shapecheck", None if last == "Array" else (last if last in DTYPE_NAMES else None)
    return None, None


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr.value}"
    return None
