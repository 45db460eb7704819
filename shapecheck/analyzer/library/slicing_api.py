"""`jax.lax.slice`, `dynamic_slice`, `dynamic_update_slice` and their one-axis forms
(`dynamic_slice_in_dim`, `dynamic_update_slice_in_dim`, `dynamic_index_in_dim`): a KV cache's
update, a window of a sequence. The shape rules are `algebra.slicing`; sizes, limits and axes
that are not literal ints leave the result unknown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import slicing
from shapecheck.algebra.outcome import Outcome, Problem, normalize_axis
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, finished, shape
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import LAX
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Seq, Value, as_int
from shapecheck.codes import Code
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_NEGATIVE: Final = "allow_negative_indices=True"


@REGISTRY.handles(f"{LAX}.dynamic_slice", signature=f"operand, start_indices, slice_sizes, *, {_NEGATIVE}")
def dynamic_slice(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    operand = call.arg("operand")
    sizes = shape(call.arg("slice_sizes"))
    if not isinstance(operand, ArrayType) or sizes is None:
        return None
    return finished(interp, call, slicing.dynamic_slice(operand, _count(call.arg("start_indices")), sizes,
                                                       "lax.dynamic_slice"))


@REGISTRY.handles(f"{LAX}.dynamic_update_slice", signature=f"operand, update, start_indices, *, {_NEGATIVE}")
def dynamic_update_slice(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    operand, update = call.arg("operand"), array(call.arg("update"))
    if not isinstance(operand, ArrayType) or update is None:
        return None
    return finished(interp, call, slicing.dynamic_update_slice(operand, update, _count(call.arg("start_indices")),
                                                              "lax.dynamic_update_slice"))


@REGISTRY.handles(f"{LAX}.slice", signature="operand, start_indices, limit_indices, strides=None")
def static_slice(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    operand = call.arg("operand")
    starts, limits = _ints(call.arg("start_indices")), _ints(call.arg("limit_indices"))
    given = call.arg("strides") if call.given("strides") else Const(None)
    strides = None if given == Const(None) else _ints(given)
    if not isinstance(operand, ArrayType) or starts is None or limits is None or (
            given != Const(None) and strides is None):
        return None
    return finished(interp, call, slicing.static_slice(operand, starts, limits, strides, "lax.slice"))


@REGISTRY.handles(f"{LAX}.slice_in_dim", signature="operand, start_index, limit_index, stride=1, axis=0")
def static_slice_in_dim(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`lax.slice` of one axis: None bounds are the dim's ends, negative ones count from its end."""
    operand = call.arg("operand")
    axis = as_int(call.arg("axis")) if call.given("axis") else 0
    stride = as_int(call.arg("stride")) if call.given("stride") else 1
    if not isinstance(operand, ArrayType) or operand.ellipsis is not None or axis is None or stride is None:
        return None
    place = normalize_axis(axis, len(operand.dims))
    if place is None:  # an axis out of range: SC106, as JAX's IndexError
        return finished(interp, call, slicing.slice_in_dim(operand, 1, axis, "lax.slice_in_dim"))
    if not all(isinstance(dim, int) for dim in operand.dims):
        return None
    limits = [dim for dim in operand.dims if isinstance(dim, int)]
    start, limit = _bound(call, "start_index", 0, limits[place]), _bound(call, "limit_index", limits[place], limits[place])
    if start is None or limit is None:
        return None
    starts, strides = [0] * len(limits), [1] * len(limits)
    starts[place], limits[place], strides[place] = start, limit, stride
    return finished(interp, call, slicing.static_slice(operand, starts, limits, strides, "lax.slice_in_dim"))


@REGISTRY.handles(f"{LAX}.index_in_dim", signature="operand, index, axis=0, keepdims=True")
def static_index_in_dim(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`operand[..., index]` on one axis (kept as a dim of 1 by default): an index outside the
    dim is SC106, as JAX's IndexError."""
    operand = call.arg("operand")
    axis = as_int(call.arg("axis")) if call.given("axis") else 0
    index = as_int(call.arg("index"))
    keepdims = call.arg("keepdims") if call.given("keepdims") else Const(True)
    if not isinstance(operand, ArrayType) or operand.ellipsis is not None or axis is None or index is None \
            or not isinstance(keepdims, Const):
        return None
    place = normalize_axis(axis, len(operand.dims))
    size = operand.dims[place] if place is not None else None
    if place is not None and isinstance(size, int) and not -size <= index < size:
        return finished(interp, call, Outcome(operand.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"lax.index_in_dim: index {index} is out of bounds for axis {axis} with size {size}",
            axes=(place,), sizes=(size,), operands=(0,)),)))
    return finished(interp, call, slicing.index_in_dim(operand, axis, bool(keepdims.value), "lax.index_in_dim"))


def _bound(call: CallArgs, parameter: str, default: int, size: int) -> int | None:
    """A bound of `slice_in_dim`: None is `default`, a negative one counts from the dim's end."""
    given = call.arg(parameter) if call.given(parameter) else Const(None)
    if given == Const(None):
        return default
    bound = as_int(given)
    return None if bound is None else bound + size if bound < 0 else bound


@REGISTRY.handles(f"{LAX}.dynamic_slice_in_dim",
                  signature=f"operand, start_index, slice_size, axis=0, *, {_NEGATIVE}")
def slice_in_dim(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    operand, size = call.arg("operand"), as_int(call.arg("slice_size"))
    axis = as_int(call.arg("axis")) if call.given("axis") else 0
    if not isinstance(operand, ArrayType) or size is None or axis is None:
        return None
    return finished(interp, call, slicing.slice_in_dim(operand, size, axis, "lax.dynamic_slice_in_dim"))


@REGISTRY.handles(f"{LAX}.dynamic_update_slice_in_dim", signature=f"operand, update, start_index, axis, *, {_NEGATIVE}")
def update_in_dim(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    operand, update, axis = call.arg("operand"), array(call.arg("update")), as_int(call.arg("axis"))
    if not isinstance(operand, ArrayType) or update is None or axis is None:
        return None
    return finished(interp, call, slicing.update_in_dim(operand, update, axis, "lax.dynamic_update_slice_in_dim"))


@REGISTRY.handles(f"{LAX}.dynamic_index_in_dim", signature=f"operand, index, axis=0, keepdims=True, *, {_NEGATIVE}")
def index_in_dim(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    operand = call.arg("operand")
    axis = as_int(call.arg("axis")) if call.given("axis") else 0
    keepdims = call.arg("keepdims") if call.given("keepdims") else Const(True)
    if not isinstance(operand, ArrayType) or axis is None or not isinstance(keepdims, Const):
        return None
    return finished(interp, call, slicing.index_in_dim(operand, axis, bool(keepdims.value), "lax.dynamic_index_in_dim"))


def _count(value: Value) -> int | None:
    """How many start indices were given: a tuple or list's items, a 1-d array's length."""
    if isinstance(value, Seq):
        return len(value.items)
    if isinstance(value, ArrayType) and value.ellipsis is None and len(value.dims) == 1:
        return value.dims[0] if isinstance(value.dims[0], int) else None
    return None


def _ints(value: Value) -> list[int] | None:
    """A tuple or list of literal ints; None where one is not known."""
    if not isinstance(value, Seq):
        return None
    found = [as_int(item) for item in value.items]
    return None if any(item is None for item in found) else [item for item in found if item is not None]

