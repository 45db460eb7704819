"""Elementwise functions: jax.numpy's ufuncs and predicates, jax.scipy.special, jax.lax."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from shapecheck.algebra import broadcast as algebra_broadcast
from shapecheck.algebra import lax_rules
from shapecheck.algebra.outcome import Problem, normalize_axis, out_of_range
from shapecheck.algebra.promotion import UNKNOWN, Typed, default, function, inexact
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    array,
    axes_within,
    code_of,
    dtype_arg,
    finish,
    labels,
    refused,
)
from shapecheck.analyzer.library.operators import unknown_partner
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import JNP, LAX, SPECIAL
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Seq,
    Value,
    as_int,
)
from shapecheck.codes import Code
from shapecheck.dims import product
from shapecheck.dtypes import kind_of
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
PREDICATES = ("isnan", "isinf", "isfinite", "logical_not", "signbit", "isneginf", "isposinf", "isreal", "iscomplex")
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
            return refused(interp, call, problem)
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


@REGISTRY.handles(f"{JNP}.gcd", f"{JNP}.lcm", signature="x1, x2")
def gcd(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Of integers only (SC301), broadcast as any binary function."""
    for name in ("x1", "x2"):
        value = array(call.arg(name))
        kind = kind_of(value.dtype) if value is not None else None
        if kind is not None and kind not in "iu":
            return refused(interp, call, Problem(
                Code.DTYPE_MISMATCH, f"jnp.{call.short_name} takes integers, but `{code_of(call.arg_node(name))}` is of "
                f"dtype {value.dtype if value is not None else None}"))
    return elementwise(interp, call, [call.arg("x1"), call.arg("x2")])


@REGISTRY.handles(f"{JNP}.frexp", signature="x, /")
@REGISTRY.handles(f"{JNP}.modf", signature="x, /, out=None")
@REGISTRY.handles(f"{JNP}.divmod", signature="x1, x2, /")
def pairs(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Two arrays of the (broadcast) shape: frexp's mantissas and integer exponents, modf's
    fractional and integral parts, divmod's quotients and remainders."""
    if call.short_name == "divmod":
        quotient = elementwise_as(interp, call, [call.arg("x1"), call.arg("x2")], "floor_divide")
        return Seq((quotient, quotient)) if isinstance(quotient, ArrayType) else None
    value = array(call.arg("x"))
    if value is None:
        return None
    fraction = value.with_dtype(inexact(Typed(value.dtype, value.weak)).dtype)
    second = fraction.with_dtype(default("i").dtype if call.short_name == "frexp" else fraction.dtype)
    return Seq((fraction, second))


@REGISTRY.handles(f"{JNP}.allclose", signature="a, b, rtol=1e-05, atol=1e-08, equal_nan=False")
@REGISTRY.handles(f"{JNP}.array_equal", signature="a1, a2, equal_nan=False")
@REGISTRY.handles(f"{JNP}.array_equiv", signature="a1, a2")
def all_equal(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """One boolean: allclose's arrays broadcast (SC101); array_equal compares any two; array_equiv
    is False for shapes of two ranks that do not broadcast, but compares (and so raises for)
    shapes of one rank (JAX 0.10.2 checks the broadcast only across ranks)."""
    names = ("a", "b") if call.short_name == "allclose" else ("a1", "a2")
    arrays = [array(call.arg(name)) for name in names]
    known = [value for value in arrays if value is not None]
    if call.short_name != "array_equal" and len(known) == 2 and not call.opaque and (
            call.short_name == "allclose" or (known[0].ellipsis is None and known[1].ellipsis is None
                                              and len(known[0].dims) == len(known[1].dims))):
        outcome = algebra_broadcast.broadcast(known, labels(call, 2))
        if outcome.problems:
            finish(interp, outcome, call)
            return None
    return ArrayType("bool_", ())


def elementwise_as(interp: Interpreter, call: CallArgs, operands: Sequence[Value], name: str) -> Value:
    """`elementwise` with another function's dtype rule (divmod's is floor_divide's)."""
    arrays = [array(value) for value in operands]
    if None in arrays or call.opaque:
        return None
    known = [value for value in arrays if value is not None]
    outcome = algebra_broadcast.broadcast(known, labels(call))
    found = finish(interp, outcome, call)
    dtype = function(name, [Typed(value.dtype, value.weak) for value in known])
    return None if outcome.problems else replace(found, dtype=dtype.dtype, weak=dtype.weak)


@REGISTRY.handles(f"{JNP}.ediff1d", signature="ary, to_end=None, to_begin=None")
def ediff1d(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The differences of the flattened array, with what `to_begin` and `to_end` add."""
    value = array(call.arg("ary"))
    if value is None or value.ellipsis is not None:
        return None
    size = product(value.dims)
    parts: list[int | None] = [max(size - 1, 0) if size is not None else None]
    for name in ("to_begin", "to_end"):
        if call.given(name) and call.arg(name) != Const(None):
            extra = array(call.arg(name))
            parts.append(product(extra.dims) if extra is not None and extra.ellipsis is None else None)
    length = sum(part for part in parts if part is not None) if None not in parts else None
    return value.with_dims((length,))


@REGISTRY.handles(f"{JNP}.partition", f"{JNP}.argpartition", signature="a, kth, axis=-1")
def partition(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The array's shape (argpartition's indices, integers); `kth` one of the axis' positions."""
    value = call.arg("a")
    kth = as_int(call.arg("kth"))
    axis = as_int(call.arg("axis")) if call.given("axis") else -1
    what = f"jnp.{call.short_name}"
    if not isinstance(value, ArrayType) or kth is None or axis is None or value.ellipsis is not None:
        return None
    place = normalize_axis(axis, len(value.dims))
    size = value.dims[place] if place is not None else None
    problem = out_of_range(axis, len(value.dims), f"the argument of {what}") if place is None else None
    if problem is None and isinstance(size, int) and not -size <= kth < size:
        problem = Problem(Code.AXIS_OUT_OF_RANGE, f"{what}: kth {kth} is not a position along axis {axis}, of size "
                          f"{size}", axes=(kth,))
    if problem is not None:
        return refused(interp, call, problem)
    return value.with_dtype(default("i").dtype) if call.short_name == "argpartition" else value
