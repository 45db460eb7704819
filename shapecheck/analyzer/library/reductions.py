"""Reductions: sum and friends, arg-reductions, cumulative ones, norms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import promotion, reduction
from shapecheck.algebra.outcome import Problem, normalize_axis, out_of_range
from shapecheck.algebra.promotion import Typed
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    array,
    axes,
    axis_names,
    check_bound,
    finish,
    flag,
    passed,
    refused,
    requested_dtype,
)
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Seq,
    Value,
    as_int,
)
from shapecheck.codes import Code
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
    if keep and axis is None and _DTYPE_RULES.get(call.short_name, call.short_name) == "median" and \
            value.ellipsis is None and not value.dims:
        # The median and quantiles flatten their argument first: a 0-d one keeps a dim of 1.
        return finish(interp, outcome, call).with_dims((1,))
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
    name = "norm" if call.name.endswith("linalg.norm") else _DTYPE_RULES.get(call.short_name, call.short_name)
    return promotion.reduction(name, Typed(value.dtype, value.weak), requested or None).dtype


# Reductions whose dtype rule is another's: the norms', cumulative_sum's (which promotes
# integers as sum does, where cumsum keeps them narrow), the quantiles' (floating, as median's).
_DTYPE_RULES: Final = {
    "vector_norm": "norm", "matrix_norm": "norm", "cumulative_sum": "sum", "cumulative_prod": "prod",
    "nanmedian": "median", "quantile": "median", "percentile": "median", "nanquantile": "median",
    "nanpercentile": "median",
}


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
    ("median", "nanmedian"): "a, axis=None, out=None, overwrite_input=False, keepdims=False",
    ("ptp",): "a, axis=None, out=None, keepdims=False",
    ("count_nonzero",): "a, axis=None, keepdims=False",
    ("average",): "a, axis=None, weights=None, returned=False, keepdims=False",
}
REDUCTIONS: Final = tuple(name for names in _REDUCTION_SIGNATURES for name in names)
_REDUCTION_METHODS: Final = frozenset({"sum", "prod", "max", "min", "mean", "any", "all", "std", "var"})


def reduce_function(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    # Methods arrive with the receiver as argument 0: the same positions as the functions.
    result = reduce_call(interp, call, ctx, call.arg("a"), call.arg("axis"), call.given("axis"),
                         call.arg("keepdims"), _what(call))
    if call.short_name == "average" and call.given("returned") and call.arg("returned") != Const(False):
        # `returned=True`: the average and the sum of the weights, of one shape.
        return Seq((result, result)) if call.arg("returned") == Const(True) else None
    return result


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
        return refused(interp, call, problem)
    return value


@REGISTRY.handles(f"{JNP}.linalg.norm", signature="x, ord=None, axis=None, keepdims=False")
def norm(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return reduce_call(interp, call, ctx, call.arg("x"), call.arg("axis"), call.given("axis"),
                       call.arg("keepdims"), "jnp.linalg.norm")


@REGISTRY.handles(f"{JNP}.linalg.vector_norm", signature="x, /, *, axis=None, keepdims=False, ord=2")
def vector_norm(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return reduce_call(interp, call, ctx, call.arg("x"), call.arg("axis"), call.given("axis"),
                       call.arg("keepdims"), "jnp.linalg.vector_norm")


_MATRIX_AXES: Final = Seq((Const(-2), Const(-1)))


@REGISTRY.handles(f"{JNP}.linalg.matrix_norm", signature="x, /, *, keepdims=False, ord='fro'")
def matrix_norm(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The norm of each matrix: the last two dims reduced (they must exist)."""
    return reduce_call(interp, call, ctx, call.arg("x"), _MATRIX_AXES, True, call.arg("keepdims"),
                       "jnp.linalg.matrix_norm")


_QUANTILE = "a, q, axis=None, out=None, overwrite_input=False, method='linear', keepdims=False, *, weights=None"


@REGISTRY.handles(*each(JNP, "quantile", "nanquantile", "nanpercentile"), signature=_QUANTILE)
@REGISTRY.handles(f"{JNP}.percentile", signature=f"{_QUANTILE}, out_sharding=None")
def quantile(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """One reduction per entry of `q` (a scalar or a 1-d array), its dims first."""
    q = array(call.arg("q"))
    if q is None or q.ellipsis is not None or passed(call, "weights"):
        return None
    if len(q.dims) > 1:
        problem = Problem(Code.AXIS_OUT_OF_RANGE, f"jnp.{call.short_name} takes q of rank 0 or 1, but it has shape "
                          f"{q.positional_text()}", operands=(1,))
        return refused(interp, call, problem)
    reduced = reduce_call(interp, call, ctx, call.arg("a"), call.arg("axis"), call.given("axis"),
                          call.arg("keepdims"), f"jnp.{call.short_name}")
    if not isinstance(reduced, ArrayType) or reduced.ellipsis is not None:
        return reduced if not q.dims else None
    return reduced.with_dims((*q.dims, *reduced.dims))


@REGISTRY.handles(*each(JNP, "cumulative_sum", "cumulative_prod"),
                  signature="x, /, *, axis=None, dtype=None, include_initial=False")
def cumulative_array_api(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The array API's cumulative sums: an axis, given where the rank is above 1; one more
    element along it with `include_initial`."""
    value = call.arg("x")
    initial = flag(call.arg("include_initial")) if call.given("include_initial") else False
    if not isinstance(value, ArrayType) or value.ellipsis is not None or initial is None:
        return None
    value = value.with_dtype(_result_dtype(call, value))
    rank = len(value.dims)
    given = passed(call, "axis")
    axis = as_int(call.arg("axis")) if given else 0
    what = f"jnp.{call.short_name}"
    problem: Problem | None = None
    if axis is None:
        return None
    if not given and rank != 1:
        problem = Problem(Code.AXIS_OUT_OF_RANGE, f"{what} takes an explicit axis for an array of rank {rank} "
                          f"({value.positional_text()})")
    elif normalize_axis(axis, rank) is None:
        problem = out_of_range(axis, rank, f"the argument of {what}")
    if problem is not None:
        return refused(interp, call, problem)
    place = normalize_axis(axis, rank)
    assert place is not None
    size = value.dims[place]
    grown = size + 1 if initial and isinstance(size, int) else None if initial else size
    return value.with_dims((*value.dims[:place], grown, *value.dims[place + 1:]))
