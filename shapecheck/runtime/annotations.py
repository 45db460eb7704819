"""The `f32[...]` annotations of an xmapped function, read without evaluating code.

Annotations arrive as ArrayType objects, or as strings under `from __future__ import
annotations`; strings are parsed, and their literals read as the checker reads them, so
nothing of the user's program is executed to learn a type.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any

from shapecheck.analyzer.annotations import subscript_parts
from shapecheck.analyzer.literals import to_lit
from shapecheck.annotation import parse_annotation
from shapecheck.dtype_objects import DType
from shapecheck.types import ArrayType


def _from_text(text: str, namespace: dict[str, Any]) -> ArrayType | None:
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _from_text(node.value, namespace)  # a quoted annotation under future annotations
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
        return None
    dtype = namespace.get(node.value.id)
    if not isinstance(dtype, DType):
        return None
    # Read as the checker reads it (literals, and a sharding `P(...)` as data): never evaluated.
    parsed = parse_annotation(dtype.name, [to_lit(part) for part in subscript_parts(node)])
    return parsed if isinstance(parsed, ArrayType) else None


def _as_type(annotation: object, namespace: dict[str, Any]) -> ArrayType | None:
    if isinstance(annotation, ArrayType):
        return annotation
    if isinstance(annotation, str):
        return _from_text(annotation, namespace)
    return None  # Any, jaxtyping and the rest: the runtime checks only the language it owns


def signature_types(fun: Callable[..., Any]) -> tuple[list[tuple[str, ArrayType | None]], ArrayType | None]:
    """(parameter name, declared type) for the positional parameters, and the declared return."""
    target = inspect.unwrap(getattr(fun, "func", fun))  # functools.partial keeps its function here
    namespace = dict(getattr(target, "__globals__", {}))
    try:
        signature = inspect.signature(fun)
    except (TypeError, ValueError):
        return [], None
    params = [
        (name, _as_type(param.annotation, namespace))
        for name, param in signature.parameters.items()
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD)
    ]
    return params, _as_type(signature.return_annotation, namespace)
