"""Python's own meaning of constants the interpreter knows: truthiness and comparisons.

Pure functions of values: the statement walker asks them whether a condition is decided (a
branch is dead) and the expression evaluator folds `not`, `==`, `is None` and `in` with them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from shapecheck.analyzer.values import (
    AxisSize,
    Const,
    Lazy,
    Module,
    Qual,
    Seq,
    Value,
)


def truth(value: Value) -> bool | None:
    """Python truthiness where the checker knows it (each kind of value says), else None."""
    known = getattr(value, "truth", None)  # arrays and unknown values have none: undecided
    return known() if known is not None else None


def _known_not_none(value: Value) -> bool:
    if isinstance(value, Const):
        return value.value is not None
    return value is not None and not isinstance(value, Qual | Lazy | Module | AxisSize)


def _plain(value: Value) -> object:
    """The Python value of a constant (tuples of constants included), or a sentinel."""
    if isinstance(value, Const):
        return value.value
    if isinstance(value, Seq) and all(isinstance(item, Const) for item in value.items):
        return tuple(item.value for item in value.items if isinstance(item, Const))
    return _UNKNOWN


_UNKNOWN = object()


def compare(operator: ast.cmpop, left: Value, right: Value) -> bool | None:
    """The outcome of one comparison between constants (shape tuples included), else None."""
    kind = type(operator)
    if kind is ast.Is or kind is ast.IsNot:
        outcome: bool | None = None
        if isinstance(right, Const) and right.value is None:
            if isinstance(left, Const) and left.value is None:
                outcome = True
            elif _known_not_none(left):
                outcome = False
        return outcome if outcome is None or kind is ast.Is else not outcome
    a, b = _plain(left), _plain(right)
    if a is _UNKNOWN or b is _UNKNOWN:
        return None
    try:
        if kind is ast.In or kind is ast.NotIn:
            if not isinstance(b, tuple):
                return None
            return (a in b) == (kind is ast.In)
        result = _COMPARE[kind](a, b)
    except (TypeError, KeyError):
        return None
    return bool(result)


_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}
