"""lax's elementwise operators against JAX: each drawn program applies one (unary, binary,
`select` or `clamp`) to arrays of drawn shapes (rank 0 to 3, sizes 1 to 3: equal, size-1 and
mismatched dims, and ranks that differ) and dtypes (bool, int32, uint32, float32, float16),
and to Python numbers. lax is stricter than jax.numpy: operands of one rank and one dtype,
of a kind each operator takes, `select`'s cases of one shape. Where JAX accepts, the checker
reports nothing and infers the shape and dtype of `out`; where it raises, the checker reports
it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases

pytest.importorskip("jax")

CASES = cases(200)
CODES = frozenset({"SC101", "SC301"})

UNARY = ("exp", "log", "tanh", "logistic", "rsqrt", "sqrt", "neg", "abs", "sign", "floor", "ceil", "round",
         "sin", "cos", "erf", "stop_gradient", "square", "expm1", "log1p", "cbrt")
BINARY = ("add", "sub", "mul", "div", "max", "min", "pow", "atan2", "eq", "ne", "lt", "le", "gt", "ge")
DTYPES = ("jnp.bool_", "jnp.int32", "jnp.uint32", "jnp.float32", "jnp.float16")


def _tuple(items: list[int]) -> str:
    return "(" + "".join(f"{item}, " for item in items) + ")"


@st.composite
def operand(draw: st.DrawFn, shape: list[int], dtype: str) -> str:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.sampled_from(("2", "1.5")))  # a Python number
    if kind <= 2:
        shape = draw(st.lists(st.integers(1, 3), max_size=3))  # another shape, maybe another rank
    elif kind == 3:
        shape = [1 if draw(st.booleans()) else size for size in shape]  # size-1 dims
    if draw(st.integers(0, 3)) == 0:
        dtype = draw(st.sampled_from(DTYPES))
    return f"jnp.zeros({_tuple(shape)}, {dtype})"


@st.composite
def lax_programs(draw: st.DrawFn) -> str:
    shape = draw(st.lists(st.integers(1, 3), max_size=3))
    dtype = draw(st.sampled_from(DTYPES))
    first = f"jnp.zeros({_tuple(shape)}, {dtype})"
    kind = draw(st.sampled_from(("unary", "binary", "binary", "select", "clamp")))
    if kind == "unary":
        call = f"lax.{draw(st.sampled_from(UNARY))}({first})"
    elif kind == "binary":
        call = f"lax.{draw(st.sampled_from(BINARY))}({first}, {draw(operand(shape, dtype))})"
    elif kind == "select":
        which = draw(st.sampled_from((f"jnp.zeros({_tuple(shape)}, jnp.bool_)", "jnp.zeros((), jnp.bool_)",
                                      draw(operand(shape, "jnp.bool_")))))
        call = f"lax.select({which}, {first}, {draw(operand(shape, dtype))})"
    else:
        call = f"lax.clamp({draw(st.sampled_from(('0', '0.5')))}, {first}, {draw(st.sampled_from(('1', '2.5')))})"
    return f"import jax.numpy as jnp\nfrom jax import lax\n\nout = {call}\n"


@given(lax_programs())
@CASES
def test_lax_elementwise_agrees_with_jax(program: str) -> None:
    agree(program, CODES)


@pytest.mark.parametrize("call", [
    "lax.add(jnp.zeros((3, 1)), jnp.zeros((1, 4)))",  # size-1 dims broadcast: (3, 4)
    "lax.add(jnp.zeros((3, 4)), jnp.zeros((4,)))",  # ranks differ: lax adds no leading dim
    "lax.mul(jnp.zeros((3, 4)), jnp.zeros(()))",  # a 0-d operand goes with any rank
    "lax.add(jnp.zeros((3, 4)), 2)",  # a Python int with a float array
    "lax.max(jnp.zeros((3, 4)), 0.0)",
    "lax.add(jnp.zeros((3,)), jnp.zeros((3,), jnp.int32))",
    "lax.sin(jnp.zeros((3,), jnp.int32))",
    "lax.abs(jnp.zeros((3,), jnp.uint32))",
    "lax.pow(jnp.zeros((3,)), jnp.zeros((3,), jnp.int32))",  # an integer exponent is taken
    "lax.select(jnp.zeros((3, 4), jnp.bool_), jnp.zeros((3, 4)), jnp.zeros((1, 4)))",  # no broadcasting
    "lax.select(jnp.zeros((4,), jnp.bool_), jnp.zeros((3, 4)), jnp.zeros((3, 4)))",
    "lax.select(jnp.zeros((), jnp.bool_), jnp.zeros((3, 4)), jnp.zeros((3, 4)))",
    "lax.select(jnp.zeros((3, 4)), jnp.zeros((3, 4)), jnp.zeros((3, 4)))",  # a float predicate
])
def test_fixed_programs(call: str) -> None:
    agree(f"import jax.numpy as jnp\nfrom jax import lax\n\nout = {call}\n", CODES)
