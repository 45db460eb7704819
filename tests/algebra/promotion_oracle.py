"""JAX's own answers for the promotion property test, in the x64 mode of the running process.

Run as a script (`python -m tests.algebra.promotion_oracle`) it prints them as JSON, so the test
can ask a subprocess with `JAX_ENABLE_X64=1` too. Each answer is keyed by a case name built from
the annotation language's dtype names; `weak:int`, `weak:float`, `weak:complex` are Python scalars.
"""

from __future__ import annotations

import importlib
import json
import warnings
from collections.abc import Callable
from typing import Any

from shapecheck.dtypes import DTYPE_NAMES, KINDS, NUMPY_NAMES, narrowed

WEAK: dict[str, object] = {"weak:int": 1, "weak:float": 1.0, "weak:complex": 1j}
OPERANDS: tuple[str, ...] = (*DTYPE_NAMES, *WEAK)
NUMPY: dict[str, str] = {ours: numpy for numpy, ours in NUMPY_NAMES.items() if numpy != "bool_"}
UNARY: tuple[str, ...] = ("sqrt", "exp", "tanh", "negative", "abs", "isnan", "floor")
# Elementwise functions by module, each called with one dtype for all its operands.
FUNCTIONS: dict[str, tuple[str, ...]] = {
    "jax.numpy": (
        "abs", "negative", "positive", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
        "cbrt", "square", "reciprocal", "sin", "cos", "tan", "arcsin", "arctanh", "floor", "ceil", "rint",
        "round", "trunc", "conj", "real", "imag", "angle", "deg2rad", "degrees", "sinc", "i0", "invert",
        "fabs", "spacing", "flip", "sort", "isnan", "isfinite", "logical_not", "signbit", "acos", "asinh",
        "atanh", "bitwise_invert", "isreal", "iscomplex"),
    "jax.numpy:2": (
        "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power", "float_power", "mod",
        "remainder", "fmod", "maximum", "minimum", "fmax", "arctan2", "hypot", "logaddexp", "bitwise_and",
        "left_shift", "copysign", "nextafter", "heaviside", "equal", "less", "logical_and", "isclose", "atan2",
        "pow", "bitwise_left_shift"),
    "jax.scipy.special": ("erf", "erfc", "erfinv", "expit", "logit", "gammaln", "digamma", "entr"),
    "jax.nn": ("relu", "relu6", "sigmoid", "softplus", "soft_sign", "silu", "swish", "log_sigmoid", "leaky_relu",
               "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "elu", "celu", "selu", "gelu", "mish",
               "squareplus", "sparse_plus", "identity", "softmax", "log_softmax", "standardize", "log1mexp",
               "sparse_sigmoid"),
    "jax.lax": ("exp", "tanh", "neg", "abs", "floor", "logistic", "rsqrt"),
    "jax.lax:2": ("add", "mul", "div", "max", "pow", "eq", "lt"),
}
FUNCTION_OPERANDS: tuple[str, ...] = ("bool_", "i8", "u8", "i32", "i64", "f16", "bf16", "f32", "f64", "c64",
                                      "weak:int", "weak:float")
REDUCTIONS: tuple[str, ...] = ("sum", "prod", "max", "mean", "var", "argmax", "any", "cumsum", "cumprod")
RANDOM: tuple[str, ...] = ("normal", "uniform", "randint", "bernoulli", "categorical")


def cases() -> list[str]:
    keys = [f"result_type {a} {b}" for a in OPERANDS for b in OPERANDS]
    keys += [f"add {a} {b}" for a in OPERANDS for b in OPERANDS]
    keys += [f"true_divide {a} {b}" for a in OPERANDS for b in OPERANDS]
    keys += [f"{op} {a}" for op in UNARY for a in OPERANDS]
    keys += [f"{op} {a}" for op in REDUCTIONS for a in DTYPE_NAMES]
    keys += [f"astype {a}" for a in DTYPE_NAMES] + [f"zeros {a}" for a in DTYPE_NAMES]
    keys += [f"dot {a} {b}" for a in DTYPE_NAMES for b in DTYPE_NAMES]
    keys += [f"dot_preferred {a} {b}" for a in ("i8", "bf16", "f32") for b in ("i32", "f32", "f64")]
    keys += ["ones", "arange int", "arange float", "eye", "linspace", "array ints", "array floats",
             "array bools", "array scalar", "full int", "full float"]
    keys += [f"random {name}" for name in RANDOM]
    keys += [f"fn {module} {name} {a}" for module, names in FUNCTIONS.items() for name in names
             for a in FUNCTION_OPERANDS]
    return keys


def _operand(name: str, x64: bool) -> Any:
    import jax
    import numpy as np

    if name in WEAK:
        return WEAK[name]
    return jax.ShapeDtypeStruct((3,), np.dtype(NUMPY[name if x64 else narrowed(name)]))


def _jax_cases(x64: bool) -> dict[str, Callable[[], Any]]:
    import jax
    import jax.numpy as jnp
    import numpy as np

    def lift(fn: Callable[..., Any], *names: str) -> Callable[[], Any]:
        # Python scalars stay Python scalars (weak); the others are abstract arrays.
        args = [_operand(n, x64) for n in names]
        arrays = [i for i, a in enumerate(args) if not isinstance(a, int | float | complex)]

        def run(*given: Any) -> Any:
            full = list(args)
            for index, value in zip(arrays, given, strict=True):
                full[index] = value
            return fn(*full)

        return lambda: jax.eval_shape(run, *[args[i] for i in arrays])

    def dtype_of(name: str) -> Any:
        return np.dtype(NUMPY[name])

    key = jax.random.key(0)
    table: dict[str, Callable[[], Any]] = {}
    for a in OPERANDS:
        for b in OPERANDS:
            spec_a = type(WEAK[a]) if a in WEAK else dtype_of(a if x64 else narrowed(a))
            spec_b = type(WEAK[b]) if b in WEAK else dtype_of(b if x64 else narrowed(b))
            table[f"result_type {a} {b}"] = (
                lambda sa=spec_a, sb=spec_b: jax.dtypes.result_type(sa, sb, return_weak_type_flag=True))
            table[f"add {a} {b}"] = lift(jnp.add, a, b)
            table[f"true_divide {a} {b}"] = lift(jnp.true_divide, a, b)
        for op in UNARY:
            table[f"{op} {a}"] = lift(getattr(jnp, op), a)
    for a in DTYPE_NAMES:
        for op in REDUCTIONS:
            table[f"{op} {a}"] = lift(getattr(jnp, op), a)
        requested = dtype_of(a)
        table[f"astype {a}"] = lift(lambda x, d=requested: x.astype(d), "f32")
        table[f"zeros {a}"] = lambda d=requested: jax.eval_shape(lambda: jnp.zeros(3, d))
        for b in DTYPE_NAMES:
            table[f"dot {a} {b}"] = lift(jnp.dot, a, b)
    for a in ("i8", "bf16", "f32"):
        for b in ("i32", "f32", "f64"):
            preferred = dtype_of(b)
            table[f"dot_preferred {a} {b}"] = lift(
                lambda x, y, d=preferred: jnp.dot(x, y, preferred_element_type=d), a, a)
    constant = {
        "ones": lambda: jnp.ones(3), "arange int": lambda: jnp.arange(3), "arange float": lambda: jnp.arange(0, 3, 0.5),
        "eye": lambda: jnp.eye(3), "linspace": lambda: jnp.linspace(0, 1, 3), "array ints": lambda: jnp.array([1, 2]),
        "array floats": lambda: jnp.array([1, 2.0]), "array bools": lambda: jnp.array([True]),
        "array scalar": lambda: jnp.array(1), "full int": lambda: jnp.full(3, 1), "full float": lambda: jnp.full(3, 1.0),
        "random normal": lambda: jax.random.normal(key, (3,)), "random uniform": lambda: jax.random.uniform(key, (3,)),
        "random randint": lambda: jax.random.randint(key, (3,), 0, 5),
        "random bernoulli": lambda: jax.random.bernoulli(key, 0.5, (3,)),
        "random categorical": lambda: jax.random.categorical(key, jnp.ones(3)),
    }
    for name, fn in constant.items():
        table[name] = lambda fn=fn: jax.eval_shape(fn)
    for module, names in FUNCTIONS.items():
        imported = importlib.import_module(module.partition(":")[0])
        arity = 2 if module.endswith(":2") else 1
        for name in names:
            for a in FUNCTION_OPERANDS:
                table[f"fn {module} {name} {a}"] = lift(getattr(imported, name), *[a] * arity)
    return table


def answers() -> dict[str, tuple[str, bool] | None]:
    """case -> (our dtype name, weak), or None where JAX refuses the operation."""
    import jax

    x64 = bool(jax.config.read("jax_enable_x64"))
    table = _jax_cases(x64)
    found: dict[str, tuple[str, bool] | None] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 64-bit requests with x64 off
        for case in cases():
            try:
                result = table[case]()
            except (TypeError, ValueError, IndexError):
                found[case] = None
                continue
            if isinstance(result, tuple):
                dtype, weak = result
            else:
                dtype, weak = result.dtype, bool(getattr(result, "weak_type", False))
            name = NUMPY_NAMES[str(dtype)]
            assert name in KINDS
            found[case] = (name, weak)
    return found


if __name__ == "__main__":
    print(json.dumps(answers()))
