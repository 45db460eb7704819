"""Reading annotations: which subscripts are ours, and what they say (never evaluated)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Final

from shapecheck.analyzer.literals import to_lit
from shapecheck.analyzer.provenance import Binding
from shapecheck.analyzer.values import Class, Function, Lazy, Module, Qual
from shapecheck.annotation import (
    JAXTYPING_DTYPES,
    AnnotationError,
    nest_jaxtyping,
    parse_annotation,
    parse_jaxtyping,
)
from shapecheck.config import DEFAULT_ANNOTATION_NAMES
from shapecheck.dtypes import DTYPE_NAMES
from shapecheck.types import ArrayType

# Libraries whose names, as jaxtyping's array-type argument, are array classes (never a
# jaxtyping alias that would add dims of its own).
_ARRAY_LIBRARIES: Final = frozenset(("jax", "jaxtyping", "numpy", "torch", "tensorflow", "mlx", "cupy"))


@dataclass(frozen=True, slots=True)
class Invalid:
    """An annotation in our language's form with an error (SC001) at `node`."""

    message: str
    node: ast.AST


# Resolves a dotted annotation head to where it comes from (see `provenance`).
Resolve = Callable[[str], Binding]


def read_annotation(
    node: ast.expr, resolve: Resolve, names: Collection[str],
) -> ArrayType | Invalid | None:
    """The array type an annotation expression declares; None when it is not ours."""
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, str):
            return None
        inner = _parse_string(node.value)
        if inner is None:
            return None
        found = read_annotation(inner, resolve, names)
        # Positions inside a string annotation are not the file's: blame the string.
        return Invalid(found.message, node) if isinstance(found, Invalid) else found
    if not isinstance(node, ast.Subscript):
        return None
    kind, dtype = _head(node.value, resolve, names)
    if kind is None:
        return None
    parts = subscript_parts(node)
    elements = []
    for part in parts:
        if isinstance(part, ast.Slice):
            return Invalid("slices are not part of the annotation language", part)
        elements.append(to_lit(part))
    parse = parse_annotation if kind == "shapecheck" else parse_jaxtyping
    whole = to_lit(node)
    result = parse(dtype, elements, whole)
    if isinstance(result, AnnotationError):
        origin = result.origin if isinstance(result.origin, ast.AST) else node
        return Invalid(result.message, origin)
    if kind == "jaxtyping":
        return _jaxtyping_base(result, parts[0], resolve, names)
    return result


def _parse_string(text: str) -> ast.expr | None:
    """The expression in a string annotation, positioned within the string: `subscript_parts` reads the
    positions to tell `f32[(3,)]` from `f32[3,]`, and no node parsed here outlives
    `read_annotation` (its findings are moved to the string)."""
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def subscript_parts(node: ast.Subscript) -> list[ast.expr]:
    """The subscript's parts as written: `f32[(5, 7), {}]` has two, `f32[(5, 7)]` one (a tuple).

    CPython's tree holds both as one tuple; only the parentheses, which its span includes
    and its first and last items' do not, tell them apart."""
    inner = node.slice
    if not isinstance(inner, ast.Tuple) or not inner.elts:
        return [inner]  # `()` is always a parenthesized tuple: one part
    tuple_span, first, last = _span(inner), _span(inner.elts[0]), _span(inner.elts[-1])
    parenthesized = tuple_span[:2] < first[:2] and tuple_span[2:] > last[2:]
    return [inner] if parenthesized else list(inner.elts)


def _span(node: ast.expr) -> tuple[int, int, int, int]:
    return node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0


def _jaxtyping_base(result: ArrayType, base: ast.expr, resolve: Resolve,
                    names: Collection[str]) -> ArrayType | Invalid:
    """Apply jaxtyping's array-type argument: a jaxtyping type adds its dims after ours, an
    alias that may be one (`Float[Vector, "b"]`) leaves the dims unknown."""
    unknown = ArrayType(result.dtype, (), (), 0, False)
    if isinstance(base, ast.Subscript):
        inner = read_annotation(base, resolve, names)
        if isinstance(inner, Invalid):
            return inner
        if inner is not None:
            if _head(base.value, resolve, names)[0] != "jaxtyping":
                return unknown
            return nest_jaxtyping(result, inner)
        return result  # Union[...] and other typing forms of array classes
    dotted = _dotted(base)
    if dotted is None:
        return result  # `Array | np.ndarray`
    found = resolve(dotted)
    if not found.bound or isinstance(found.value, Class):
        return result
    if isinstance(found.value, Qual) and found.value.name.split(".")[0] in _ARRAY_LIBRARIES:
        return result
    return unknown


def _head(base: ast.expr, resolve: Resolve, names: Collection[str]) -> tuple[str | None, str | None]:
    """Which language a subscript base belongs to ('shapecheck' or 'jaxtyping') and its dtype."""
    dotted = _dotted(base)
    if dotted is None:
        return None, None
    last = dotted.rpartition(".")[2]
    found = resolve(dotted)
    if found.unknown:
        return None, None  # a star import or module the analyzer cannot read may define it
    value = found.value
    if isinstance(value, Qual):
        module, _, attr = value.name.rpartition(".")
        if module == "jaxtyping" and attr in JAXTYPING_DTYPES:
            return "jaxtyping", JAXTYPING_DTYPES[attr]
        if module.split(".")[0] == "shapecheck" and (attr in DTYPE_NAMES or attr == "Array"):
            return "shapecheck", None if attr == "Array" else attr
        # Any other library's name (haliax's `f32`, jax.Array, ctypes.Array) is not ours.
        return None, None
    if isinstance(value, Class | Function | Lazy | Module) or "." in dotted or last not in names:
        return None, None
    if last in DEFAULT_ANNOTATION_NAMES and found.bound and not found.tutorial:
        # The built-in names are common elsewhere: only the tutorial's `f32 = ArrayType()`
        # proves a local definition ours. A configured name is ours wherever it is bound.
        return None, None
    return "shapecheck", None if last == "Array" else (last if last in DTYPE_NAMES else None)


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None
