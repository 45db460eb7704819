"""jax.random samplers: the shape they are given, and uniform's bounds broadcast into it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import broadcast as algebra_broadcast
from shapecheck.algebra import promotion
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import dtype_or, shape
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


@REGISTRY.handles(*each("jax.random", "normal", "gumbel", "laplace", "logistic", "cauchy", "exponential"),
                  signature="key, shape=(), dtype=None, *params")
@REGISTRY.handles("jax.random.uniform", signature="key, shape=(), dtype=None, minval=0.0, maxval=1.0")
@REGISTRY.handles("jax.random.randint", signature="key, shape, minval, maxval, dtype=None")
@REGISTRY.handles("jax.random.bernoulli", signature="key, p=0.5, shape=None, mode='low'")
@REGISTRY.handles("jax.random.truncated_normal", signature="key, lower, upper, shape=None, dtype=None")
@REGISTRY.handles("jax.random.rademacher", signature="key, shape, dtype=None")
def random(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    name = call.short_name
    # Samplers of reals default to the default float; randint and rademacher to the default int.
    default = promotion.default("i" if name in ("randint", "rademacher") else "f")
    dtype = dtype_or(call, default) if name != "bernoulli" else "bool_"
    if not call.given("shape"):
        # The scalar default, where there is one; elsewhere the shape comes from the parameters.
        return ArrayType(dtype, ()) if call.signature and call.signature.positional[1] == "shape" else None
    dims = shape(call.arg("shape"))
    if dims is None:
        return None
    result = ArrayType(dtype, dims)
    return _uniform_bounds(call, result) if name == "uniform" else result


def _uniform_bounds(call: CallArgs, result: ArrayType) -> ArrayType:
    """`uniform` returns `max(minval, sample)`: array bounds broadcast into the result's shape
    (the other samplers require their parameters to broadcast *to* `shape`)."""
    given = [call.arg(name) for name in ("minval", "maxval") if call.given(name)]
    arrays = [b for b in given if isinstance(b, ArrayType)]
    if any(not isinstance(b, ArrayType | Const) for b in given):
        # An unknown bound may be an array of any rank: leading dims and 1s become unknown.
        return ArrayType(result.dtype, tuple(None if d == 1 else d for d in result.dims), (), 0)
    if not arrays:
        return result
    widened = algebra_broadcast.broadcast([result, *arrays]).type
    return widened.with_dtype(result.dtype)
