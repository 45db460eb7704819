"""Elementwise functions: jax.numpy's ufuncs and predicates, jax.scipy.special, jax.lax."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from shapecheck.algebra import broadcast as algebra_broadcast
from shapecheck.algebra import lax_rules
from shapecheck.algebra.promotion import UNKNOWN, Typed, default, function
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    array,
    axes_within,
    dtype_arg,
    finish,
    labels,
)
from shapecheck.analyzer.library.operators import unknown_partner
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import JNP, LAX, SPECIAL
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Value,
)
from shapecheck.dims import product
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
    "fabs", "spacing", "fliplr", "flipud",
    # The array API's spellings (NumPy 2 has them too).
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert",
)
PREDICATES = ("isnan", "isinf", "isfinite", "logical_not", "signbit", "isneginf", "isposinf")
BINARY = (
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power", "float_power",
    "mod", "remainder", "fmod", "maximum", "minimum", "fmax", "fmin", "arctan2", "hypot",
    "logaddexp", "logaddexp2", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
    "right_shift", "copysign", "nextafter", "heaviside", "ldexp", "clip", "lerp",
    "atan2", "pow", "bitwise_left_shift", "bitwise_right_shift",  # the array API's spellings
)
COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
               "logical_and", "logical_or", "logical_xor", "isclose")
SPECIAL_FUNCTIONS = ("erf", "erfc", "erfinv", "expit", "logit", "gammaln", "digamma", "ndtr", "ndtri",
           "log_ndtr", "xlogy", "xlog1py", "entr")
LAX_ELEMENTWISE = ("exp", "log", "tanh", "logistic", "rsqrt", "sqrt", "neg", "abs", "sign", "floor",
                   "ceil", "round", "sin", "cos", "erf", "stop_gradient", "square",
                   "add", "sub", "mul", "div", "max", "min", "pow", "atan2", "eq", "ne", "lt", "le",
                   "gt", "ge", "select", "expm1", "log1p", "cbrt",
                   "reduce_precision", "clamp")


def elementwise(interp: Interpreter, call: CallArgs, operands: Sequence[Value]) -> Value:
    """`operands` (the call's arrays and numbers) broadcast together, with the function's dtype rule."""
    arrays = [array(v) for v in operands]
    known = [a for a in arrays if a is not None]
    # The dtype by the function's rule (`jnp.sqrt` of ints is a float, `jnp.greater` a bool).
    dtype = function(call.short_name, [Typed(a.dtype, a.weak) for a in known])
    if call.plain_numpy:
        dtype = UNKNOWN  # NumPy's own rules (np.sqrt of int32 is float64)
    if not any(isinstance(v, ArrayType) for v in operands):
        # jnp.sqrt(64): Python numbers in, a 0-d array out.
        if operands and all(a is not None for a in arrays) and not call.kwargs:
            return ArrayType(dtype.dtype, (), weak=dtype.weak)
        return None
    if any(a is None for a in arrays) or call.opaque:
        partner = next(v for v in operands if isinstance(v, ArrayType))
        return unknown_partner(partner)
    outcome = algebra_broadcast.broadcast(known, labels(call))
    return replace(finish(interp, outcome, call), dtype=dtype.dtype, weak=dtype.weak)


# Elementwise functions broadcast every positional operand (`lax.clamp(lo, x, hi)`; `jnp.where`,
# which has a one-argument form, is `indexing_api`'s): one signature for all, whose operands the
# handler reads together.
@REGISTRY.handles(*each(JNP, *UNARY), *each(JNP, *BINARY), *each(SPECIAL, *SPECIAL_FUNCTIONS), signature="*operands")
def elementwise_handler(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return elementwise(interp, call, call.rest())


# lax's operators that take operands of one dtype (`pow` takes an integer exponent).
_ONE_DTYPE = frozenset({"add", "sub", "mul", "div", "max", "min", "atan2", "eq", "ne", "lt", "le", "gt", "ge",
                        "clamp"})


@REGISTRY.handles(*each(LAX, *LAX_ELEMENTWISE), signature="*operands")
def lax_elementwise(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """jax.numpy's rules, after lax's stricter ones (`algebra.lax_rules`): one rank and one
    dtype, of a kind the operator takes; `select`'s cases of one shape."""
    operands = call.rest()
    arrays = [array(value) for value in operands]
    if not call.opaque and any(isinstance(value, ArrayType) for value in operands) and None not in arrays:
        known = [value for value in arrays if value is not None]
        names = labels(call)
        what = f"lax.{call.short_name}"
        if call.short_name == "select":
            problem = lax_rules.select(known[0], known[1:], names) if len(known) >= 2 else None
        else:
            problem = lax_rules.ranks(known, what, names) or \
                (lax_rules.dtypes(known, what, names) if call.short_name in _ONE_DTYPE else None) or \
                lax_rules.accepted(known[0], call.short_name, what, names) or \
                (lax_rules.exponent(known[0], known[1], names) if call.short_name == "pow" and len(known) == 2
                 else None)
        if problem is not None:
            interp.reporter.problems([problem], call.node, call.arg_nodes)
            return None
    if call.short_name == "select":
        return elementwise(interp, call, operands[1:])  # the cases' type: the predicate only picks
    return elementwise(interp, call, operands)


@REGISTRY.handles(*each(JNP, *PREDICATES), *each(JNP, *COMPARISONS), signature="*operands")
def predicate(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return elementwise(interp, call, call.rest())


@REGISTRY.handles(f"{LAX}.convert_element_type", signature="operand, new_dtype")
def convert_element_type(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("operand")
    return value.with_dtype(dtype_arg(call.arg("new_dtype"))) if isinstance(value, ArrayType) else None


# Functions that move an array's elements along its axes, keeping its shape (and dtype): each
# axis named must be one of the array's (SC106).
_SORT = "axis=-1, *, kind=None, order=None, stable=True, descending=False"


@REGISTRY.handles(f"{JNP}.roll", signature="a, shift, axis=None")
def roll(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    if not isinstance(value, ArrayType) or not axes_within(interp, call, value, "jnp.roll"):
        return None
    return value


@REGISTRY.handles(f"{JNP}.flip", signature="m, axis=None")
def flip(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("m")
    if not isinstance(value, ArrayType) or not axes_within(interp, call, value, "jnp.flip", unique=True):
        return None
    return value


@REGISTRY.handles(f"{JNP}.sort", "method:sort", signature=f"a, {_SORT}")
@REGISTRY.handles(f"{JNP}.argsort", "method:argsort", signature=f"a, {_SORT}")
def sort(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The sorted values, or (argsort) their indices: the array's shape, or with `axis=None`,
    the flattened array's."""
    value = call.arg("a")
    what = f"jnp.{call.short_name}" if not call.name.startswith("method:") else f".{call.short_name}()"
    if not isinstance(value, ArrayType) or not axes_within(interp, call, value, what):
        return None
    if call.short_name == "argsort":
        value = value.with_dtype(default("i").dtype)
    if call.given("axis") and call.arg("axis") == Const(None):
        return value.with_dims((product(value.dims) if value.ellipsis is None else None,))
    return value


@REGISTRY.handles(f"{LAX}.integer_pow", signature="x, y")
def integer_pow(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("x")
    return value if isinstance(value, ArrayType) else None
