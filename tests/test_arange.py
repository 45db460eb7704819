"""`jnp.arange` with int and float bounds has the length JAX gives it."""

from __future__ import annotations

import itertools

import pytest

from shapecheck.api import analyze_source

jnp = pytest.importorskip("jax.numpy")

BOUNDS = [(6.0,), (5.5,), (-1.0,), (0.0,), (1.0, 7.0), (7, 1.0), (0, 1, 0.1), (0, 1.0, 0.3), (3, 1.5, -0.5),
          (0.0, 1.0, 0.25), *itertools.product((0, 2), (5, -3), (1, 2, -1))]


@pytest.mark.parametrize("bounds", BOUNDS, ids=str)
def test_length_matches_jax(bounds: tuple[float, ...]) -> None:
    program = f"import jax.numpy as jnp\nx = jnp.arange{bounds!r}\n"
    result = analyze_source("a.py", program, keep_types=True)
    [typed] = [t.type for t in result.types if t.span.line == 2]
    assert typed.dims == jnp.arange(*bounds).shape
