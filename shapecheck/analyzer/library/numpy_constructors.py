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


@REGISTRY.handles(*each(JNP, "zeros", "ones", "empty"), signature="shape, dtype=None, *, device=None")
@REGISTRY.handles(f"{JNP}.full", signature="shape, fill_value, dtype=None, *, device=None")
def zeros(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dims = shape(call.arg("shape"))
    if dims is None:
        return None
    return ArrayType(dtype_arg(call.arg("dtype")), dims)


@REGISTRY.handles(*each(JNP, "zeros_like", "ones_like"), signature="a, dtype=None, shape=None, *, device=None")
@REGISTRY.handles(f"{JNP}.empty_like", signature="prototype, dtype=None, shape=None, *, device=None")
@REGISTRY.handles(f"{JNP}.full_like", signature="a, fill_value, dtype=None, shape=None, *, device=None")
def like(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    source = call.arg("prototype" if call.short_name == "empty_like" else "a")
    if not isinstance(source, ArrayType):
        return None
    dtype = dtype_arg(call.arg("dtype"))
    dims = shape(call.arg("shape")) if call.given("shape") else None
    result = source.with_dims(dims) if dims is not None else source
    return result.with_dtype(dtype) if dtype else result


@REGISTRY.handles(f"{JNP}.arange", signature="start, stop=None, step=None, dtype=None, *, device=None")
def arange(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dtype = dtype_arg(call.arg("dtype"))
    bounds = [name for name in ("start", "stop", "step") if call.given(name)]
    if not bounds or any(name in call.kwargs for name in bounds):
        return ArrayType(dtype, (None,))  # `arange(stop=5)` and friends: not worth the cases
    numbers = [as_int(call.arg(name)) for name in bounds]
    if any(n is None for n in numbers):
        return ArrayType(dtype, (None,))
    length = len(range(*[n for n in numbers if n is not None])) if numbers[-1] != 0 else None
    return ArrayType(dtype, (length,))


@REGISTRY.handles(f"{JNP}.eye", signature="N, M=None, k=0, dtype=None, *, device=None")
def eye(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    rows = as_int(call.arg("N"))
    columns = call.arg("M")
    cols = rows if columns is None or (isinstance(columns, Const) and columns.value is None) else as_int(columns)
    return ArrayType(dtype_arg(call.arg("dtype")), (rows, cols))


@REGISTRY.handles(f"{JNP}.identity", signature="n, dtype=None")
def identity(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    rows = as_int(call.arg("n"))
    return ArrayType(dtype_arg(call.arg("dtype")), (rows, rows))


@REGISTRY.handles(f"{JNP}.linspace", signature="start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0")
@REGISTRY.handles(f"{JNP}.logspace", signature="start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0")
@REGISTRY.handles(f"{JNP}.geomspace", signature="start, stop, num=50, endpoint=True, dtype=None, axis=0")
def linspace(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    num = as_int(call.arg("num")) if call.given("num") else 50
    return ArrayType(dtype_arg(call.arg("dtype")), (num,))


@REGISTRY.handles(f"{JNP}.array", signature="object, dtype=None, *, copy=True, order='K', ndmin=0, device=None")
def array(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    result = _as_array(call.arg("object"), dtype_arg(call.arg("dtype")))
    if result is None or not call.given("ndmin"):
        return result
    ndmin = as_int(call.arg("ndmin"))
    if ndmin is None or result.ellipsis is not None:
        return result.with_dims((), 0)
    # `np.array(x, ndmin=2)` pads the shape with leading 1s.
    return result.with_dims((1,) * max(ndmin - len(result.dims), 0) + result.dims)


@REGISTRY.handles(f"{JNP}.asarray", signature="a, dtype=None, order=None, *, copy=None, device=None")
def asarray(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _as_array(call.arg("a"), dtype_arg(call.arg("dtype")))


@REGISTRY.handles(f"{JNP}.copy", signature="a, order=None")
def copy(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _as_array(call.arg("a"), None)


def _as_array(source: Value, dtype: str | None) -> ArrayType | None:
    if isinstance(source, ArrayType):
        return source.with_dtype(dtype) if dtype else source
    if isinstance(source, Devices):
        return ArrayType(None, (source.count,))
    if isinstance(source, Seq):
        dims = nested_shape(source)
        return ArrayType(dtype, dims) if dims is not None else None
    if isinstance(source, Const) and isinstance(source.value, int | float):
        return ArrayType(dtype, ())
    return None


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
                                        "int32", "int64", "uint8", "uint32", "bool_", "complex64")),
                   signature="x, /")
def dtype_constructor(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("x")
    dtype = DTYPE_ALIASES.get(call.short_name)
    if isinstance(value, ArrayType):
        return value.with_dtype(dtype)
    return ArrayType(dtype, ()) if isinstance(value, Const) else None
