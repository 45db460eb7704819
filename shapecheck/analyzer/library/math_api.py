"""Python's `math` module on known numbers: `1 / math.sqrt(head_dim)`, `math.prod(shape)`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Seq, Value

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_MAX_BITS = 1024  # as `folding.number_operation`: larger ints are no sizes

_UNARY: dict[str, Callable[[Any], Any]] = {
    "sqrt": math.sqrt, "isqrt": math.isqrt, "ceil": math.ceil, "floor": math.floor, "trunc": math.trunc,
    "exp": math.exp, "log2": math.log2, "log10": math.log10, "fabs": math.fabs,
}


def _number(value: Value) -> int | float | None:
    if isinstance(value, Const) and isinstance(value.value, int | float):
        return value.value
    return None


def _known(result: object) -> Value:
    """A result Python computed, kept when it is a plain number of a sensible size."""
    if isinstance(result, bool) or not isinstance(result, int | float):
        return None
    if isinstance(result, int) and result.bit_length() > _MAX_BITS:
        return None
    return Const(result)


@REGISTRY.handles(*each("math", *_UNARY), signature="x, /")
def unary(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    x = _number(call.arg("x"))
    if x is None:
        return None
    try:
        return _known(_UNARY[call.short_name](x))
    except (ArithmeticError, ValueError, TypeError):  # math.sqrt(-1), math.isqrt(2.5): Python raises
        return None


@REGISTRY.handles("math.log", signature="x, base=None, /")
def log(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    x = _number(call.arg("x"))
    base = _number(call.arg("base")) if call.given("base") else math.e
    if x is None or base is None:
        return None
    try:
        return _known(math.log(x, base))
    except (ArithmeticError, ValueError):
        return None


@REGISTRY.handles("math.prod", signature="iterable, /, *, start=1")
def prod(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`math.prod(x.shape[1:])`: the number of elements of known sizes."""
    items = call.arg("iterable")
    start = _number(call.arg("start")) if call.given("start") else 1
    if not isinstance(items, Seq) or start is None:
        return None
    numbers = [_number(item) for item in items.items]
    if any(n is None for n in numbers):
        return None
    result: int | float = start
    for n in numbers:
        assert n is not None
        result *= n
        if isinstance(result, int) and result.bit_length() > _MAX_BITS:
            return None
    return _known(result)
