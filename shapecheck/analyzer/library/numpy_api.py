"""jax.numpy (and numpy): constructors, elementwise functions, reductions, contractions, layout."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from shapecheck.algebra import broadcast as algebra_broadcast
from shapecheck.algebra import einsum as algebra_einsum
from shapecheck.algebra import layout, linalg, reduction, reshape
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    DTYPE_ALIASES,
    array,
    axes,
    axis_names,
    check_bound,
    code_of,
    dtype_arg,
    finish,
    flag,
    labels,
    shape,
)
from shapecheck.analyzer.library.operators import unknown_partner
from shapecheck.analyzer.library.registry import each, handles
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    AtIndexer,
    Const,
    Devices,
    DType,
    Seq,
    SymSize,
    Value,
    as_int,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.dims import Dim, Sym, product
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

# ---------------------------------------------------------------- constructors


@handles(*each(JNP, "zeros", "ones", "empty"), *each("jax.numpy", "full"))
def zeros(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dims = shape(call.get(0, "shape"))
    dtype_index = 2 if call.short_name == "full" else 1
    dtype = dtype_arg(call.get(dtype_index, "dtype"))
    if dims is None:
        return None
    return ArrayType(dtype, dims)


@handles(*each(JNP, "zeros_like", "ones_like", "empty_like", "full_like"))
def like(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    source = call.get(0, "a")
    if not isinstance(source, ArrayType):
        return None
    dtype = dtype_arg(call.kwargs.get("dtype"))
    dims = shape(call.kwargs.get("shape")) if "shape" in call.kwargs else None
    result = source.with_dims(dims) if dims is not None else source
    return result.with_dtype(dtype) if dtype else result


@handles(f"{JNP}.arange")
def arange(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    numbers = [as_int(call.get(i)) for i in range(min(len(call.args), 3))]
    if "stop" in call.kwargs or "start" in call.kwargs or "step" in call.kwargs or not numbers:
        return ArrayType(dtype_arg(call.kwargs.get("dtype")), (None,))
    dtype = dtype_arg(call.kwargs.get("dtype"))
    if any(n is None for n in numbers):
        return ArrayType(dtype, (None,))
    length = len(range(*[n for n in numbers if n is not None])) if numbers[-1] != 0 else None
    return ArrayType(dtype, (length,))


@handles(f"{JNP}.eye", f"{JNP}.identity")
def eye(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    rows = as_int(call.get(0, "N" if "N" in call.kwargs else "n"))
    columns = call.get(1, "M")
    cols = rows if columns is None or (isinstance(columns, Const) and columns.value is None) else as_int(columns)
    return ArrayType(dtype_arg(call.kwargs.get("dtype")), (rows, cols))


@handles(f"{JNP}.linspace", f"{JNP}.logspace", f"{JNP}.geomspace")
def linspace(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    num = call.get(2, "num")
    return ArrayType(dtype_arg(call.kwargs.get("dtype")), (50 if num is None and not call.has(2, "num")
                                                         else as_int(num),))


@handles(f"{JNP}.array", f"{JNP}.asarray", "jax.device_put", f"{JNP}.copy")
def as_array(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    source = call.get(0, "object" if "object" in call.kwargs else "a")
    dtype = dtype_arg(call.get(1, "dtype"))
    result: ArrayType | None = None
    if isinstance(source, ArrayType):
        result = source.with_dtype(dtype) if dtype else source
    elif isinstance(source, Devices):
        result = ArrayType(None, (source.count,))
    elif isinstance(source, Seq):
        dims = _nested_shape(source)
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


def _nested_shape(value: Value) -> tuple[Dim, ...] | None:
    if isinstance(value, Seq):
        inner = [_nested_shape(item) for item in value.items]
        if not inner:
            return (0,)
        first = inner[0]
        if first is None or any(other != first for other in inner[1:]):
            return None
        return (len(value.items), *first)
    if isinstance(value, Const) and isinstance(value.value, int | float):
        return ()
    return None


@handles(*each("jax.random", "normal", "uniform", "bernoulli", "randint", "truncated_normal",
               "gumbel", "laplace", "logistic", "cauchy", "rademacher", "exponential"))
def random(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    name = call.short_name
    index = {"normal": 1, "uniform": 1, "randint": 1, "bernoulli": 2, "truncated_normal": 3}.get(name, 1)
    given = call.get(index, "shape")
    if given is None and not call.has(index, "shape"):
        return ArrayType(dtype_arg(call.kwargs.get("dtype")), ()) if name in ("normal", "uniform") else None
    dims = shape(given)
    if dims is None:
        return None
    result = ArrayType(dtype_arg(call.get(2, "dtype") if name == "uniform" else call.kwargs.get("dtype")), dims)
    return _uniform_bounds(call, result) if name == "uniform" else result


def _uniform_bounds(call: CallArgs, result: ArrayType) -> ArrayType:
    """`uniform` returns `max(minval, sample)`: array bounds broadcast into the result's shape
    (the other samplers require their parameters to broadcast *to* `shape`)."""
    given = [call.get(i, n) for i, n in ((3, "minval"), (4, "maxval")) if call.has(i, n)]
    arrays = [b for b in given if isinstance(b, ArrayType)]
    if any(not isinstance(b, ArrayType | Const) for b in given):
        # An unknown bound may be an array of any rank: leading dims and 1s become unknown.
        return ArrayType(result.dtype, tuple(None if d == 1 else d for d in result.dims), (), 0)
    if not arrays:
        return result
    widened = algebra_broadcast.broadcast([result, *arrays]).type
    return ArrayType(result.dtype, widened.dims, widened.named, widened.ellipsis, widened.named_open)


# ---------------------------------------------------------------- elementwise

UNARY = (
    "abs", "absolute", "negative", "positive", "sign", "exp", "exp2", "expm1", "log", "log2", "log10",
    "log1p", "sqrt", "cbrt", "square", "reciprocal", "sin", "cos", "tan", "arcsin", "arccos",
    "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "floor", "ceil", "rint",
    "round", "around", "trunc", "fix", "conj", "conjugate", "real", "imag", "angle", "deg2rad",
    "rad2deg", "degrees", "radians", "nan_to_num", "sinc", "i0", "invert", "bitwise_not",
    "fabs", "spacing", "flip", "fliplr", "flipud", "roll", "sort", "cumsum_", "exp_",
)
PREDICATES = ("isnan", "isinf", "isfinite", "logical_not", "signbit", "isneginf", "isposinf")
BINARY = (
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power", "float_power",
    "mod", "remainder", "fmod", "maximum", "minimum", "fmax", "fmin", "arctan2", "hypot",
    "logaddexp", "logaddexp2", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
    "right_shift", "copysign", "nextafter", "heaviside", "ldexp", "where", "clip", "lerp",
)
COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
               "logical_and", "logical_or", "logical_xor", "isclose")
SPECIAL = ("erf", "erfc", "erfinv", "expit", "logit", "gammaln", "digamma", "ndtr", "ndtri",
           "log_ndtr", "xlogy", "xlog1py", "entr")
LAX_ELEMENTWISE = ("exp", "log", "tanh", "logistic", "rsqrt", "sqrt", "neg", "abs", "sign", "floor",
                   "ceil", "round", "sin", "cos", "erf", "stop_gradient", "square", "integer_pow",
                   "add", "sub", "mul", "div", "max", "min", "pow", "atan2", "eq", "ne", "lt", "le",
                   "gt", "ge", "select", "convert_element_type", "expm1", "log1p", "cbrt",
                   "reduce_precision", "clamp")


def elementwise(interp: Interpreter, call: CallArgs, dtype: str | None = None, keep_dtype: bool = True) -> Value:
    arrays = [array(v) for v in call.args]
    if not any(isinstance(v, ArrayType) for v in call.args):
        # jnp.sqrt(64): Python numbers in, a 0-d array out.
        if call.args and all(a is not None for a in arrays) and not call.kwargs:
            return ArrayType(dtype, ())
        return None
    if any(a is None for a in arrays) or call.opaque:
        known = next(v for v in call.args if isinstance(v, ArrayType))
        return unknown_partner(known)
    outcome = algebra_broadcast.broadcast([a for a in arrays if a is not None], labels(call))
    result = finish(interp, outcome, call)
    if dtype is not None:
        return result.with_dtype(dtype)
    return result if keep_dtype else result.with_dtype(None)


@handles(*each(JNP, *UNARY), *each(JNP, *BINARY), *each("jax.scipy.special", *SPECIAL),
         *each("jax.lax", *LAX_ELEMENTWISE), "jax.numpy.fft.fftshift")
def elementwise_handler(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    name = call.short_name
    if name == "where" and len(call.args) == 1:
        return None  # the one-argument form returns indices
    if name == "clamp":
        # lax.clamp(min, x, max): the array is in the middle
        return elementwise(interp, call)
    if name == "convert_element_type":
        value = call.get(0)
        return value.with_dtype(dtype_arg(call.get(1, "new_dtype"))) if isinstance(value, ArrayType) else None
    if name in ("integer_pow", "roll", "flip"):
        value = call.get(0)
        return value if isinstance(value, ArrayType) else None
    if name in ("sort",):
        value = call.get(0)
        return value if isinstance(value, ArrayType) else None
    return elementwise(interp, call)


@handles(*each(JNP, *PREDICATES), *each(JNP, *COMPARISONS))
def predicate(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return elementwise(interp, call, dtype="bool_")


# ---------------------------------------------------------------- reductions

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


@handles(*each(JNP, *REDUCTIONS),
         *(f"method:{name}" for name in ("sum", "prod", "max", "min", "mean", "any", "all", "std", "var")))
def reduce_function(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    # Methods arrive with the receiver as argument 0: the same positions as the functions.
    name = call.short_name
    dtype = "bool_" if name in ("any", "all") else ("i32" if name == "count_nonzero" else None)
    return reduce_call(interp, call, ctx, call.get(0, "a"), call.get(1, "axis"), call.has(1, "axis"),
                       call.kwargs.get("keepdims"), _what(call), dtype=dtype)


@handles(*each(JNP, *ARG_REDUCTIONS), "method:argmax", "method:argmin")
def arg_reduce_function(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.get(0, "a")
    if isinstance(value, ArrayType) and not call.has(1, "axis"):
        return ArrayType("i32", (), value.named, None, value.named_open)
    return reduce_call(interp, call, ctx, value, call.get(1, "axis"), call.has(1, "axis"),
                       call.kwargs.get("keepdims"), _what(call), dtype="i32")


@handles(f"{JNP}.cumsum", f"{JNP}.cumprod", "method:cumsum", "method:cumprod")
def cumulative(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.get(0)
    if not isinstance(value, ArrayType):
        return None
    if not call.has(1, "axis") or (isinstance(call.get(1, "axis"), Const) and call.get(1, "axis") == Const(None)):
        return value.with_dims((product(value.dims) if value.ellipsis is None else None,))
    return value


@handles(f"{JNP}.linalg.norm")
def norm(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return reduce_call(interp, call, ctx, call.get(0, "x"), call.get(2, "axis"), call.has(2, "axis"),
                       call.kwargs.get("keepdims"), "jnp.linalg.norm", axis_index=2)


# ---------------------------------------------------------------- contractions


_CONTRACTIONS = {
    f"{JNP}.dot": linalg.dot, "method:dot": linalg.dot, "jax.lax.dot": linalg.dot,
    f"{JNP}.matmul": linalg.matmul, f"{JNP}.vdot": linalg.vdot,
}


_PLAIN_OPTIONS = frozenset({"precision", "preferred_element_type", "out", "dtype"})


@handles(*_CONTRACTIONS)
def contraction(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if set(call.kwargs) - _PLAIN_OPTIONS - {"a", "b"}:
        return None  # np.matmul(a, b, axes=[...]) moves the contracted axes: not modelled
    a, b = call.get(0, "a"), call.get(1, "b")
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return finish(interp, _CONTRACTIONS[call.name](a, b, labels(call, 2)), call)
    return None


@handles(f"{JNP}.tensordot")
def tensordot(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    a, b = call.get(0, "a"), call.get(1, "b")
    if not (isinstance(a, ArrayType) and isinstance(b, ArrayType)):
        return None
    raw = call.get(2, "axes") if call.has(2, "axes") else Const(2)
    count = as_int(raw)
    if count is not None:
        return finish(interp, linalg.tensordot(a, b, count, labels(call, 2)), call)
    if isinstance(raw, Seq) and len(raw.items) == 2:
        sides = [shape(item) for item in raw.items]
        if all(side is not None and all(isinstance(x, int) for x in side) for side in sides):
            left = [int(x) for x in sides[0] or () if isinstance(x, int)]
            right = [int(x) for x in sides[1] or () if isinstance(x, int)]
            return finish(interp, linalg.tensordot(a, b, (left, right), labels(call, 2)), call)
    return None


@handles(f"{JNP}.einsum")
def einsum(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    spec_value = call.get(0)
    spec_text = as_str(spec_value)
    if spec_text is None or call.opaque:
        return None
    spec_node = call.node_of(0)
    parsed = algebra_einsum.parse_einsum(spec_text)
    if not isinstance(parsed, algebra_einsum.EinsumSpec):
        interp.reporter.add(spec_node, parsed.code, parsed.message)
        return None
    operands = call.args[1:]
    if not all(isinstance(o, ArrayType) for o in operands):
        if len(parsed.inputs) != len(operands):
            interp.reporter.add(spec_node, Code.INVALID_EINSUM_SPEC, f"einsum spec {spec_text!r} has {len(parsed.inputs)} "
                                f"operands but {len(operands)} were given")
        return None
    arrays = [o for o in operands if isinstance(o, ArrayType)]
    names = sorted({n for term in parsed.inputs for n in term.names or ()})
    check_bound(interp, names, call, ctx, spec_node, "einsum")
    outcome = algebra_einsum.einsum(parsed, arrays, [f"`{code_of(n)}`" for n in call.arg_nodes[1:]])
    for problem in outcome.problems:
        target = spec_node if problem.code in (Code.INVALID_EINSUM_SPEC, Code.EINSUM_NAMED_AXIS_SKIPPED) else call.node
        interp.reporter.add(target, problem.code, problem.message)
    return outcome.type


# ---------------------------------------------------------------- layout


@handles(f"{JNP}.reshape", "method:reshape")
def reshape_handler(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0] if call.args else None
    if not isinstance(value, ArrayType):
        return None
    rest = call.args[1:]
    target: Value
    if len(rest) == 1:
        target = rest[0]
    elif len(rest) > 1:
        target = Seq(tuple(rest))
    else:
        target = call.kwargs.get("shape", call.kwargs.get("newshape"))
    dims = shape(target)
    if dims is None:
        return value.with_dims((), 0)
    return finish(interp, reshape.reshape(value, dims), call)


@handles(f"{JNP}.ravel", "method:ravel", "method:flatten")
def ravel(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0] if call.args else None
    if not isinstance(value, ArrayType):
        return None
    return value.with_dims((product(value.dims) if value.ellipsis is None else None,))


@handles(f"{JNP}.transpose", "method:transpose", f"{JNP}.permute_dims")
def transpose(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0] if call.args else None
    if not isinstance(value, ArrayType):
        return None
    rest = call.args[1:]
    order: Value = rest[0] if len(rest) == 1 else (Seq(tuple(rest)) if rest else call.kwargs.get("axes"))
    if order is None or order == Const(None):
        return finish(interp, layout.transpose(value), call)
    dims = shape(order)
    if dims is None or not all(isinstance(d, int) for d in dims):
        return value.with_dims((), 0)
    return finish(interp, layout.transpose(value, [int(d) for d in dims if isinstance(d, int)]), call)


@handles("attr:T")
def transpose_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0]
    return finish(interp, layout.transpose(value), call) if isinstance(value, ArrayType) else None


@handles("attr:mT")
def matrix_transpose(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0]
    if isinstance(value, ArrayType) and value.ellipsis is None and len(value.dims) >= 2:
        return finish(interp, layout.swapaxes(value, -1, -2), call)
    return None


@handles(f"{JNP}.ndim", f"{JNP}.shape", f"{JNP}.size")
def shape_function(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`np.ndim(x)`, `np.shape(x)`, `np.size(x)` of arrays, numbers and nested literals."""
    value = call.get(0, "a")
    dims: tuple[Dim, ...] | None = None
    if isinstance(value, ArrayType) and value.ellipsis is None:
        dims = value.dims
    elif isinstance(value, Const) and isinstance(value.value, int | float):
        dims = ()
    elif isinstance(value, Seq):
        dims = _nested_shape(value)
    if dims is None or call.has(1, "axis"):
        return None
    if call.short_name == "ndim":
        return Const(len(dims))
    if call.short_name == "size":
        total = product(dims)
        return Const(total) if total is not None else None
    return Seq(tuple(Const(d) if isinstance(d, int) else None for d in dims))


@handles("attr:shape")
def shape_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0]
    if isinstance(value, ArrayType) and value.ellipsis is None:
        return Seq(tuple(Const(d) if isinstance(d, int) else SymSize(d) if isinstance(d, Sym) else None
                         for d in value.dims))
    return None


@handles("attr:ndim")
def ndim_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0]
    return Const(len(value.dims)) if isinstance(value, ArrayType) and value.ellipsis is None else None


@handles("attr:size")
def size_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0]
    if isinstance(value, ArrayType) and value.ellipsis is None:
        total = product(value.dims)
        return Const(total) if total is not None else None
    return None


@handles("attr:dtype")
def dtype_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0]
    return DType(value.dtype) if isinstance(value, ArrayType) and value.dtype else None


@handles("attr:at")
def at_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0]
    return AtIndexer(value) if isinstance(value, ArrayType) else None


@handles(*(f"method:at.{name}" for name in ("set", "add", "multiply", "divide", "power", "min", "max",
                                            "apply")))
def at_update(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return call.args[0]


@handles("attr:real", "attr:imag")
def same_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return call.args[0]


@handles("method:astype")
def astype(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0]
    if not isinstance(value, ArrayType):
        return None
    return value.with_dtype(dtype_arg(call.get(1, "dtype")))


@handles("method:copy", "method:block_until_ready", "method:conj", "method:conjugate", "method:round",
         "method:clip", "method:sort")
def same_method(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return call.args[0]


@handles(f"{JNP}.swapaxes", "method:swapaxes")
def swapaxes(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0] if call.args else None
    first, second = as_int(call.get(1, "axis1")), as_int(call.get(2, "axis2"))
    if not isinstance(value, ArrayType) or first is None or second is None:
        return None
    return finish(interp, layout.swapaxes(value, first, second), call)


@handles(f"{JNP}.moveaxis")
def moveaxis(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.get(0, "a")
    source, destination = as_int(call.get(1, "source")), as_int(call.get(2, "destination"))
    if not isinstance(value, ArrayType) or source is None or destination is None:
        return None
    return finish(interp, layout.moveaxis(value, source, destination), call)


@handles(f"{JNP}.expand_dims")
def expand_dims(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.get(0, "a")
    axis = axes(call.get(1, "axis"))
    if not isinstance(value, ArrayType) or axis is False or axis is None or isinstance(axis, bool | str):
        return None
    if isinstance(axis, tuple) and not all(isinstance(a, int) for a in axis):
        return None
    as_ints: int | list[int] = axis if isinstance(axis, int) else [a for a in axis if isinstance(a, int)]
    return finish(interp, layout.expand_dims(value, as_ints), call)


@handles(f"{JNP}.squeeze", "method:squeeze")
def squeeze(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.args[0] if call.args else None
    if not isinstance(value, ArrayType):
        return None
    if not call.has(1, "axis") or call.get(1, "axis") == Const(None):
        return finish(interp, reshape.squeeze(value), call)
    axis = axes(call.get(1, "axis"))
    if isinstance(axis, int) and not isinstance(axis, bool):
        return finish(interp, reshape.squeeze(value, axis), call)
    if isinstance(axis, tuple) and all(isinstance(a, int) for a in axis):
        return finish(interp, reshape.squeeze(value, [a for a in axis if isinstance(a, int)]), call)
    return None


def _sequence_of_arrays(value: Value) -> list[ArrayType] | None:
    if isinstance(value, Seq) and value.items and all(isinstance(v, ArrayType) for v in value.items):
        return [v for v in value.items if isinstance(v, ArrayType)]
    return None


@handles(f"{JNP}.concatenate", f"{JNP}.concat")
def concatenate(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    values = _sequence_of_arrays(call.get(0, "arrays"))
    if values is None:
        return None
    axis_value = call.get(1, "axis") if call.has(1, "axis") else Const(0)
    axis = as_int(axis_value)
    if axis is None and axis_value != Const(None):
        return None
    element_nodes = _element_nodes(call)
    outcome = layout.concatenate(values, axis, [f"`{code_of(n)}`" for n in element_nodes])
    return finish(interp, outcome, call, element_nodes)


@handles(f"{JNP}.stack")
def stack(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    values = _sequence_of_arrays(call.get(0, "arrays"))
    if values is None:
        return None
    axis = as_int(call.get(1, "axis")) if call.has(1, "axis") else 0
    if axis is None:
        return None
    element_nodes = _element_nodes(call)
    outcome = layout.stack(values, axis, [f"`{code_of(n)}`" for n in element_nodes])
    return finish(interp, outcome, call, element_nodes)


def _element_nodes(call: CallArgs) -> list[cst.CSTNode]:
    first = call.expr_of(0, "arrays")
    if isinstance(first, cst.Tuple | cst.List):
        return [el.value for el in first.elements]
    return []


@handles(f"{JNP}.broadcast_to")
def broadcast_to(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.get(0, "array")
    dims = shape(call.get(1, "shape"))
    if not isinstance(value, ArrayType) or dims is None:
        return None
    target = ArrayType(value.dtype, dims)
    outcome = algebra_broadcast.broadcast([value, target], [f"`{code_of(call.node_of(0))}`",
                                                            f"shape {code_of(call.node_of(1))}"])
    interp.reporter.problems(outcome.problems, call.node)
    return ArrayType(value.dtype, dims, value.named, None, value.named_open)


@handles(f"{JNP}.atleast_1d")
def atleast_1d(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.get(0)
    if isinstance(value, ArrayType) and value.ellipsis is None and not value.dims and len(call.args) == 1:
        return value.with_dims((1,))
    return value if isinstance(value, ArrayType) and len(call.args) == 1 else None


@handles(*(f"{JNP}.{name}" for name in ("float32", "float64", "float16", "bfloat16", "int8", "int16",
                                        "int32", "int64", "uint8", "uint32", "bool_", "complex64")))
def dtype_constructor(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.get(0)
    dtype = DTYPE_ALIASES.get(call.short_name)
    if isinstance(value, ArrayType):
        return value.with_dtype(dtype)
    return ArrayType(dtype, ()) if isinstance(value, Const) else None

