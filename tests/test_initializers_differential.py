"""jax.nn's initializers (flax.linen.initializers) against JAX itself: the variance-scaling
family, orthogonal and delta_orthogonal refuse shapes of too few (or too many) dims, as a layer's
`bias_init`, in `self.param`, or called directly. Each program runs as written: where it
raises, the checker reports SC106 on the line of the layer (or call) at fault, and nothing else;
where it runs, the checker reports nothing."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.api import analyze_source

pytest.importorskip("flax")

HEADER = """\
import jax
import jax.numpy as jnp
import flax.linen as nn
from jax.nn import initializers

key = jax.random.PRNGKey(0)
"""

# name -> (program after HEADER, the line of its SC106 within it, or None where JAX runs it)
CASES: dict[str, tuple[str, int | None]] = {
    "a dense bias from lecun_normal": (
        "layer = nn.Dense(5, bias_init=nn.initializers.lecun_normal())\nlayer.init(key, jnp.zeros((1, 4)))", 1),
    "a dense kernel from lecun_normal": (
        "layer = nn.Dense(5, kernel_init=nn.initializers.lecun_normal())\nlayer.init(key, jnp.zeros((1, 4)))", None),
    "a dense bias from normal": (
        "layer = nn.Dense(5, bias_init=nn.initializers.normal(0.01))\nlayer.init(key, jnp.zeros((1, 4)))", None),
    "a conv bias from glorot_uniform": (
        "layer = nn.Conv(4, (3, 3), bias_init=initializers.glorot_uniform())\nlayer.init(key, jnp.zeros((1, 8, 8, 3)))",
        1),
    "a layer norm scale from he_normal": (
        "layer = nn.LayerNorm(scale_init=initializers.he_normal())\nlayer.init(key, jnp.zeros((2, 6)))", 1),
    "an embedding from variance_scaling": (
        "layer = nn.Embed(10, 4, embedding_init=initializers.variance_scaling(1.0, 'fan_in', 'normal'))\n"
        "layer.init(key, jnp.zeros((2,), jnp.int32))", None),
    "self.param of a vector from glorot_uniform": (textwrap.dedent("""\
        class M(nn.Module):
            @nn.compact
            def __call__(self, x):
                return x + self.param('b', nn.initializers.glorot_uniform(), (x.shape[-1],))


        M().init(key, jnp.zeros((2, 3)))"""), 4),
    "self.param of a matrix from glorot_uniform": (textwrap.dedent("""\
        class M(nn.Module):
            @nn.compact
            def __call__(self, x):
                return x @ self.param('w', nn.initializers.glorot_uniform(), (x.shape[-1], 2))


        M().init(key, jnp.zeros((2, 3)))"""), None),
    "orthogonal of a vector": ("w = initializers.orthogonal()(key, (4,))", 1),
    "orthogonal of a matrix": ("w = initializers.orthogonal()(key, (4, 3))", None),
    "delta_orthogonal of a matrix": ("w = initializers.delta_orthogonal()(key, (3, 3))", 1),
    "delta_orthogonal of a 3-d kernel": ("w = initializers.delta_orthogonal()(key, (3, 4, 4))", None),
    "variance_scaling of a vector with in_axis given": (
        "w = initializers.variance_scaling(1.0, 'fan_in', 'normal', in_axis=0, out_axis=0)(key, (4,))", None),
    "lecun_normal of a scalar": ("w = initializers.lecun_normal()(key, ())", 1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_checker(name: str) -> None:
    body, line = CASES[name]
    first = HEADER.count("\n") + 1
    found = [(d.span.line - first + 1, d.code) for d in analyze_source("t.py", HEADER + body + "\n").diagnostics]
    assert found == ([] if line is None else [(line, "SC106")]), found


@pytest.mark.parametrize("name", list(CASES))
def test_jax_agrees(name: str) -> None:
    body, line = CASES[name]
    program = compile(HEADER + body + "\n", "t.py", "exec", dont_inherit=True)
    if line is None:
        exec(program, {"__name__": "t"})
    else:
        with pytest.raises(ValueError, match=r"dimensional|2D shape|3D, 4D or 5D"):
            exec(program, {"__name__": "t"})
