"""jax.random samplers: the shape they are given, and uniform's bounds broadcast into it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import broadcast as algebra_broadcast
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    dtype_arg,
    shape,
)
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Value,
)
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


@REGISTRY.handles(*each("jax.random", "normal", "uniform", "bernoulli", "randint", "truncated_normal",
               "gumbel", "laplace", "logistic", "cauchy", "rademacher", "exponential"))
def random(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    name = call.short_name
    index = {"normal": 1, "uniform": 1, "randint": 1, "bernoulli": 2, "truncated_normal": 3}.get(name, 1)
    given = call.get(index, "shape")
    if given is None and not call.has(index, "shape"):
        return ArrayType(dtype_arg(call.kwargs.get("dtype")), ()) if name in ("normal", "uniform") else None
    dims = shape(given)
    if dims is None:
        return None
    result = ArrayType(dtype_arg(call.get(2, "dtype") if name == "uniform" else call.kwargs.get("dtype")), dims)
    return _uniform_bounds(call, result) if name == "uniform" else result


def _uniform_bounds(call: CallArgs, result: ArrayType) -> ArrayType:
    """`uniform` returns `max(minval, sample)`: array bounds broadcast into the result's shape
    (the other samplers require their parameters to broadcast *to* `shape`)."""
    given = [call.get(i, n) for i, n in ((3, "minval"), (4, "maxval")) if call.has(i, n)]
    arrays = [b for b in given if isinstance(b, ArrayType)]
    if any(not isinstance(b, ArrayType | Const) for b in given):
        # An unknown bound may be an array of any rank: leading dims and 1s become unknown.
        return ArrayType(result.dtype, tuple(None if d == 1 else d for d in result.dims), (), 0)
    if not arrays:
        return result
    widened = algebra_broadcast.broadcast([result, *arrays]).type
    return widened.with_dtype(result.dtype)
