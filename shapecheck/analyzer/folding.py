"""Python's own meaning of constants the interpreter knows: truthiness and comparisons.

Pure functions of values: the statement walker asks them whether a condition is decided (a
branch is dead) and the expression evaluator folds `not`, `==`, `is None` and `in` with them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

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


def compare(operator: cst.BaseCompOp, left: Value, right: Value) -> bool | None:
    """The outcome of one comparison between constants (shape tuples included), else None."""
    if isinstance(operator, cst.Is | cst.IsNot):
        outcome: bool | None = None
        if isinstance(right, Const) and right.value is None:
            if isinstance(left, Const) and left.value is None:
                outcome = True
            elif _known_not_none(left):
                outcome = False
        return outcome if outcome is None or isinstance(operator, cst.Is) else not outcome
    a, b = _plain(left), _plain(right)
    if a is _UNKNOWN or b is _UNKNOWN:
        return None
    try:
        if isinstance(operator, cst.In | cst.NotIn):
            if not isinstance(b, tuple):
                return None
            return (a in b) == isinstance(operator, cst.In)
        result = _COMPARE[type(operator)](a, b)
    except (TypeError, KeyError):
        return None
    return bool(result)


_COMPARE: dict[type, Callable[[Any, Any], object]] = {
    cst.Equal: lambda a, b: a == b,
    cst.NotEqual: lambda a, b: a != b,
    cst.LessThan: lambda a, b: a < b,
    cst.LessThanEqual: lambda a, b: a <= b,
    cst.GreaterThan: lambda a, b: a > b,
    cst.GreaterThanEqual: lambda a, b: a >= b,
}

