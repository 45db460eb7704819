"""`jax.lax`'s elementwise operators, which are stricter than jax.numpy's.

`lax.add` and its kin take operands of one rank (a 0-d operand aside) whose dims are equal or
1, and of one dtype (JAX converts nothing: `jnp.add` is the one that promotes); each operator
takes some kinds of dtype only (`ACCEPTS`). `lax.select`'s cases have one shape, without
broadcasting, and its predicate is a scalar or of their shape, boolean or integer.

Dtypes are compared as they are with `jax_enable_x64` off and on alike: a 64-bit type against
its 32-bit one is no mismatch here (they are one type in JAX's default mode), and a Python
number, of its kind's default type (int32 or int64, float32 or float64), clashes with an array
of any other type (`lax.add(x_f16, 1.5)`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from shapecheck.algebra.outcome import Problem, label
from shapecheck.algebra.promotion import Typed, shown
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_shape
from shapecheck.dtypes import kind_of, narrowed
from shapecheck.types import ArrayType

# The kinds of dtype each operator takes (b: bool, i: signed and u: unsigned integers, f:
# floating point, c: complex), as JAX 0.10.2 checks them; for `pow`, its base's.
ACCEPTS: Final[dict[str, str]] = {
    "exp": "fc", "log": "fc", "tanh": "fc", "logistic": "fc", "rsqrt": "fc", "sqrt": "fc", "neg": "iufc",
    "abs": "ifc", "sign": "iufc", "floor": "f", "ceil": "f", "round": "f", "sin": "fc", "cos": "fc", "erf": "f",
    "square": "iufc", "add": "iufc", "sub": "iufc", "mul": "iufc", "div": "iufc", "pow": "fc", "atan2": "fc",
    "lt": "biuf", "le": "biuf", "gt": "biuf", "ge": "biuf", "expm1": "fc", "log1p": "fc", "cbrt": "f",
    "reduce_precision": "f",
}
_KIND_NAMES: Final = {"b": "boolean", "i": "signed integer", "u": "unsigned integer", "f": "floating-point",
                      "c": "complex"}


def ranks(operands: Sequence[ArrayType], what: str, labels: Sequence[str] | None = None) -> Problem | None:
    """The operands of a lax operator have one rank, 0-d ones aside (their dims then broadcast
    where one is 1, as jax.numpy's do)."""
    shaped = [(index, value) for index, value in enumerate(operands) if value.ellipsis is None and value.dims]
    if any(value.ellipsis is not None for value in operands) or not shaped:
        return None
    first, reference = shaped[0]
    for index, value in shaped[1:]:
        if len(value.dims) != len(reference.dims):
            return Problem(
                Code.BROADCAST_MISMATCH,
                f"{what} takes operands of one rank: {label(labels, first)} has shape "
                f"{format_shape(reference.dims)} and {label(labels, index)} {format_shape(value.dims)} (lax adds "
                f"no leading dims; jax.numpy's function of the same name does)", operands=(first, index))
    return None


def dtypes(operands: Sequence[ArrayType], what: str, labels: Sequence[str] | None = None) -> Problem | None:
    """The operands of a lax operator have one dtype: the first pair certainly apart, if any."""
    for later in range(1, len(operands)):
        for earlier in range(later):
            if _apart(operands[earlier], operands[later]):
                return Problem(
                    Code.DTYPE_MISMATCH,
                    f"{what} takes operands of one dtype: {label(labels, earlier)} is "
                    f"{_shown(operands[earlier])} and {label(labels, later)} {_shown(operands[later])} (lax converts "
                    "nothing: convert one, or use jax.numpy's function, which promotes)",
                    operands=(earlier, later))
    return None


def accepted(operand: ArrayType, name: str, what: str, labels: Sequence[str] | None = None) -> Problem | None:
    """An operand of a kind of dtype the operator refuses (`lax.sin` of ints, `lax.add` of
    booleans): `ACCEPTS`."""
    kinds = ACCEPTS.get(name)
    return None if kinds is None else of_kinds(operand, kinds, what, labels)


def of_kinds(operand: ArrayType, kinds: str, what: str, labels: Sequence[str] | None = None) -> Problem | None:
    """`operand` of one of `kinds` (as `ACCEPTS` writes them), where its dtype is known."""
    kind = kind_of(operand.dtype)
    if kind is None or kind in kinds:
        return None
    taken = ", ".join(_KIND_NAMES[k] for k in kinds)
    return Problem(Code.DTYPE_MISMATCH,
                   f"{what} takes {taken} operands, but {label(labels, 0)} is {_shown(operand)} "
                   "(convert it first; jax.numpy's function of the same name converts what it can)", operands=(0,))


def exponent(base: ArrayType, power: ArrayType, labels: Sequence[str] | None = None) -> Problem | None:
    """`lax.pow(x, y)`: an integer exponent of any width, or one of the base's own dtype."""
    kind = kind_of(power.dtype)
    if kind == "b":
        return Problem(Code.DTYPE_MISMATCH, f"lax.pow's exponent {label(labels, 1)} is boolean: it is an integer, or "
                       "of the base's dtype", operands=(1,))
    if kind in ("f", "c") and _apart(base, power):
        return Problem(Code.DTYPE_MISMATCH,
                       f"lax.pow's exponent {label(labels, 1)} is {_shown(power)} and its base {label(labels, 0)} "
                       f"{_shown(base)}: an exponent that is not an integer has the base's dtype",
                       operands=(0, 1))
    return None


def select(which: ArrayType, cases: Sequence[ArrayType], labels: Sequence[str] | None = None,
           what: str = "lax.select") -> Problem | None:
    """`lax.select(which, *cases)`: the cases of one shape and dtype, `which` a scalar or of
    their shape, boolean or integer."""
    shown = [value for value in cases if value.ellipsis is None]
    for index, value in enumerate(cases[1:], start=1):
        reference = cases[0]
        if value.ellipsis is None and reference.ellipsis is None and _differ(reference.dims, value.dims):
            return Problem(Code.BROADCAST_MISMATCH,
                           f"{what} takes cases of one shape: {label(labels, 1)} has shape "
                           f"{format_shape(reference.dims)} and {label(labels, index + 1)} {format_shape(value.dims)} "
                           f"({what} broadcasts nothing; jnp.where does)", operands=(1, index + 1))
    if which.ellipsis is None and which.dims and shown and _differ(which.dims, shown[0].dims):
        return Problem(Code.BROADCAST_MISMATCH,
                       f"{what}'s predicate {label(labels, 0)} has shape {format_shape(which.dims)}: it is a "
                       f"scalar or of the cases' shape {format_shape(shown[0].dims)}", operands=(0,))
    if kind_of(which.dtype) in ("f", "c"):
        return Problem(Code.DTYPE_MISMATCH,
                       f"{what}'s predicate {label(labels, 0)} is {_shown(which)}: it is boolean or integer",
                       operands=(0,))
    problem = dtypes(cases, what, labels[1:] if labels is not None else None)
    if problem is not None:
        return Problem(problem.code, problem.message, operands=tuple(index + 1 for index in problem.operands))
    return None


def select_n(which: ArrayType, cases: Sequence[ArrayType], labels: Sequence[str] | None = None) -> Problem | None:
    """`lax.select_n(which, *cases)`: `select`'s rules; a boolean `which` picks from two cases."""
    if kind_of(which.dtype) == "b" and len(cases) > 2:
        return Problem(Code.SIZE_ARGUMENT_MISMATCH,
                       f"lax.select_n's predicate {label(labels, 0)} is boolean, which picks from 2 cases, but "
                       f"{len(cases)} are given (an integer predicate picks from more)", operands=(0,))
    return select(which, cases, labels, "lax.select_n")


def _differ(first: tuple[Dim, ...], second: tuple[Dim, ...]) -> bool:
    return len(first) != len(second) or any(certainly_differ(a, b) for a, b in zip(first, second, strict=True))


def _apart(first: ArrayType, second: ArrayType) -> bool:
    """Certainly two dtypes, in either x64 mode."""
    a, b = kind_of(first.dtype), kind_of(second.dtype)
    if a is None or b is None or first.dtype is None or second.dtype is None:
        return False
    if first.weak and second.weak:
        return a != b
    if first.weak or second.weak:
        # A Python number (or a weakly typed value) takes its kind's default type, 32-bit with
        # x64 off and 64-bit with it on: another type than both clashes in either mode.
        number, other = (first, second) if first.weak else (second, first)
        return other.dtype not in _DEFAULTS.get(kind_of(number.dtype) or "", ())
    return narrowed(first.dtype) != narrowed(second.dtype)


_DEFAULTS: Final = {"i": ("i32", "i64"), "f": ("f32", "f64"), "c": ("c64", "c128"), "b": ("bool_",)}


def _shown(value: ArrayType) -> str:
    if value.weak and value.dtype is not None:
        return {"i": "a Python int", "f": "a Python float", "c": "a Python complex"}.get(kind_of(value.dtype) or "", "weak")
    return shown(Typed(value.dtype))
