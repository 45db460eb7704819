"""jax.numpy constructors: zeros, ones, full, arange, eye, linspace, array, dtype casts, window
functions (hanning, kaiser, ...); and NumPy's random generators
(`np.random.default_rng(seed).normal(size=...)`, `np.random.randn`)."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from shapecheck.algebra import layout, promotion, sampling, windows
from shapecheck.algebra.promotion import Typed
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    DTYPE_ALIASES,
    code_of,
    dtype_or,
    element_nodes,
    requested_dtype,
    shape,
)
from shapecheck.analyzer.library.common import array as operand
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import JNP, NP_RANDOM
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Devices,
    Qual,
    Seq,
    Value,
    as_dim,
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
    if call.short_name == "full":
        # The fill value's dtype, weak for a Python number (`jnp.full(3, 1)` is a weak int).
        fill = operand(call.arg("fill_value"))
        typed = Typed(fill.dtype, fill.weak) if fill is not None else promotion.UNKNOWN
        if requested_dtype(call) is not False or call.plain_numpy:
            typed = Typed(dtype_or(call, typed))
        return ArrayType(typed.dtype, dims, weak=typed.weak)
    return ArrayType(dtype_or(call, promotion.default("f")), dims)


@REGISTRY.handles(*each(JNP, "zeros_like", "ones_like"), signature="a, dtype=None, shape=None, *, device=None")
@REGISTRY.handles(f"{JNP}.empty_like", signature="prototype, dtype=None, shape=None, *, device=None")
@REGISTRY.handles(f"{JNP}.full_like", signature="a, fill_value, dtype=None, shape=None, *, device=None")
def like(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    source = call.arg("prototype" if call.short_name == "empty_like" else "a")
    if not isinstance(source, ArrayType):
        return None
    dims = shape(call.arg("shape")) if call.given("shape") else None
    result = source.with_dims(dims) if dims is not None else source
    # JAX fills it from `a`'s shape alone: under vmap or pmap it is not batched along their
    # axes (it does vary over a shard_map's manual axes, as `a` does).
    unbatched = ctx.hidden - ctx.manual
    if unbatched and any(name in unbatched for name, _ in result.named):
        result = result.with_named((name, size) for name, size in result.named if name not in unbatched)
    requested = requested_dtype(call)
    return result if requested is False else result.with_dtype(requested or None)


@REGISTRY.handles(f"{JNP}.arange", signature="start, stop=None, step=None, dtype=None, *, device=None")
def arange(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    bounds = [name for name in ("start", "stop", "step") if call.given(name)]
    # Python ints make the default int, a Python float the default float; other bounds decide
    # in ways not followed here.
    values = [call.arg(name) for name in bounds]
    literals = [v.value for v in values if isinstance(v, Const) and isinstance(v.value, int | float)]
    default = promotion.UNKNOWN
    if values and len(literals) == len(values):
        default = promotion.default("f" if any(isinstance(n, float) for n in literals) else "i")
    dtype = dtype_or(call, default)
    if not bounds or any(name in call.kwargs for name in bounds):
        return ArrayType(dtype, (None,))  # `arange(stop=5)` and friends: not worth the cases
    if len(literals) == len(values) and any(isinstance(n, float) for n in literals):
        # Float bounds: ceil((stop - start) / step) elements, as NumPy (and so JAX) count them.
        start, stop, step = ([0.0, *literals, 1.0] if len(literals) == 1 else [*literals, 1.0])[:3] \
            if len(literals) < 3 else literals
        if step == 0 or not all(math.isfinite(n) for n in (start, stop, step)):
            return ArrayType(dtype, (None,))
        return ArrayType(dtype, (max(0, math.ceil((stop - start) / step)),))
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
    return ArrayType(dtype_or(call, promotion.default("f")), (rows, cols))


@REGISTRY.handles(f"{JNP}.identity", signature="n, dtype=None")
def identity(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    rows = as_int(call.arg("n"))
    return ArrayType(dtype_or(call, promotion.default("f")), (rows, rows))


@REGISTRY.handles(f"{JNP}.linspace", signature="start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0")
@REGISTRY.handles(f"{JNP}.logspace", signature="start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0")
@REGISTRY.handles(f"{JNP}.geomspace", signature="start, stop, num=50, endpoint=True, dtype=None, axis=0")
def linspace(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    num = as_int(call.arg("num")) if call.given("num") else 50
    result = ArrayType(dtype_or(call, promotion.default("f")), (num,))
    if call.short_name == "linspace" and call.given("retstep") and call.arg("retstep") != Const(False):
        # `retstep=True`: the samples and the step between them.
        return Seq((result, result.with_dims(()))) if call.arg("retstep") == Const(True) else None
    return result


@REGISTRY.handles(*each(JNP, "hanning", "hamming", "blackman", "bartlett"), signature="M")
@REGISTRY.handles(f"{JNP}.kaiser", signature="M, beta")
def window(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`(M,)` of the default float type (`windows.window`). `M` is read as JAX reads it, by
    `int(M)`; a traced `M` is the registry's SC107 (`M` is a parameter JAX needs concrete)."""
    size = _window_size(call.arg("M"))
    if size is None or call.plain_numpy:
        return None  # NumPy's windows are float64 whatever x64 says: not followed
    beta: ArrayType | None = None
    nodes = [call.arg_node("M")]
    if call.short_name == "kaiser":
        beta = operand(call.arg("beta"))
        if beta is None and size > 1:
            return None  # a beta of unknown shape may broadcast the window to more dims
        nodes.append(call.arg_node("beta"))
    outcome = windows.window(f"jnp.{call.short_name}", size, promotion.default("f").dtype, beta,
                             [f"`{code_of(node)}`" for node in nodes])
    # A named size mismatch is beta's against the window's (`broadcast`'s operands 0 and 1).
    interp.reporter.problems(outcome.problems, call.node, [nodes[-1], call.node])
    return None if outcome.problems else outcome.type


def _window_size(value: Value) -> int | None:
    """`int(M)` where `M` is a known number: a float is truncated toward 0 (`jnp.hanning(2.5)`
    has 2 samples), a bool is 0 or 1. None for anything else, and for what `int` refuses."""
    if not isinstance(value, Const) or not isinstance(value.value, int | float) or \
            (isinstance(value.value, float) and not math.isfinite(value.value)):
        return None
    return int(value.value)


@REGISTRY.handles(f"{JNP}.array", signature="object, dtype=None, *, copy=True, order='K', ndmin=0, device=None")
def array(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if _unstackable(interp, call, "object"):
        return None
    result = _as_array(call.arg("object"), requested_dtype(call), call.plain_numpy)
    if result is None or not call.given("ndmin"):
        return result
    ndmin = as_int(call.arg("ndmin"))
    if ndmin is None or result.ellipsis is not None:
        return result.with_dims((), 0)
    # `np.array(x, ndmin=2)` pads the shape with leading 1s.
    return result.with_dims((1,) * max(ndmin - len(result.dims), 0) + result.dims)


@REGISTRY.handles(f"{JNP}.asarray", signature="a, dtype=None, order=None, *, copy=None, device=None")
def asarray(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if _unstackable(interp, call, "a"):
        return None
    return _as_array(call.arg("a"), requested_dtype(call), call.plain_numpy)


def _unstackable(interp: Interpreter, call: CallArgs, name: str) -> bool:
    """`jnp.array([x, y])` of arrays stacks them, and arrays of other shapes cannot be (JAX's
    TypeError; NumPy's "inhomogeneous shape"): reported as `jnp.stack`'s, True where so."""
    source = call.arg(name)
    if not isinstance(source, Seq) or len(source.items) < 2 or call.plain_numpy:
        return False
    items = [item for item in source.items if isinstance(item, ArrayType)]
    if len(items) != len(source.items):
        return False
    outcome = layout.stack(items, 0, [f"`{code_of(node)}`" for node in element_nodes(call, name)] or None)
    if not outcome.problems:
        return False
    what = f"jnp.{call.short_name} stacks the arrays it is given:"
    problems = [replace(p, message=p.message.replace("stack:", what, 1)) for p in outcome.problems]
    interp.reporter.problems(problems, call.node, element_nodes(call, name) or call.arg_nodes)
    return True


@REGISTRY.handles(f"{JNP}.copy", signature="a, order=None")
def copy(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _as_array(call.arg("a"), False, call.plain_numpy)


def _as_array(source: Value, requested: str | Literal[False] | None, plain_numpy: bool) -> ArrayType | None:
    """`jnp.array(source, dtype=requested)` (`requested` as `requested_dtype` reads it)."""
    if isinstance(source, ArrayType):
        return source if requested is False else source.with_dtype(requested or None)
    if isinstance(source, Devices):
        return ArrayType(None, (source.count,))
    if requested is not False:
        typed = promotion.requested(requested or None)
    elif plain_numpy:
        typed = promotion.UNKNOWN  # NumPy's defaults: int64 and float64
    elif isinstance(source, Seq):
        typed = promotion.array_literal(_leaves(source))  # a list is never weak
    else:
        typed = _leaf(source)  # `jnp.array(1.0)`: a weak 0-d array
    if isinstance(source, Seq):
        stacked = _stacked(source)
        return replace(stacked, dtype=typed.dtype, weak=False) if stacked is not None else None
    if isinstance(source, Const) and isinstance(source.value, int | float):
        return ArrayType(typed.dtype, (), weak=typed.weak)
    return None


def _leaf(value: Value) -> Typed:
    if isinstance(value, ArrayType):
        return Typed(value.dtype, value.weak)
    if isinstance(value, Const):
        return promotion.python_scalar(value.value)
    return promotion.UNKNOWN


def _leaves(value: Value) -> list[Typed]:
    if isinstance(value, Seq):
        return [leaf for item in value.items for leaf in _leaves(item)] or [promotion.default("f")]
    return [_leaf(value)]


def nested_shape(value: Value) -> tuple[Dim, ...] | None:
    """The positional shape of a number, an array, or nested lists of them (`np.shape([x, y])`)."""
    stacked = _stacked(value)
    return stacked.dims if stacked is not None else None


def _stacked(value: Value) -> ArrayType | None:
    """A number, an array, or nested lists and tuples of them as `jnp.array` stacks them (its
    dtype aside): each list a new leading dim, its items of one shape. Named axes are kept:
    inside a map, `jnp.array([x, x])` of per-example scalars is mapped as its items are (the
    union of theirs, as `jnp.stack` gives), not a fixed array. None where any item is unknown
    or the items cannot be stacked (`_unstackable` reports the outer list's)."""
    if isinstance(value, Seq):
        items = [_stacked(item) for item in value.items]
        if not items:
            return ArrayType(None, (0,))
        known = [item for item in items if item is not None]
        if len(known) != len(items):
            return None
        outcome = layout.stack(known, 0)
        return None if outcome.problems or outcome.type.ellipsis is not None else outcome.type
    if isinstance(value, Const) and isinstance(value.value, int | float):
        return ArrayType(None, ())
    if isinstance(value, ArrayType) and value.ellipsis is None:
        return value  # `jnp.array([i, i + 1])` of traced scalars, a list of rows: stacked
    return None


@REGISTRY.handles(*(f"{JNP}.{name}" for name in DTYPE_ALIASES), signature="x, /")  # jnp.float32(x), ...
def dtype_constructor(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("x")
    dtype = DTYPE_ALIASES.get(call.short_name)
    if isinstance(value, ArrayType):
        return value.with_dtype(dtype)
    return ArrayType(dtype, ()) if isinstance(value, Const) else None


# A Generator (`np.random.default_rng(seed)`) or a legacy RandomState is held as a library object
# of its own name, its methods as that name's members (`rng.normal` is `numpy.random.Generator().
# normal`): the `()` says an instance, which no program can name.
_GENERATOR = f"{NP_RANDOM}.Generator()"
_RANDOM_STATE = f"{NP_RANDOM}.RandomState()"
_LEGACY = (NP_RANDOM, _RANDOM_STATE)  # the module's functions are a hidden RandomState's methods


@REGISTRY.handles(f"{NP_RANDOM}.default_rng", signature="seed=None")
@REGISTRY.handles(f"{NP_RANDOM}.RandomState", signature="seed=None")
def generator(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return Qual(_GENERATOR if call.short_name == "default_rng" else _RANDOM_STATE)


@REGISTRY.handles(f"{_GENERATOR}.normal", *(f"{owner}.normal" for owner in _LEGACY),
                  signature="loc=0.0, scale=1.0, size=None")
@REGISTRY.handles(f"{_GENERATOR}.uniform", *(f"{owner}.uniform" for owner in _LEGACY),
                  signature="low=0.0, high=1.0, size=None")
@REGISTRY.handles(f"{_GENERATOR}.exponential", *(f"{owner}.exponential" for owner in _LEGACY),
                  signature="scale=1.0, size=None")
@REGISTRY.handles(f"{_GENERATOR}.integers", signature="low, high=None, size=None, dtype=None, endpoint=False")
@REGISTRY.handles(*(f"{owner}.randint" for owner in _LEGACY), signature="low, high=None, size=None, dtype=None")
@REGISTRY.handles(f"{_GENERATOR}.standard_normal", f"{_GENERATOR}.random", signature="size=None, dtype=None, out=None")
@REGISTRY.handles(*(f"{owner}.{name}" for owner in _LEGACY for name in ("standard_normal", "random", "random_sample")),
                  signature="size=None")
def numpy_sampler(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A NumPy sampler: `size` (its parameters must broadcast to it), or the parameters' shape.

    NumPy's dtypes (float64, int64) are left unknown, as for NumPy's other constructors: the
    checker's dtypes are JAX's, and a NumPy float64 stays float64 where JAX would narrow it.
    """
    signature = call.signature
    assert signature is not None
    names = [name for name in signature.positional if name not in ("size", "dtype", "out", "endpoint")]
    params = [_parameter(call.arg(name)) if call.given(name) else operand(Const(0.0)) for name in names]
    dtype = dtype_or(call, promotion.UNKNOWN) if signature.accepts("dtype") else None
    size = call.arg("size")
    if call.given("size") and size != Const(None):
        dims = shape(size)
        if dims is None:
            return None
        known = [p for p in params if p is not None]
        labels = [f"{name} `{code_of(call.arg_node(name))}`" for name, p in zip(names, params, strict=True)
                  if p is not None]
        outcome = sampling.drawn(dims, known, dtype, f"np.random.{call.short_name}", labels,
                                 compatible=call.short_name in ("integers", "randint"))
        interp.reporter.problems(outcome.problems, call.node)
        return outcome.type
    if any(p is None for p in params):
        return None
    # Without `size`: the parameters' broadcast shape (scalars draw one Python number), which
    # NumPy refuses where they do not broadcast.
    labels = [f"{name} `{code_of(call.arg_node(name))}`" for name in names]
    outcome = sampling.drawn(None, [p for p in params if p is not None], dtype, f"np.random.{call.short_name}",
                             labels)
    interp.reporter.problems(outcome.problems, call.node)
    return None if outcome.problems else outcome.type


@REGISTRY.handles(*(f"{owner}.{name}" for owner in _LEGACY for name in ("randn", "rand")), signature="*dims")
def numpy_dims_sampler(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`np.random.randn(2, 3)`: each argument one dim (none: one Python float)."""
    dims = shape(Seq(tuple(call.rest())))
    return ArrayType(None, dims) if dims is not None and not call.kwargs else None


@REGISTRY.handles(f"{_GENERATOR}.permutation", signature="x, axis=0")
@REGISTRY.handles(*(f"{owner}.permutation" for owner in _LEGACY), signature="x")
def numpy_permutation(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`rng.permutation(n)`: a shuffled `arange(n)`; of an array, its rows shuffled (its type)."""
    x = call.arg("x")
    count = as_int(x)
    if count is not None:
        return ArrayType(None, (count,))
    return x if isinstance(x, ArrayType) and x.rank != 0 else None  # a 0-d array: NumPy refuses it


@REGISTRY.handles(f"{_GENERATOR}.shuffle", signature="x, axis=0")
@REGISTRY.handles(*(f"{owner}.shuffle" for owner in _LEGACY), signature="x")
@REGISTRY.handles(*(f"{owner}.seed" for owner in _LEGACY), signature="seed=None")
def numpy_seed(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return Const(None)  # `seed` and the in-place `shuffle` return None


def _parameter(value: Value) -> ArrayType | None:
    """A sampler's parameter as NumPy reads it: an array, a number, or a (nested) list."""
    if isinstance(value, Seq):
        dims = nested_shape(value)
        return ArrayType(None, dims) if dims is not None else None
    return operand(value)


@REGISTRY.handles(f"{JNP}.vander", signature="x, N=None, increasing=False")
def vander(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`jnp.vander(x, N)`: `(len(x), N)` (N defaults to len(x)) of x's powers; x is 1-d."""
    x = operand(call.arg("x"))
    if x is None or x.ellipsis is not None or len(x.dims) != 1:
        return None  # another rank: JAX's ValueError, not a shape rule here
    columns = as_dim(call.arg("N")) if call.given("N") and call.arg("N") != Const(None) else x.dims[0]
    return x.with_dims((x.dims[0], columns))
