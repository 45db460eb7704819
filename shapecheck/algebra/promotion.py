"""JAX's dtype promotion (docs.jax.dev type_promotion.html), and what an annotation admits (SC301).

Dtypes are the annotation language's names (`f32`, `bf16`, `bool_`), paired with JAX's weak
flag: a Python scalar, or a value computed only from Python scalars, is weakly typed and takes
the width of the strongly typed values it meets (`x_f16 * 2.0` stays f16).

Inference keeps 64-bit dtypes: a dtype here is what JAX computes with `jax_enable_x64` on, where
the program's requests are honoured (`jnp.ones(3)` is f64, `jnp.arange(3)` i64, a Python float
a weak f64). With x64 off, JAX narrows every 64-bit type to its 32-bit twin (`narrowed`); the
lattice is built so that narrowing the x64 result gives the x64-off result, and where the two
modes disagree on more than the width (uint64 meeting a signed int), the result is unknown. So one
inference serves both modes, and `admits` decides per mode.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Final, NamedTuple

from shapecheck.dtypes import KINDS, NUMPY_NAMES, admitted, narrowed
from shapecheck.types import ArrayType


class Typed(NamedTuple):
    """A value's dtype (None: unknown, or a jaxtyping category) and whether it is weakly typed."""

    dtype: str | None
    weak: bool = False


UNKNOWN: Final = Typed(None)
BOOL: Final = Typed("bool_")

# The defaults as x64 gives them; narrowed with x64 off.
DEFAULT_INT: Final = "i64"
DEFAULT_UINT: Final = "u64"
DEFAULT_FLOAT: Final = "f64"
DEFAULT_COMPLEX: Final = "c128"
_DEFAULTS: Final = {"b": "bool_", "i": DEFAULT_INT, "u": DEFAULT_UINT, "f": DEFAULT_FLOAT, "c": DEFAULT_COMPLEX}

# The lattice, each type with the types just above it. `i*`, `f*`, `c*` are the weak kinds.
_LATTICE: Final[Mapping[str, tuple[str, ...]]] = {
    "bool_": ("i*",),
    "i*": ("u8", "i8"),
    "u8": ("i16", "u16"), "u16": ("i32", "u32"), "u32": ("i64", "u64"), "u64": ("f*",),
    "i8": ("i16",), "i16": ("i32",), "i32": ("i64",), "i64": ("f*",),
    "f*": ("bf16", "f16", "c*"), "bf16": ("f32",), "f16": ("f32",), "f32": ("f64", "c64"), "f64": ("c128",),
    "c*": ("c64",), "c64": ("c128",), "c128": (),
}
# With x64 off JAX never forms a 64-bit type from narrower ones: u32 with i32 gives i32, not i64.
_LATTICE_X32: Final = {**_LATTICE, "u32": ("i32", "u64")}
_WEAK_NODE: Final = {"i": "i*", "u": "i*", "f": "f*", "c": "c*"}
_WEAK_KIND: Final = {"i*": "i", "f*": "f", "c*": "c"}
_NUMPY_NAME: Final = {ours: numpy for numpy, ours in NUMPY_NAMES.items() if numpy != "bool_"}


def _upper_bounds(lattice: Mapping[str, tuple[str, ...]]) -> dict[str, frozenset[str]]:
    bounds: dict[str, frozenset[str]] = {}

    def above(node: str) -> frozenset[str]:
        if node not in bounds:
            bounds[node] = frozenset((node,)).union(*(above(up) for up in lattice[node]))
        return bounds[node]

    for node in lattice:
        above(node)
    return bounds


_UB: Final = _upper_bounds(_LATTICE)
_UB_X32: Final = _upper_bounds(_LATTICE_X32)


def _join(nodes: Iterable[str], bounds: Mapping[str, frozenset[str]]) -> str:
    """The least upper bound of `nodes` on the lattice (every pair has one)."""
    given = set(nodes)
    common = frozenset.intersection(*(bounds[n] for n in given))
    least = (common & given) or {c for c in common if common <= bounds[c]}
    (result,) = least
    return result


def _node(t: Typed) -> str:
    assert t.dtype is not None
    if t.weak and t.dtype != "bool_":
        return _WEAK_NODE[KINDS[t.dtype][0]]
    return t.dtype


def _promote(operands: list[Typed], bounds: Mapping[str, frozenset[str]], x64: bool) -> Typed:
    """JAX's `lattice_result_type` over known dtypes."""
    dtypes = {t.dtype for t in operands}
    if len(operands) == 1:
        return operands[0]
    if len(dtypes) == 1 and not all(t.weak for t in operands):
        return Typed(operands[0].dtype)
    if all(t.weak for t in operands):
        # Weak values alone: the join of their strong dtypes, still weak.
        result = _join((t.dtype for t in operands if t.dtype is not None), bounds)
        return Typed(result, result != "bool_")
    result = _join((_node(t) for t in operands), bounds)
    if result in _WEAK_KIND:
        default = _DEFAULTS[_WEAK_KIND[result]]
        return Typed(default if x64 else narrowed(default), True)
    return Typed(result)


def _narrow(t: Typed) -> Typed:
    return Typed(narrowed(t.dtype), t.weak) if t.dtype is not None and t.dtype in KINDS else t


def result_type(*operands: Typed) -> Typed:
    """The dtype of an elementwise op over `operands` (`jnp.result_type`), unknown if any is.

    Unknown too where x64 on and off disagree on more than the width, so no mode is assumed.
    """
    return _result_type(operands)


@lru_cache(maxsize=4096)  # every arithmetic op asks: the lattice walk costs ~10 us, and programs meet few dtypes
def _result_type(operands: tuple[Typed, ...]) -> Typed:
    if not operands or any(t.dtype not in KINDS for t in operands):
        return UNKNOWN
    wide = _promote(list(operands), _UB, x64=True)
    narrow = _promote([_narrow(t) for t in operands], _UB_X32, x64=False)
    return wide if _narrow(wide) == narrow else UNKNOWN


def promoted(types: Iterable[ArrayType]) -> Typed:
    """`result_type` of array types (their dtype and weak flag)."""
    return result_type(*(Typed(t.dtype, t.weak) for t in types))


def python_scalar(value: object) -> Typed:
    """A Python number: a weak int, float or complex (bool is a strong bool)."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return Typed(DEFAULT_INT, True)
    if isinstance(value, float):
        return Typed(DEFAULT_FLOAT, True)
    if isinstance(value, complex):
        return Typed(DEFAULT_COMPLEX, True)
    return UNKNOWN


_INEXACT: Final = {"b": "f32", "u": "f32", "i": "f32"}


def inexact(t: Typed) -> Typed:
    """`jnp.sqrt`, `exp`, `tanh`, ... and true division: bool and ints up to 32 bits become f32,
    64-bit ints f64 (JAX's fixed table, `to_inexact_dtype`, in both x64 modes)."""
    if t.dtype is None or t.dtype not in KINDS:
        return UNKNOWN
    kind, width = KINDS[t.dtype]
    if kind not in _INEXACT:
        return t
    return Typed("f64" if width == 64 else "f32", t.weak)


def real(t: Typed) -> Typed:
    """`jnp.abs`, `real`, `imag`, `var`, `std` of a complex value: the float of its half width."""
    if t.dtype == "c64":
        return Typed("f32", t.weak)
    if t.dtype == "c128":
        return Typed("f64", t.weak)
    return t


def true_divide(*operands: Typed) -> Typed:
    """`a / b`: the promoted dtype, made inexact."""
    return inexact(result_type(*operands))


def comparison(*operands: Typed) -> Typed:
    """`<`, `==`, `jnp.isnan`, ...: a strong bool whatever the operands (shape rules aside)."""
    return BOOL


# jax.numpy, jax.scipy.special, jax.lax and jax.nn elementwise functions by their dtype rule
# (checked against jax.eval_shape in tests/algebra/test_promotion.py); the rest promote.
_INEXACT_FUNCTIONS: Final = frozenset((
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "cbrt", "reciprocal",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
    "arctanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "rint", "deg2rad", "rad2deg", "degrees", "radians", "sinc", "i0", "fabs", "spacing",
    "divide", "true_divide", "float_power", "arctan2", "atan2", "hypot", "logaddexp", "logaddexp2",
    "copysign", "nextafter", "heaviside", "ldexp", "erf", "erfc", "erfinv", "expit", "logit",
    "gammaln", "digamma", "ndtr", "ndtri", "log_ndtr", "xlogy", "xlog1py", "entr", "logistic",
    "sigmoid", "log_sigmoid", "softplus", "silu", "swish", "gelu", "elu", "celu", "selu", "glu",
    "softmax", "log_softmax", "logsumexp", "standardize", "normalize", "hard_tanh", "tanh_", "mish", "sparse_plus",
    "log1mexp", "sparse_sigmoid",
))
_WEAK_FROM_INTS: Final = frozenset(("elu", "celu", "selu", "sparse_sigmoid"))
# jax.nn activations whose dtype for integer inputs follows their implementation, not a rule.
_UNSURE_FOR_INTS: Final = frozenset((
    "relu6", "soft_sign", "leaky_relu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "mish",
    "squareplus", "sparse_plus", "standardize", "normalize",
))
_REAL_FUNCTIONS: Final = frozenset(("abs", "absolute", "real", "imag"))
_NUMERIC_FUNCTIONS: Final = frozenset((  # bool in, int32 out (JAX's to_numeric_dtype)
    "square", "floor_divide", "power", "mod", "remainder", "fmod", "left_shift", "right_shift", "clip",
    "pow", "bitwise_left_shift", "bitwise_right_shift",
))
_BOOL_FUNCTIONS: Final = frozenset((
    "isnan", "isinf", "isfinite", "logical_not", "signbit", "isneginf", "isposinf", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
    "logical_xor", "isclose", "eq", "ne", "lt", "le", "gt", "ge", "isreal", "iscomplex",
))


def function(name: str, operands: Iterable[Typed]) -> Typed:
    """The dtype of elementwise function `name` (`sqrt`, `greater`, `abs`, ...) over `operands`."""
    if name in _BOOL_FUNCTIONS:
        return BOOL
    promoted_ = result_type(*operands)
    integral = promoted_.dtype in KINDS and KINDS[str(promoted_.dtype)][0] in "biu"
    if name in _UNSURE_FOR_INTS and integral:
        return UNKNOWN
    if (name in _WEAK_FROM_INTS and integral) or (name == "softplus" and promoted_.dtype == "bool_"):
        return Typed(DEFAULT_FLOAT, True)  # jax.nn computes these against Python floats
    if name in ("rint", "angle") and integral:
        return Typed(DEFAULT_FLOAT)  # the default float, not to_inexact's table
    if name in _INEXACT_FUNCTIONS:
        return inexact(promoted_)
    if name == "angle":
        return real(promoted_)
    if name in _REAL_FUNCTIONS:
        return real(promoted_)
    if name in _NUMERIC_FUNCTIONS and promoted_.dtype == "bool_":
        return Typed("i32")
    if name in ("relu", "relu6") and promoted_.dtype == "bool_":
        return Typed(DEFAULT_INT, True)  # computed against a Python 0
    return promoted_


def requested(dtype: str | None) -> Typed:
    """An explicit `dtype=` request (`astype`, constructors, `preferred_element_type`): strong."""
    return Typed(dtype) if dtype in KINDS else UNKNOWN


def default(kind: str) -> Typed:
    """A constructor's default dtype of a kind (`f` for `jnp.ones(3)`, `i` for `jnp.arange(3)`)."""
    return Typed(_DEFAULTS[kind])


# Reductions by their dtype rule (jax.numpy.reductions, `dtype=None`).
_SUMS: Final = frozenset(("sum", "prod", "nansum", "nanprod"))
_CUMULATIVE: Final = frozenset(("cumsum", "cumprod", "nancumsum", "nancumprod"))
_KEEPS: Final = frozenset(("max", "min", "amax", "amin", "nanmax", "nanmin", "ptp", "cummax", "cummin")) | _CUMULATIVE
_INEXACTS: Final = frozenset(("mean", "var", "std", "nanmean", "nanvar", "nanstd", "average", "median", "logsumexp",
                              "logmeanexp", "softmax", "log_softmax", "norm"))
_REAL: Final = frozenset(("var", "std", "nanvar", "nanstd", "norm"))
_BOOLS: Final = frozenset(("any", "all"))
_INDICES: Final = frozenset(("argmax", "argmin", "nanargmax", "nanargmin", "count_nonzero"))
REDUCTIONS: Final = _SUMS | _KEEPS | _INEXACTS | _BOOLS | _INDICES


def reduction(name: str, t: Typed, dtype: str | None = None) -> Typed:
    """The dtype of reduction `name` over `t`; `dtype` is its explicit `dtype=`, when given."""
    if name in _BOOLS:
        return BOOL
    if name in _INDICES:
        return Typed(DEFAULT_INT)
    if dtype is not None:
        return requested(dtype)
    if t.dtype is None or t.dtype not in KINDS:
        return UNKNOWN
    kind = KINDS[t.dtype][0]
    if name in _REAL:
        return real(inexact(t))
    if name in _INEXACTS:
        return inexact(t)
    if kind == "b" and name in _SUMS | _CUMULATIVE:
        return Typed(DEFAULT_INT)  # True counts as 1
    if kind in "iu" and name in _SUMS:
        # `promote_integers=True`: ints sum in the default int, unsigned ints in the default
        # unsigned one (cumsum keeps the narrow type).
        return Typed(DEFAULT_INT if kind == "i" else DEFAULT_UINT)
    return t if name in _KEEPS | _SUMS else UNKNOWN


def contraction(*operands: Typed, preferred: str | None = None) -> Typed:
    """`dot`, `matmul`, `einsum`, `tensordot`: `preferred_element_type` when given, else promotion."""
    if preferred is not None:
        return requested(preferred)
    return result_type(*operands)


def array_literal(elements: Iterable[Typed]) -> Typed:
    """`jnp.array([1, 2.0])`: the elements' promoted dtype, strong (a list is never weak)."""
    promoted = result_type(*elements)
    return Typed(promoted.dtype) if promoted.dtype is not None else UNKNOWN


def admits(declared: str | None, inferred: Typed, x64: bool | None = None) -> bool:
    """Whether a value of `inferred` dtype may be what `declared` (a dtype, a jaxtyping category,
    or None for any) declares; False only where every reading of `inferred` contradicts it.

    `x64` says the mode the program runs in: True (jax_enable_x64 on), False (off), None (not
    known: either). A weak value is admitted by every dtype it adapts to when it meets one.
    """
    allowed = admitted(declared)
    possible = possible_dtypes(inferred, x64)
    return allowed is None or possible is None or bool(allowed & possible)


def possible_dtypes(inferred: Typed, x64: bool | None = None) -> frozenset[str] | None:
    """The dtypes a value of `inferred` may have at run time in mode `x64`; None for any."""
    if inferred.dtype is None:
        return None
    if inferred.dtype not in KINDS:
        return admitted(inferred.dtype)  # a category carried from a jaxtyping annotation
    if inferred.weak and inferred.dtype != "bool_":
        node = _WEAK_NODE[KINDS[inferred.dtype][0]]
        return frozenset(d for d in (_UB if x64 is not False else _UB_X32)[node] if d in KINDS)
    wide, narrow = inferred.dtype, narrowed(inferred.dtype)
    return frozenset((wide,) if x64 else (narrow,) if x64 is False else (wide, narrow))


def dtypes_differ(first: Typed, second: Typed, x64: bool | None = None) -> bool:
    """Whether two values' dtypes differ whatever their run-time mode allows (a weak value at its
    default width; f64 is f32 without x64)."""
    a, b = possible_dtypes(first, x64), possible_dtypes(second, x64)
    return a is not None and b is not None and not a & b


def shown(inferred: Typed, x64: bool | None = None) -> str:
    """`inferred` as a message shows it in mode `x64` (`f32`, `f32 (f64 with jax_enable_x64)`)."""
    if inferred.dtype is None:
        return "an unknown dtype"
    if inferred.dtype not in KINDS:
        return inferred.dtype
    wide, narrow = inferred.dtype, narrowed(inferred.dtype)
    text = wide if x64 else narrow
    if x64 is None and wide != narrow:
        text = f"{narrow} ({wide} with jax_enable_x64)"
    return f"weakly typed {text}" if inferred.weak and inferred.dtype != "bool_" else text


def as_shown(value: ArrayType, x64: bool | None = None) -> ArrayType:
    """`value` as a person reads it in mode `x64`: narrowed unless x64 is on (JAX's default is off)."""
    if x64 or value.dtype is None or value.dtype not in KINDS:
        return value
    narrow = narrowed(value.dtype)
    if narrow == value.dtype:  # most values: nothing to narrow, and no copy (hover keeps thousands)
        return value
    return value.with_dtype(narrow, value.weak)


def mismatch_message(what: str, declared: str, inferred: Typed, source: str | None = None,
                     x64: bool | None = None) -> str:
    """SC301's message: `what` (`the return value`) has `inferred`, computed by `source` (the
    operation, when known), where `declared` is declared."""
    origin = f" from {source}" if source else ""
    return f"{what} has dtype {shown(inferred, x64)}{origin} but is declared {declared}{_hint(declared, inferred)}"


def _hint(declared: str, inferred: Typed) -> str:
    if declared not in KINDS or inferred.dtype not in KINDS:
        return ""
    return f" (cast with .astype(jnp.{_NUMPY_NAME.get(declared, declared)}) if that is intended)"
