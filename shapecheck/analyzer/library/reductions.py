"""Reductions: sum and friends, arg-reductions, cumulative ones, norms."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import reduction
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    axes,
    axis_names,
    check_bound,
    finish,
    flag,
)
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Value,
)
from shapecheck.dims import product
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


REDUCTIONS = ("sum", "prod", "max", "min", "mean", "amax", "amin", "any", "all", "nansum", "nanprod",
              "nanmax", "nanmin", "nanmean", "std", "var", "nanstd", "nanvar", "median", "ptp",
              "count_nonzero", "average")
ARG_REDUCTIONS = ("argmax", "argmin", "nanargmax", "nanargmin")


def reduce_call(interp: Interpreter, call: CallArgs, ctx: Context, value: Value, axis_value: Value,
                axis_given: bool, keepdims: Value, what: str, *, positional_only: bool = False,
                dtype: str | None = None, axis_index: int = 1) -> Value:
    if not isinstance(value, ArrayType):
        return None
    axis = axes(axis_value) if axis_given else None
    if axis is False:
        return ArrayType(dtype or value.dtype, (), value.named, 0, True)
    keep = flag(keepdims) if keepdims is not None else False
    if keep is None:
        return ArrayType(dtype or value.dtype, (), value.named, 0, value.named_open)
    assert axis is not False and not isinstance(axis, bool)
    if call.plain_numpy and value.ellipsis is None and not value.dims and axis in (0, -1, (0,), (-1,)):
        return value.with_dtype(dtype) if dtype else value  # NumPy reduces a 0-d array over axis 0
    names = axis_names(axis)
    if names:
        check_bound(interp, names, call, ctx, call.node_of(axis_index, "axis"), what)
    outcome = reduction.reduce(value, axis, keepdims=keep, what=f"the argument of {what}", dtype=dtype)
    return finish(interp, outcome, call)


def _what(call: CallArgs) -> str:
    """How a message names the reduction: `jnp.sum` or `.sum()`."""
    return f".{call.short_name}()" if call.name.startswith("method:") else f"jnp.{call.short_name}"


@REGISTRY.handles(*each(JNP, *REDUCTIONS),
         *(f"method:{name}" for name in ("sum", "prod", "max", "min", "mean", "any", "all", "std", "var")))
def reduce_function(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    # Methods arrive with the receiver as argument 0: the same positions as the functions.
    name = call.short_name
    dtype = "bool_" if name in ("any", "all") else ("i32" if name == "count_nonzero" else None)
    return reduce_call(interp, call, ctx, call.get(0, "a"), call.get(1, "axis"), call.has(1, "axis"),
                       call.kwargs.get("keepdims"), _what(call), dtype=dtype)


@REGISTRY.handles(*each(JNP, *ARG_REDUCTIONS), "method:argmax", "method:argmin")
def arg_reduce_function(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.get(0, "a")
    if isinstance(value, ArrayType) and not call.has(1, "axis"):
        return ArrayType("i32", (), value.named, None, value.named_open)
    return reduce_call(interp, call, ctx, value, call.get(1, "axis"), call.has(1, "axis"),
                       call.kwargs.get("keepdims"), _what(call), dtype="i32")


@REGISTRY.handles(f"{JNP}.cumsum", f"{JNP}.cumprod", "method:cumsum", "method:cumprod")
def cumulative(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.get(0)
    if not isinstance(value, ArrayType):
        return None
    if not call.has(1, "axis") or (isinstance(call.get(1, "axis"), Const) and call.get(1, "axis") == Const(None)):
        return value.with_dims((product(value.dims) if value.ellipsis is None else None,))
    return value


@REGISTRY.handles(f"{JNP}.linalg.norm")
def norm(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return reduce_call(interp, call, ctx, call.get(0, "x"), call.get(2, "axis"), call.has(2, "axis"),
                       call.kwargs.get("keepdims"), "jnp.linalg.norm", axis_index=2)
