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
    TracedInt,
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


_MAX_BITS = 1024  # larger ints are no size a program shapes arrays with: left unknown

_NUMBER_OPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a ** b,
}
_INT_ONLY_OPS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.BitAnd: lambda a, b: a & b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitXor: lambda a, b: a ^ b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
}


def number_operation(operator: type[ast.operator], left: Value, right: Value) -> Const | None:
    """`left <op> right` as Python computes it, for two known ints or floats (`D // H`,
    `1 / math.sqrt(d)`, `d ** -0.5`); None where Python would raise (a zero divisor), where the
    result is no int or float (a negative base to a fractional power), or is too large to keep."""
    a, b = _number(left), _number(right)
    if not (isinstance(a, int | float) and isinstance(b, int | float)):
        return None
    both_ints = isinstance(a, int) and isinstance(b, int)
    if isinstance(a, int) and isinstance(b, int) and (
            (operator is ast.Pow and b > 0 and abs(a).bit_length() * b > _MAX_BITS)
            or (operator is ast.LShift and abs(a).bit_length() + b > _MAX_BITS)):
        return None
    if operator in _INT_ONLY_OPS:
        operation: Callable[[Any, Any], Any] = _INT_ONLY_OPS[operator]
        if not both_ints:
            return None
    elif operator in _NUMBER_OPS:
        operation = _NUMBER_OPS[operator]
    else:
        return None
    try:
        result = operation(a, b)
    except (ArithmeticError, ValueError):  # ZeroDivisionError, OverflowError, a negative shift
        return None
    if isinstance(result, bool) or not isinstance(result, int | float):
        return None  # complex: `(-8) ** 0.5`
    if isinstance(result, int) and result.bit_length() > _MAX_BITS:
        return None
    # An int computed from a traced jit argument is traced too (`k * n`, `n - 1`).
    return TracedInt(result) if isinstance(result, int) and (
        isinstance(left, TracedInt) or isinstance(right, TracedInt)) else Const(result)


def _number(value: Value) -> object:
    """The Python number a value holds (`lax.psum(1, 'k')` is one, once the size is known)."""
    if isinstance(value, AxisSize):
        return value.size
    return value.value if isinstance(value, Const) else None
