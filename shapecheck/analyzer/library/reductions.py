"""Reductions: sum and friends, arg-reductions, cumulative ones, norms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import promotion, reduction
from shapecheck.algebra.outcome import normalize_axis, out_of_range
from shapecheck.algebra.promotion import Typed
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    axes,
    axis_names,
    check_bound,
    finish,
    flag,
    requested_dtype,
)
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Value,
    as_int,
)
from shapecheck.dims import product
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


ARG_REDUCTIONS = ("argmax", "argmin", "nanargmax", "nanargmin")


def reduce_call(interp: Interpreter, call: CallArgs, ctx: Context, value: Value, axis_value: Value,
                axis_given: bool, keepdims: Value, what: str) -> Value:
    if not isinstance(value, ArrayType):
        return None
    dtype = _result_dtype(call, value)
    axis = axes(axis_value) if axis_given else None
    if axis is False:
        return ArrayType(dtype, (), value.named, 0, True)
    keep = flag(keepdims) if keepdims is not None else False
    if keep is None:
        return ArrayType(dtype, (), value.named, 0, value.named_open)
    assert axis is not False and not isinstance(axis, bool)
    if call.plain_numpy and value.ellipsis is None and not value.dims and axis in (0, -1, (0,), (-1,)):
        return value.with_dtype(dtype)  # NumPy reduces a 0-d array over axis 0
    names = axis_names(axis)
    if names:
        check_bound(interp, names, call, ctx, call.arg_node("axis"), what)
    outcome = reduction.reduce(value, axis, keepdims=keep, what=f"the argument of {what}", dtype=dtype,
                               keep_dtype=False)
    return finish(interp, outcome, call)


def _result_dtype(call: CallArgs, value: ArrayType) -> str | None:
    """The reduction's dtype by JAX's rule for it (`mean` of ints is a float, `sum` of bools an
    int); unknown where a `dtype=` or `promote_integers=` the checker cannot read decides."""
    if call.plain_numpy:
        return None  # NumPy's own rules (a mean in float64, sums in the platform int)
    requested = requested_dtype(call)
    if requested is None:
        return None
    signature = call.signature
    if signature is not None and signature.accepts("promote_integers") and call.given("promote_integers") \
            and call.arg("promote_integers") != Const(True):
        return None
    name = "norm" if call.name.endswith("linalg.norm") else call.short_name
    return promotion.reduction(name, Typed(value.dtype, value.weak), requested or None).dtype


def _what(call: CallArgs) -> str:
    """How a message names the reduction: `jnp.sum` or `.sum()`."""
    return f".{call.short_name}()" if call.name.startswith("method:") else f"jnp.{call.short_name}"


# Each reduction's parameters as jax.numpy declares them; the array methods take the same
# after the receiver.
_REDUCTION_SIGNATURES: Final = {
    ("sum", "prod", "nansum", "nanprod"):
        "a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, promote_integers=True",
    ("max", "min", "amax", "amin", "nanmax", "nanmin"):
        "a, axis=None, out=None, keepdims=False, initial=None, where=None",
    ("any", "all"): "a, axis=None, out=None, keepdims=False, *, where=None",
    ("mean", "nanmean"): "a, axis=None, dtype=None, out=None, keepdims=False, *, where=None",
    ("std", "var", "nanstd", "nanvar"):
        "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None, correction=None",
    ("median",): "a, axis=None, out=None, overwrite_input=False, keepdims=False",
    ("ptp",): "a, axis=None, out=None, keepdims=False",
    ("count_nonzero",): "a, axis=None, keepdims=False",
    ("average",): "a, axis=None, weights=None, returned=False, keepdims=False",
}
REDUCTIONS: Final = tuple(name for names in _REDUCTION_SIGNATURES for name in names)
_REDUCTION_METHODS: Final = frozenset({"sum", "prod", "max", "min", "mean", "any", "all", "std", "var"})


def reduce_function(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    # Methods arrive with the receiver as argument 0: the same positions as the functions.
    return reduce_call(interp, call, ctx, call.arg("a"), call.arg("axis"), call.given("axis"),
                       call.arg("keepdims"), _what(call))


for _names, _signature in _REDUCTION_SIGNATURES.items():
    REGISTRY.handles(*each(JNP, *_names), *(f"method:{name}" for name in _names if name in _REDUCTION_METHODS),
                     signature=_signature)(reduce_function)


@REGISTRY.handles(*each(JNP, *ARG_REDUCTIONS), "method:argmax", "method:argmin",
                  signature="a, axis=None, out=None, keepdims=None")
def arg_reduce_function(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    if isinstance(value, ArrayType) and not call.given("axis"):
        return ArrayType(_result_dtype(call, value), (), value.named, None, value.named_open)
    return reduce_call(interp, call, ctx, value, call.arg("axis"), call.given("axis"),
                       call.arg("keepdims"), _what(call))


@REGISTRY.handles(f"{JNP}.cumsum", f"{JNP}.cumprod", "method:cumsum", "method:cumprod",
                  signature="a, axis=None, dtype=None, out=None")
def cumulative(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    if not isinstance(value, ArrayType):
        return None
    value = value.with_dtype(_result_dtype(call, value))
    if not call.given("axis") or call.arg("axis") == Const(None):
        return value.with_dims((product(value.dims) if value.ellipsis is None else None,))
    axis = as_int(call.arg("axis"))
    if axis is not None and value.ellipsis is None and normalize_axis(axis, len(value.dims)) is None:
        problem = out_of_range(axis, len(value.dims), f"the argument of {_what(call)}")
        interp.reporter.problems([problem], call.node, call.arg_nodes)
        return None
    return value


@REGISTRY.handles(f"{JNP}.linalg.norm", signature="x, ord=None, axis=None, keepdims=False")
def norm(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return reduce_call(interp, call, ctx, call.arg("x"), call.arg("axis"), call.given("axis"),
                       call.arg("keepdims"), "jnp.linalg.norm")
