"""Picking elements: `jnp.take`, `take_along_axis`, `where`, `lax.top_k`, `jax.ops.segment_*`."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from shapecheck.algebra import gather
from shapecheck.algebra.promotion import Typed, default, result_type
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, finish, labels
from shapecheck.analyzer.library.elementwise import elementwise
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import JNP, LAX, OPS
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Seq, Value, as_dim, as_int
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_TAKE = "a, indices, axis=None, out=None, mode=None, unique_indices=False, indices_are_sorted=False, fill_value=None"


@REGISTRY.handles(f"{JNP}.take", "method:take", signature=_TAKE)
def take(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    a, indices = call.arg("a"), array(call.arg("indices"))
    axis = call.arg("axis") if call.given("axis") else Const(None)
    if not isinstance(a, ArrayType) or indices is None or (as_int(axis) is None and axis != Const(None)):
        return None
    return finish(interp, gather.take(a, indices, as_int(axis), labels(call, 2)), call)


@REGISTRY.handles(f"{JNP}.take_along_axis",
                  signature="arr, indices, axis=-1, mode=None, fill_value=None, *, wrap_negative_indices=None")
def take_along_axis(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    arr, indices = call.arg("arr"), call.arg("indices")
    axis = call.arg("axis") if call.given("axis") else Const(-1)
    if not isinstance(arr, ArrayType) or not isinstance(indices, ArrayType) or (
            as_int(axis) is None and axis != Const(None)):
        return None
    return finish(interp, gather.take_along_axis(arr, indices, as_int(axis), labels(call, 2)), call)


@REGISTRY.handles(f"{JNP}.where", signature="condition, x=None, y=None, /, *, size=None, fill_value=None")
def where(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    condition = call.arg("condition")
    if not call.given("x") and not call.given("y"):
        return _nonzero(call, array(condition))
    if not (call.given("x") and call.given("y")) or call.given("size") or call.given("fill_value"):
        return None  # JAX refuses these forms (TypeError, ValueError): not a shape question
    x, y = call.arg("x"), call.arg("y")
    result = elementwise(interp, call, [condition, x, y])
    if not isinstance(result, ArrayType):
        return result
    # The condition only selects: the dtype is x's and y's, promoted (not the condition's).
    branches = [array(x), array(y)]
    if call.plain_numpy or None in branches:
        return replace(result, dtype=None, weak=False)
    dtype = result_type(*(Typed(b.dtype, b.weak) for b in branches if b is not None))
    return replace(result, dtype=dtype.dtype, weak=dtype.weak)


def _nonzero(call: CallArgs, condition: ArrayType | None) -> Value:
    """`jnp.where(condition)`: one index array per dim, of the number of true elements, or `size`."""
    if condition is None or not condition.rank or condition.named:
        return None
    size = as_dim(call.arg("size")) if call.given("size") else None
    indices = ArrayType(None if call.plain_numpy else default("i").dtype, (size,))
    return Seq((indices,) * condition.rank)


@REGISTRY.handles(f"{LAX}.top_k", signature="operand, k, *, axis=-1")
def top_k(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    operand = call.arg("operand")
    axis = as_int(call.arg("axis")) if call.given("axis") else -1
    if not isinstance(operand, ArrayType) or axis is None:
        return None
    pieces = gather.top_k(operand, as_dim(call.arg("k")), axis)
    interp.reporter.problems(pieces.problems, call.node, call.arg_nodes)
    return Seq(pieces.types, True) if pieces.types is not None else None


_SEGMENT = ("data, segment_ids, num_segments=None, indices_are_sorted=False, unique_indices=False, "
            "bucket_size=None, mode=None, out_sharding=None")


@REGISTRY.handles(*each(OPS, "segment_sum", "segment_max", "segment_min", "segment_prod"), signature=_SEGMENT)
def segment(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    data, segment_ids = array(call.arg("data")), array(call.arg("segment_ids"))
    if data is None or segment_ids is None:
        return None
    outcome = gather.segment(data, segment_ids, as_dim(call.arg("num_segments")), call.short_name, labels(call, 2))
    return replace(finish(interp, outcome, call), weak=False)
