"""NumPy's statistics and index helpers against JAX: trapezoid, cov, corrcoef, histogram,
polyval, indices, diag_indices, tril_indices, triu_indices, unravel_index, resize, and
jax.nn.glu, on `jnp.zeros` of drawn shapes (rank 0 to 3, sizes 1 to 4) with drawn axes, sample
points, variables, bins and sizes. Where JAX accepts, the checker reports nothing and infers
the shape and dtype of `out`; where it raises, the checker reports it. cov and corrcoef with `y`
and `rowvar=False` are left unknown (JAX pads m to y's rank first), and not drawn."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases

pytest.importorskip("jax")

CASES = cases(150)
CODES = frozenset({"SC101", "SC106", "SC107"})

SIZES = st.integers(1, 4)


def _zeros(shape: list[int], dtype: str = "jnp.float32") -> str:
    return "jnp.zeros((" + "".join(f"{size}, " for size in shape) + f"), {dtype})"


@st.composite
def statistics_programs(draw: st.DrawFn) -> str:
    shape = draw(st.lists(SIZES, max_size=3))
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32")))
    name = draw(st.sampled_from(("trapezoid", "cov", "corrcoef", "histogram", "polyval", "indices", "diag_indices",
                                 "tril_indices", "triu_indices", "unravel_index", "resize", "glu")))
    if name == "trapezoid":
        axis = draw(st.integers(-3, 2))
        x = ""
        if draw(st.booleans()):
            length = shape[axis] if -len(shape) <= axis < len(shape) and draw(st.integers(0, 3)) else draw(SIZES)
            x = ", " + _zeros(draw(st.sampled_from(([length], shape))))
        body = f"out = jnp.trapezoid({_zeros(shape, dtype)}{x}, axis={axis})"
    elif name in ("cov", "corrcoef"):
        m = draw(st.lists(SIZES, max_size=3))
        y = ""
        if draw(st.booleans()):
            y = ", " + _zeros([draw(SIZES), *(m[1:2] if draw(st.integers(0, 3)) else [draw(SIZES)])])
        # With y and rowvar=False, JAX pads m to y's rank before transposing it: not followed
        # (the checker leaves that result unknown), so not drawn.
        rowvar = ", rowvar=False" if not y and draw(st.booleans()) else ""
        body = f"out = jnp.{name}({_zeros(m)}{y}{rowvar})"
    elif name == "histogram":
        bins = draw(st.sampled_from((str(draw(SIZES)), _zeros(draw(st.lists(SIZES, min_size=1, max_size=2))))))
        part = draw(st.sampled_from(("counts", "edges")))
        body = f"counts, edges = jnp.histogram({_zeros(shape)}, bins={bins})\nout = {part}"
    elif name == "polyval":
        p = [draw(SIZES), *draw(st.sampled_from(([], shape[-1:], [draw(SIZES)])))]
        body = f"out = jnp.polyval({_zeros(p)}, {_zeros(shape, dtype)})"
    elif name == "indices":
        dims = shape or [2]
        if draw(st.booleans()):
            body = f"parts = jnp.indices({tuple(dims)!r}, sparse=True)\nout = parts[{len(dims) - 1}]"
        else:
            body = f"out = jnp.indices({tuple(dims)!r})"
    elif name == "diag_indices":
        body = f"parts = jnp.diag_indices({draw(SIZES)}, {draw(st.integers(1, 3))})\nout = parts[0]"
    elif name in ("tril_indices", "triu_indices"):
        m = f", {draw(st.integers(0, 5))}" if draw(st.booleans()) else ""
        body = f"rows, cols = jnp.{name}({draw(st.integers(0, 5))}, {draw(st.integers(-3, 3))}{m})\nout = rows"
    elif name == "unravel_index":
        body = f"parts = jnp.unravel_index({_zeros(shape, 'jnp.int32')}, (4, 5))\nout = parts[1]"
    elif name == "resize":
        body = f"out = jnp.resize({_zeros(shape, dtype)}, {tuple(draw(st.lists(SIZES, min_size=1, max_size=3)))!r})"
    else:
        body = f"out = jax.nn.glu({_zeros(shape)}, axis={draw(st.integers(-2, 2))})"
    return f"import jax\nimport jax.numpy as jnp\n\n{body}\n"


@given(statistics_programs())
@CASES
def test_statistics_agree_with_jax(program: str) -> None:
    agree(program, CODES)


@pytest.mark.parametrize("body", [
    "out = jnp.trapezoid(jnp.zeros((3, 4)), jnp.zeros((3,)))",  # sample points of the other axis' length
    "out = jnp.cov(jnp.zeros((3, 5)), jnp.zeros((2, 4)))",  # observations 5 against 4
    "out = jnp.cov(jnp.zeros((5,)))",  # one variable: 0-d
    "counts, edges = jnp.histogram(jnp.zeros((5, 3)), bins=4)\nout = edges",  # (5,)
    "rows, cols = jnp.tril_indices(4, -1, 3)\nout = cols",  # (6,)
    "out = jax.nn.glu(jnp.zeros((3, 5)))",  # an odd size to halve
    "rows, cols = jnp.tril_indices(0)\nout = rows",  # an empty triangle: (0,)
])
def test_fixed_programs(body: str) -> None:
    agree(f"import jax\nimport jax.numpy as jnp\n\n{body}\n", CODES)
