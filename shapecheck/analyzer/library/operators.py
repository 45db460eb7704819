"""Python operators on arrays and constants: arithmetic, comparisons, `@`, indexing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import libcst as cst

from shapecheck.algebra import broadcast as algebra_broadcast
from shapecheck.algebra import layout, linalg
from shapecheck.algebra.promotion import Typed, function
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, finish, labels
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import AtIndexer, Const, Devices, Dict, Seq, Value, as_int
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_INT_OPS: dict[str, Callable[[int, int], int | None]] = {
    "Add": lambda a, b: a + b,
    "Subtract": lambda a, b: a - b,
    "Multiply": lambda a, b: a * b,
    "FloorDivide": lambda a, b: a // b if b else None,
    "Modulo": lambda a, b: a % b if b else None,
}


def unknown_partner(known: ArrayType) -> ArrayType:
    """`known op unknown`: dims that are not 1 survive broadcasting; more may come in front."""
    after = known.dims[known.ellipsis:] if known.ellipsis is not None else known.dims
    dims = tuple(None if d == 1 else d for d in after)
    return ArrayType(None, dims, known.named, 0, True)


# The jax.numpy function each operator calls, for its dtype rule (`/` of ints is a float).
_FUNCTIONS: dict[str, str] = {
    "Divide": "true_divide", "FloorDivide": "floor_divide", "Modulo": "mod", "Power": "power",
    "LeftShift": "left_shift", "RightShift": "right_shift", "Comparison": "equal",
}


def arithmetic(interp: Interpreter, call: CallArgs, operator: str) -> Value:
    left, right = call.args
    a, b = array(left), array(right)
    if isinstance(left, ArrayType) or isinstance(right, ArrayType):
        if a is None or b is None:
            known = a if a is not None else b
            assert known is not None
            return unknown_partner(known)
        result = finish(interp, algebra_broadcast.broadcast([a, b], labels(call)), call)
        dtype = function(_FUNCTIONS.get(operator, "add"), [Typed(a.dtype, a.weak), Typed(b.dtype, b.weak)])
        return replace(result, dtype=dtype.dtype, weak=dtype.weak)
    x, y = as_int(left), as_int(right)
    if x is not None and y is not None and operator in _INT_OPS:
        value = _INT_OPS[operator](x, y)
        return Const(value) if value is not None else None
    if isinstance(left, Seq) and isinstance(right, Seq) and operator == "Add":
        return Seq(left.items + right.items, left.is_list)
    if isinstance(left, Seq) and y is not None and operator == "Multiply" and 0 <= y <= 64:
        return Seq(left.items * y, left.is_list)
    return None


def _binary(name: str) -> None:
    @REGISTRY.handles(f"operator:{name}")
    def handler(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
        return arithmetic(interp, call, name)


for _name in ("Add", "Subtract", "Multiply", "Divide", "FloorDivide", "Modulo", "Power",
              "BitAnd", "BitOr", "BitXor", "LeftShift", "RightShift"):
    _binary(_name)


@REGISTRY.handles("operator:Comparison")
def comparison(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return arithmetic(interp, call, "Comparison")


@REGISTRY.handles("operator:MatrixMultiply")
def matmul_operator(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    left, right = call.args
    if isinstance(left, ArrayType) and isinstance(right, ArrayType):
        return finish(interp, linalg.matmul(left, right, labels(call)), call)
    return None


@REGISTRY.handles("operator:Subscript")
def subscript(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    node = call.node
    assert isinstance(node, cst.Subscript)
    base = call.args[0]
    items: list[layout.IndexItem] = []
    raw: list[Value] = []
    for element in node.slice:
        inner = element.slice
        if isinstance(inner, cst.Index):
            if isinstance(inner.value, cst.Ellipsis):
                items.append(layout.ELLIPSIS)
                raw.append(None)
                continue
            value = interp.eval(inner.value, scope, ctx)
            raw.append(value)
            if isinstance(value, Const) and value.value is None:
                items.append(layout.NEW_AXIS)
            elif isinstance(value, Const) and isinstance(value.value, int) and value.is_int:
                items.append(value.value)
            else:
                items.append(layout.OPAQUE)
        elif isinstance(inner, cst.Slice):
            bounds = [interp.eval(part, scope, ctx) if part is not None else Const(None)
                      for part in (inner.lower, inner.upper, inner.step)]
            known = all(isinstance(b, Const) and (b.value is None or b.is_int) for b in bounds)
            ints = [as_int(b) for b in bounds]
            items.append(layout.Slice(ints[0], ints[1], ints[2], unknown=not known))
            raw.append(None)
    if isinstance(base, ArrayType):
        return finish(interp, layout.index(base, items), call)
    if isinstance(base, AtIndexer):
        # The index of `x.at[...]` is checked when `.get()` reads it; updates keep x's type.
        return AtIndexer(base.receiver, True)
    if isinstance(base, Seq) and len(items) == 1:
        item = items[0]
        if isinstance(item, int) and -len(base.items) <= item < len(base.items):
            return base.items[item]
        if isinstance(item, layout.Slice) and not item.unknown:
            return Seq(base.items[item.start:item.stop:item.step], base.is_list)
        return None
    if isinstance(base, Devices) and len(items) == 1 and isinstance(items[0], layout.Slice):
        piece = items[0]
        if not piece.unknown and piece.step in (None, 1) and (piece.start or 0) >= 0 and piece.stop is not None \
                and piece.stop >= 0:
            # Assumes the program runs on enough devices: `jax.devices()[:4]` is four devices.
            return Devices(max(piece.stop - (piece.start or 0), 0))
        return Devices(None)
    if isinstance(base, Dict) and len(raw) == 1 and isinstance(raw[0], Const):
        for key, value in base.items:
            if key == raw[0]:
                return value
    return None
