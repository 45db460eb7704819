"""jax.scipy.stats's univariate distributions against JAX: each drawn program calls one of their
functions (`norm.logpdf`, `poisson.logpmf`, `gamma.cdf`, ...) with a value and its required
parameters (positional) and sometimes `loc=`/`scale=` (named), each an array of a drawn shape
(rank 0 to 3, sizes 1 to 4: shapes that broadcast and shapes that do not) or a Python number.
Where JAX accepts, the checker reports nothing and infers the shape and dtype of `out`; where
it raises, the checker reports it."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shapecheck.analyzer.library.stats_api import DISTRIBUTIONS
from tests.differential import agree, cases

jax = pytest.importorskip("jax")
stats = pytest.importorskip("jax.scipy.stats")

CASES = cases(150)

SIZES = st.integers(1, 4)
FUNCTIONS = sorted((distribution, function) for distribution, functions in DISTRIBUTIONS.items()
                   for function in functions)


def _parameters(distribution: str, function: str) -> tuple[list[str], list[str]]:
    """The required parameters after the value, and the optional ones among loc and scale."""
    signature = inspect.signature(getattr(getattr(stats, distribution), function))
    names = list(signature.parameters.values())[1:]
    required = [p.name for p in names if p.default is inspect.Parameter.empty]
    optional = [p.name for p in names if p.default is not inspect.Parameter.empty and p.name in ("loc", "scale")]
    return required, optional


@st.composite
def operand(draw: st.DrawFn, shape: list[int], dtype: str = "jnp.float32") -> str:
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.sampled_from(("0.5", "2")))
    if kind == 1:
        shape = draw(st.lists(SIZES, max_size=3))  # maybe not broadcastable
    elif kind == 2:
        shape = shape[draw(st.integers(0, len(shape))):]  # a suffix: broadcasts
    return "jnp.zeros((" + "".join(f"{size}, " for size in shape) + f"), {dtype})"


@st.composite
def stats_programs(draw: st.DrawFn) -> str:
    distribution, function = draw(st.sampled_from(FUNCTIONS))
    required, optional = _parameters(distribution, function)
    shape = draw(st.lists(SIZES, max_size=3))
    discrete = function.endswith("pmf") or distribution in ("bernoulli", "poisson", "binom", "geom", "nbinom",
                                                           "betabinom")
    value = draw(operand(shape, "jnp.int32" if discrete and draw(st.booleans()) else "jnp.float32"))
    arguments = [value, *(draw(operand(shape)) for _ in required)]
    named = [f"{name}={draw(operand(shape))}" for name in optional if draw(st.booleans())]
    return (f"import jax.numpy as jnp\nfrom jax.scipy import stats\n\n"
            f"out = stats.{distribution}.{function}({', '.join([*arguments, *named])})\n")


@given(stats_programs())
@CASES
def test_stats_agree_with_jax(program: str) -> None:
    agree(program, frozenset({"SC101", "SC301"}))


@pytest.mark.parametrize("call", [
    "stats.norm.logpdf(jnp.zeros((3,)), scale=jnp.zeros((2, 3)))",  # a named parameter broadcasts too: (2, 3)
    "stats.norm.logpdf(jnp.zeros((3,)), jnp.zeros((4,)))",
    "stats.poisson.logpmf(jnp.zeros((3,), jnp.int32), jnp.zeros((2, 1)))",  # floating point, (2, 3)
    "stats.norm.cdf(1.0)",  # 0-d
])
def test_fixed_programs(call: str) -> None:
    agree(f"import jax.numpy as jnp\nfrom jax.scipy import stats\n\nout = {call}\n", frozenset({"SC101"}))
