"""What an array answers: shape, ndim, size, dtype, `.at[...]` updates, astype and copies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import broadcast
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    code_of,
    dtype_arg,
)
from shapecheck.analyzer.library.numpy_constructors import nested_shape
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    AtIndexer,
    Const,
    DType,
    Seq,
    Value,
    dim_value,
)
from shapecheck.dims import Dim, product
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


@REGISTRY.handles(f"{JNP}.ndim", f"{JNP}.shape", f"{JNP}.size", signature="a, axis=None")
def shape_function(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`np.ndim(x)`, `np.shape(x)`, `np.size(x)` of arrays, numbers and nested literals."""
    value = call.arg("a")
    dims: tuple[Dim, ...] | None = None
    if isinstance(value, ArrayType) and value.ellipsis is None:
        dims = value.dims
    elif isinstance(value, Const) and isinstance(value.value, int | float):
        dims = ()
    elif isinstance(value, Seq):
        dims = nested_shape(value)
    if dims is None or call.given("axis"):  # `np.size(x, axis)`: not modelled
        return None
    if call.short_name == "ndim":
        return Const(len(dims))
    if call.short_name == "size":
        total = product(dims)
        return Const(total) if total is not None else None
    return Seq(tuple(Const(d) if isinstance(d, int) else None for d in dims))


# An attribute is read as a call of one parameter, the array it is read from.
@REGISTRY.handles("attr:shape", signature="a")
def shape_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    if isinstance(value, ArrayType) and value.ellipsis is None:
        return Seq(tuple(dim_value(d) for d in value.dims))
    return None


@REGISTRY.handles("attr:ndim", signature="a")
def ndim_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    return Const(len(value.dims)) if isinstance(value, ArrayType) and value.ellipsis is None else None


@REGISTRY.handles("attr:size", signature="a")
def size_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    if isinstance(value, ArrayType) and value.ellipsis is None:
        total = product(value.dims)
        return Const(total) if total is not None else None
    return None


@REGISTRY.handles("attr:dtype", signature="a")
def dtype_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    return DType(value.dtype) if isinstance(value, ArrayType) and value.dtype else None


@REGISTRY.handles("attr:at", signature="a")
def at_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    return AtIndexer(value) if isinstance(value, ArrayType) else None


_AT_OPTIONS = "indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None, wrap_negative_indices=True"


# `x.at[i].set(v)`: the array `x` is the method's receiver, its first parameter.
@REGISTRY.handles(*(f"method:at.{name}" for name in ("set", "add", "multiply", "divide", "power", "min", "max")),
                  signature=f"a, values, *, {_AT_OPTIONS}")
@REGISTRY.handles("method:at.apply", signature=f"a, func, *, {_AT_OPTIONS}")
def at_update(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    values = call.arg("values") if call.given("values") else None
    if call.indexed is not None and isinstance(values, ArrayType):
        outcome = broadcast.update(call.indexed, values, ["the indexed part", f"`{code_of(call.arg_node('values'))}`"])
        interp.reporter.problems(outcome.problems, call.node)
    return call.arg("a")


@REGISTRY.handles("method:at.get", signature=f"a, *, {_AT_OPTIONS}, fill_value=None")
def at_get(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`x.at[idx].get()`: `x[idx]` (its sharding, and `out_sharding=`, are typed_shardings')."""
    return call.indexed


@REGISTRY.handles("attr:real", "attr:imag", signature="a")
def same_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return call.arg("a")


@REGISTRY.handles("method:astype", signature="a, dtype, copy=False, device=None")
@REGISTRY.handles(f"{JNP}.astype", signature="a, dtype, /, *, copy=False, device=None")
def astype(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    if not isinstance(value, ArrayType):
        return None
    return value.with_dtype(dtype_arg(call.arg("dtype")))


@REGISTRY.handles("method:copy", "method:block_until_ready", "method:conj", "method:conjugate", signature="a")
@REGISTRY.handles("method:round", signature="a, decimals=0, out=None")
@REGISTRY.handles("method:clip", signature="a, min=None, max=None")
def same_method(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return call.arg("a")
