"""jax.nn: activations, one_hot with named axes, softmax and logsumexp over names, and
dot_product_attention."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import reduction
from shapecheck.algebra.attention import dot_product_attention as attention_type
from shapecheck.algebra.one_hot import one_hot as one_hot_type
from shapecheck.algebra.outcome import Problem, normalize_axis, out_of_range
from shapecheck.algebra.promotion import Typed, default, function
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    axes,
    axis_names,
    check_bound,
    dtype_or,
    finish,
    flag,
    refused,
)
from shapecheck.analyzer.library.elementwise import elementwise
from shapecheck.analyzer.library.reductions import reduce_call
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import NN
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Seq, Value, as_int
from shapecheck.codes import Code
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

ACTIVATIONS = ("relu", "relu6", "sigmoid", "softplus", "soft_sign", "silu", "swish", "log_sigmoid",
               "leaky_relu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "elu", "celu",
               "selu", "gelu", "mish", "squareplus", "sparse_plus", "tanh", "identity", "log1mexp",
               "sparse_sigmoid")


@REGISTRY.handles(*each(NN, *ACTIVATIONS), signature="x, *params")
def activation(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("x")
    if not isinstance(value, ArrayType):
        return elementwise(interp, call, [value, *call.rest()])
    dtype = function(call.short_name, [Typed(value.dtype, value.weak)])  # sigmoid of ints is a float
    return value.with_dtype(dtype.dtype, dtype.weak)


@REGISTRY.handles(f"{NN}.glu", signature="x, axis=-1")
def glu(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The gated linear unit: `axis` split in two halves (its size even, SC107), one gating the other."""
    value = call.arg("x")
    axis = as_int(call.arg("axis")) if call.given("axis") else -1
    if not isinstance(value, ArrayType) or axis is None or value.ellipsis is not None:
        return None
    rank = len(value.dims)
    place = normalize_axis(axis, rank)
    problem = out_of_range(axis, rank, "jax.nn.glu's argument") if place is None else None
    size = value.dims[place] if place is not None else None
    if problem is None and isinstance(size, int) and size % 2:
        problem = Problem(Code.SIZE_ARGUMENT_MISMATCH, f"jax.nn.glu splits axis {axis} in two halves, but "
                          f"{value.positional_text()} has {size} along it, an odd size", sizes=(size,))
    if problem is not None:
        return refused(interp, call, problem)
    if place is None:
        return None
    dtype = function("glu", [Typed(value.dtype, value.weak)])
    if value.dtype is not None and value.dtype != dtype.dtype:
        return None  # integers: JAX's logistic refuses them, which is not a shape's to report
    half = size // 2 if isinstance(size, int) else None
    return value.with_dims((*value.dims[:place], half, *value.dims[place + 1:])).with_dtype(dtype.dtype, dtype.weak)


@REGISTRY.handles(f"{NN}.logsumexp", signature="a, axis=None, b=None, keepdims=False, return_sign=False, where=None")
@REGISTRY.handles(f"{NN}.logmeanexp", signature="a, axis=None, where=None, keepdims=False")
def logsumexp(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    result = reduce_call(interp, call, ctx, call.arg("a"), call.arg("axis"), call.given("axis"),
                         call.arg("keepdims"), call.short_name)
    if call.short_name == "logsumexp" and call.given("return_sign") and call.arg("return_sign") != Const(False):
        # `return_sign=True`: the log of the absolute sum, and its sign, of one shape.
        return Seq((result, result)) if call.arg("return_sign") == Const(True) else None
    return result


@REGISTRY.handles(*each(NN, "softmax", "log_softmax"), signature="x, axis=-1, where=None")
@REGISTRY.handles(*each(NN, "standardize", "normalize"),
                  signature="x, axis=-1, mean=None, variance=None, epsilon=1e-05, where=None, *, algorithm='fast'")
def softmax(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("x")
    if not isinstance(value, ArrayType):
        return None
    axis = axes(call.arg("axis")) if call.given("axis") else -1
    names = axis_names(axis)
    if names:
        check_bound(interp, names, call, ctx, call.arg_node("axis"), f"jax.nn.{call.short_name}")
    if not isinstance(axis, bool | type(None)):
        # The reduction is only run for its checks: softmax keeps its argument's shape.
        finish(interp, reduction.reduce(value, axis, keepdims=True, what=f"jax.nn.{call.short_name}"), call)
    dtype = function(call.short_name, [Typed(value.dtype, value.weak)])  # a float, whatever goes in
    return value.with_dtype(dtype.dtype, dtype.weak)


@REGISTRY.handles(f"{NN}.one_hot", signature="x, num_classes, *, dtype=None, axis=-1")
def one_hot(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    labels_value = call.arg("x")
    count_value = call.arg("num_classes")
    count = as_int(count_value)
    dtype = dtype_or(call, default("f"))
    axis_value = call.arg("axis") if call.given("axis") else Const(-1)
    axis = axes(axis_value)
    if not isinstance(labels_value, ArrayType):
        return None
    if isinstance(axis, str):
        check_bound(interp, [axis], call, ctx, call.arg_node("axis"), "jax.nn.one_hot")
    elif not isinstance(axis, int) or isinstance(axis, bool):
        return None
    result, problems = one_hot_type(labels_value, count, axis, dtype, ctx.size_of(axis) if isinstance(axis, str) else None)
    interp.reporter.problems(problems, call.node, [call.arg_node("x"), call.arg_node("num_classes")])
    return result


@REGISTRY.handles(f"{NN}.dot_product_attention",
                  signature="query, key, value, bias=None, mask=None, *, scale=None, is_causal=False, "
                            "query_seq_lengths=None, key_value_seq_lengths=None, local_window_size=None, "
                            "implementation=None, return_residual=False")
def dot_product_attention(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`jax.nn.dot_product_attention(q, k, v)`: q `(B, T, N, H)`, k and v `(B, S, K, H)`."""
    query, key, value = (call.arg(name) for name in ("query", "key", "value"))
    if not (isinstance(query, ArrayType) and isinstance(key, ArrayType) and isinstance(value, ArrayType)):
        return None
    bias, mask, query_lengths, key_lengths = (
        given if isinstance(given := call.arg(name), ArrayType) else None
        for name in ("bias", "mask", "query_seq_lengths", "key_value_seq_lengths"))
    outcome = attention_type(query, key, value, bias, mask, query_lengths, key_lengths)
    interp.reporter.problems(outcome.problems, call.node)
    result = outcome.type
    residual = flag(call.arg("return_residual")) if call.given("return_residual") else False
    if residual is False:
        return result
    if residual is None or result.rank is None or not result.dims:
        return None
    # The log-sum-exp of each query row: the output's shape without the head size.
    return Seq((result, result.with_dims(result.dims[:-1])))
