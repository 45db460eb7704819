"""`x.at[idx].set(v)` and the other updates: `v` must broadcast to `x[idx]`, as JAX requires.

JAX is the oracle: each update of a grid of indices and value shapes runs on JAX, and the
checker reports it exactly where JAX raises.
"""

from __future__ import annotations

import itertools

import pytest

from shapecheck.api import analyze_source

jnp = pytest.importorskip("jax.numpy")

INDICES = ["[0]", "[:, 0::2]", "[1:3]", "[..., -1]", "[None]", "[:, :]"]
VALUES = [(), (1,), (3,), (6,), (2, 6), (4, 3), (4, 1), (1, 4, 3), (2, 1)]
METHODS = ["set", "add", "multiply"]


@pytest.mark.parametrize(("index", "values", "method"), list(itertools.product(INDICES, VALUES, METHODS)))
def test_reported_exactly_where_jax_raises(index: str, values: tuple[int, ...], method: str) -> None:
    program = f"import jax.numpy as jnp\nx = jnp.zeros((4, 6))\ny = x.at{index}.{method}(jnp.ones({values!r}))\n"
    try:
        x = jnp.zeros((4, 6))
        getattr(eval(f"x.at{index}", {"x": x}), method)(jnp.ones(values))
        refused = False
    except (TypeError, ValueError):
        refused = True
    codes = [d.code for d in analyze_source("update.py", program).diagnostics]
    assert codes == (["SC101"] if refused else []), program
