"""jax.numpy constructors: zeros, ones, full, arange, eye, linspace, array, dtype casts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    DTYPE_ALIASES,
    dtype_arg,
    shape,
)
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Devices,
    Seq,
    Value,
    as_int,
)
from shapecheck.dims import Dim
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


@REGISTRY.handles(*each(JNP, "zeros", "ones", "empty"), *each("jax.numpy", "full"))
def zeros(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dims = shape(call.get(0, "shape"))
    dtype_index = 2 if call.short_name == "full" else 1
    dtype = dtype_arg(call.get(dtype_index, "dtype"))
    if dims is None:
        return None
    return ArrayType(dtype, dims)


@REGISTRY.handles(*each(JNP, "zeros_like", "ones_like", "empty_like", "full_like"))
def like(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    source = call.get(0, "a")
    if not isinstance(source, ArrayType):
        return None
    dtype = dtype_arg(call.kwargs.get("dtype"))
    dims = shape(call.kwargs.get("shape")) if "shape" in call.kwargs else None
    result = source.with_dims(dims) if dims is not None else source
    return result.with_dtype(dtype) if dtype else result


@REGISTRY.handles(f"{JNP}.arange")
def arange(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    numbers = [as_int(call.get(i)) for i in range(min(len(call.args), 3))]
    if "stop" in call.kwargs or "start" in call.kwargs or "step" in call.kwargs or not numbers:
        return ArrayType(dtype_arg(call.kwargs.get("dtype")), (None,))
    dtype = dtype_arg(call.kwargs.get("dtype"))
    if any(n is None for n in numbers):
        return ArrayType(dtype, (None,))
    length = len(range(*[n for n in numbers if n is not None])) if numbers[-1] != 0 else None
    return ArrayType(dtype, (length,))


@REGISTRY.handles(f"{JNP}.eye", f"{JNP}.identity")
def eye(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    rows = as_int(call.get(0, "N" if "N" in call.kwargs else "n"))
    columns = call.get(1, "M")
    cols = rows if columns is None or (isinstance(columns, Const) and columns.value is None) else as_int(columns)
    return ArrayType(dtype_arg(call.kwargs.get("dtype")), (rows, cols))


@REGISTRY.handles(f"{JNP}.linspace", f"{JNP}.logspace", f"{JNP}.geomspace")
def linspace(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    num = call.get(2, "num")
    return ArrayType(dtype_arg(call.kwargs.get("dtype")), (50 if num is None and not call.has(2, "num")
                                                         else as_int(num),))


@REGISTRY.handles(f"{JNP}.array", f"{JNP}.asarray", "jax.device_put", f"{JNP}.copy")
def as_array(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    source = call.get(0, "object" if "object" in call.kwargs else "a")
    dtype = dtype_arg(call.get(1, "dtype"))
    result: ArrayType | None = None
    if isinstance(source, ArrayType):
        result = source.with_dtype(dtype) if dtype else source
    elif isinstance(source, Devices):
        result = ArrayType(None, (source.count,))
    elif isinstance(source, Seq):
        dims = nested_shape(source)
        result = ArrayType(dtype, dims) if dims is not None else None
    elif isinstance(source, Const) and isinstance(source.value, int | float):
        result = ArrayType(dtype, ())
    if result is None or "ndmin" not in call.kwargs:
        return result
    ndmin = as_int(call.kwargs["ndmin"])
    if ndmin is None or result.ellipsis is not None:
        return result.with_dims((), 0)
    # `np.array(x, ndmin=2)` pads the shape with leading 1s.
    return result.with_dims((1,) * max(ndmin - len(result.dims), 0) + result.dims)


def nested_shape(value: Value) -> tuple[Dim, ...] | None:
    if isinstance(value, Seq):
        inner = [nested_shape(item) for item in value.items]
        if not inner:
            return (0,)
        first = inner[0]
        if first is None or any(other != first for other in inner[1:]):
            return None
        return (len(value.items), *first)
    if isinstance(value, Const) and isinstance(value.value, int | float):
        return ()
    return None


@REGISTRY.handles(*(f"{JNP}.{name}" for name in ("float32", "float64", "float16", "bfloat16", "int8", "int16",
                                        "int32", "int64", "uint8", "uint32", "bool_", "complex64")))
def dtype_constructor(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.get(0)
    dtype = DTYPE_ALIASES.get(call.short_name)
    if isinstance(value, ArrayType):
        return value.with_dtype(dtype)
    return ArrayType(dtype, ()) if isinstance(value, Const) else None
