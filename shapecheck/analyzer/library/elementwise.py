"""Elementwise functions: jax.numpy's ufuncs and predicates, jax.scipy.special, jax.lax."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from shapecheck.algebra import broadcast as algebra_broadcast
from shapecheck.algebra.promotion import UNKNOWN, Typed, function
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    array,
    dtype_arg,
    finish,
    labels,
)
from shapecheck.analyzer.library.operators import unknown_partner
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Value,
)
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


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


def elementwise(interp: Interpreter, call: CallArgs) -> Value:
    arrays = [array(v) for v in call.args]
    known = [a for a in arrays if a is not None]
    # The dtype by the function's rule (`jnp.sqrt` of ints is a float, `jnp.greater` a bool).
    dtype = function(call.short_name, [Typed(a.dtype, a.weak) for a in known])
    if call.plain_numpy:
        dtype = UNKNOWN  # NumPy's own rules (np.sqrt of int32 is float64)
    if not any(isinstance(v, ArrayType) for v in call.args):
        # jnp.sqrt(64): Python numbers in, a 0-d array out.
        if call.args and all(a is not None for a in arrays) and not call.kwargs:
            return ArrayType(dtype.dtype, (), weak=dtype.weak)
        return None
    if any(a is None for a in arrays) or call.opaque:
        partner = next(v for v in call.args if isinstance(v, ArrayType))
        return unknown_partner(partner)
    outcome = algebra_broadcast.broadcast(known, labels(call))
    return replace(finish(interp, outcome, call), dtype=dtype.dtype, weak=dtype.weak)


@REGISTRY.handles(*each(JNP, *UNARY), *each(JNP, *BINARY), *each("jax.scipy.special", *SPECIAL),
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


@REGISTRY.handles(*each(JNP, *PREDICATES), *each(JNP, *COMPARISONS))
def predicate(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return elementwise(interp, call)
