"""Layers in model code as flax and equinox users write it: submodules built in `setup` or
inline under `@nn.compact`, `self.param`, `model.apply`, and equinox modules holding layers in
their fields. The checker reads these programs without flax or equinox installed; each wrong
one is reported with its code, each clean one infers `out`'s shape (the differential test runs
the layers themselves)."""

from __future__ import annotations

import pytest

from tests.differential import check, trace

FLAX = """\
import jax
import jax.numpy as jnp
import flax.linen as nn
"""

# name -> (program, `out`'s shape where it is clean, the codes reported)
PROGRAMS: dict[str, tuple[str, tuple[int, ...] | None, tuple[str, ...]]] = {
    "setup, Embed, an activation alias, self.param and apply": (FLAX + """
class Block(nn.Module):
    features: int

    def setup(self):
        self.proj = nn.Dense(self.features)
        self.embed = nn.Embed(100, 16)
        self.w = self.param("w", nn.initializers.zeros_init(), (self.features, 5))

    def __call__(self, ids):
        h = nn.gelu(self.proj(self.embed(ids)))
        return h @ self.w

ids = jnp.zeros((4, 7), jnp.int32)
model = Block(features=32)
out = model.apply(model.init(jax.random.key(0), ids), ids)
""", (4, 7, 5), ()),
    "a bug after the first layer": (FLAX + """
class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(64)(x))
        return x @ jnp.ones((32, 10))

x = jnp.zeros((8, 784))
model = MLP()
out = model.apply(model.init(jax.random.key(0), x), x)
""", None, ("SC104",)),
    "a CNN: conv, pooling-free head": (FLAX + """
class CNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Conv(16, (3, 3), strides=2)(x)
        x = nn.BatchNorm(use_running_average=True)(x)
        x = nn.Conv(32, (3, 3), padding="VALID")(x)
        return x.reshape((x.shape[0], -1))

x = jnp.zeros((2, 28, 28, 1))
model = CNN()
out = model.apply(model.init(jax.random.key(0), x), x)
""", (2, 12 * 12 * 32), ()),
    "GroupNorm's groups do not divide the channels": (FLAX + """
class Net(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.GroupNorm(num_groups=32)(nn.Conv(48, (3, 3))(x))

x = jnp.zeros((2, 8, 8, 3))
model = Net()
out = model.apply(model.init(jax.random.key(0), x), x)
""", None, ("SC105",)),
    "attention heads do not divide the features": (FLAX + """
class Attend(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.SelfAttention(num_heads=6)(x)

x = jnp.zeros((2, 10, 64))
model = Attend()
out = model.apply(model.init(jax.random.key(0), x), x)
""", None, ("SC105",)),
    "an equinox module holding Linear layers": ("""
import jax
import jax.numpy as jnp
import equinox as eqx

class Net(eqx.Module):
    l1: eqx.nn.Linear
    l2: eqx.nn.Linear

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.l1 = eqx.nn.Linear(3, 16, key=k1)
        self.l2 = eqx.nn.Linear(16, 2, key=k2)

    def __call__(self, x):
        return self.l2(jax.nn.relu(self.l1(x)))

net = Net(jax.random.key(0))
out = jax.vmap(net)(jnp.zeros((5, 3)))
""", (5, 2), ()),
    "an equinox Linear given another size": ("""
import jax
import jax.numpy as jnp
import equinox as eqx

layer = eqx.nn.Linear(3, 16, key=jax.random.key(0))
out = layer(jnp.zeros(4))
""", None, ("SC104",)),
    "attention over (length, features), no batch": (FLAX + """
layer = nn.MultiHeadDotProductAttention(num_heads=2)
x = jnp.zeros((3, 4))
out = layer.apply(layer.init(jax.random.key(0), x), x)
""", (3, 4), ()),
    "attention over one position's features: no length axis": (FLAX + """
class Block(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.SelfAttention(num_heads=2)(x)

x = jnp.zeros((4,))
model = Block()
out = model.apply(model.init(jax.random.key(0), x), x)
""", None, ("SC106",)),
    # A built layer's init and apply: each call is reported (init is where flax raises first).
    "attention over a scalar": (FLAX + """
layer = nn.MultiHeadDotProductAttention(num_heads=1)
x = jnp.zeros(())
out = layer.apply(layer.init(jax.random.key(0), x), x)
""", None, ("SC106", "SC106")),
    "a built layer's apply": (FLAX + """
layer = nn.Dense(3)
x = jnp.zeros((2, 5))
out = layer.apply(layer.init(jax.random.key(0), x), x)
""", (2, 3), ()),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_layers_in_model_code(name: str) -> None:
    program, dims, codes = PROGRAMS[name]
    checked = check(program)
    assert tuple(code.value for code in checked.codes) == codes, checked.codes
    if dims is not None:
        assert checked.type is not None and checked.type.dims == dims, checked.type


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_libraries_agree(name: str) -> None:
    """Each program does on flax and equinox what its entry says: raises where it is wrong."""
    pytest.importorskip("flax")
    pytest.importorskip("equinox")
    program, dims, _ = PROGRAMS[name]
    traced = trace(program)
    if dims is None:
        assert isinstance(traced, BaseException)
    else:
        assert not isinstance(traced, BaseException), traced
        assert tuple(traced.shape) == dims
