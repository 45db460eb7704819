"""Values through containers and objects (DESIGN 3c): dicts with keys added after creation and
`**` merges, comprehensions, `zip`/`enumerate`, loops over a few known items, NamedTuples,
dataclasses, flax.struct/equinox-style modules, plain classes with `self.w = ...`, `_replace`,
`dataclasses.replace`, `jax.tree.map` and `jax.tree.leaves`.

Each program's last line reads `out = ...`. The checker's inferred type for it is compared with
what JAX computes, and each wrong program (its bug on the line marked `# bug`) is one JAX
refuses, reported there and nowhere else; a clean program gets nothing.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from shapecheck.api import analyze_source

HEADER = """\
import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax
"""

# name -> (program, the shape `out` has, or None where the program is wrong)
PROGRAMS: dict[str, tuple[str, tuple[int, ...] | None]] = {
    "a classmethod builds with cls": ("""
        class State(NamedTuple):
            w: jax.Array
            b: jax.Array

            @classmethod
            def create(cls, d_in, d_out):
                return cls(jnp.ones((d_in, d_out)), jnp.zeros(d_out))

        state = State.create(4, 8)
        out = jnp.ones((3, 4)) @ state.w + state.b
        """, (3, 8)),
    "a classmethod read from an instance, and a staticmethod": ("""
        @dataclasses.dataclass
        class Config:
            d_model: int
            n_heads: int

            @classmethod
            def small(cls):
                return cls(d_model=64, n_heads=4)

            @staticmethod
            def split(x, heads):
                return x.reshape(x.shape[0], heads, -1)

        cfg = Config.small()
        other = cfg.small()
        out = Config.split(jnp.ones((2, other.d_model)), cfg.n_heads)
        """, (2, 4, 16)),
    "haiku parameters with noise added by tree_map": ("""
        import haiku as hk

        net = hk.without_apply_rng(hk.transform(lambda x: hk.Linear(4)(x)))
        params = net.init(jax.random.PRNGKey(0), jnp.zeros((2, 10)))
        noisy = jax.tree_util.tree_map(lambda p: p + 0.01, params)
        out = net.apply(noisy, jnp.zeros((2, 10)))
        """, (2, 4)),
    "a nested item assigned again replaces its value": ("""
        params = [{"W": jnp.ones((30, 50))}, {"W": jnp.ones((50, 2))}]
        params[0]["W"] = jnp.ones((50, 30))
        params[-1]["W"] = params[-1]["W"].T
        out = (jnp.ones((4, 50)) @ params[0]["W"])[:, :2] + params[-1]["W"] @ jnp.ones(50)
        """, (4, 2)),
    "a nested item transposed, then used as before": ("""
        params = [{"W": jnp.ones((30, 50))}, {"W": jnp.ones((50, 2))}]
        params[-1]["W"] = params[-1]["W"].T
        out = jnp.ones((4, 50)) @ params[-1]["W"]  # bug
        """, None),
    "an array in a dict changed in place keeps its shape": ("""
        import numpy as np

        buffers = {"x": np.zeros((4, 3))}
        buffers["x"][0] = 1.0
        out = buffers["x"] @ np.ones((3, 2))
        """, (4, 2)),
    "an object's dict item assigned in __init__": ("""
        class Net:
            def __init__(self):
                self.layers = {"a": jnp.ones((3, 4))}
                self.layers["a"] = jnp.ones((4, 5))

            def __call__(self, x):
                return x @ self.layers["a"]

        out = Net()(jnp.ones((2, 4)))
        """, (2, 5)),
    "a closure called again after its captured value changed shape": ("""
        def scale_by(zs):
            def inner(x):
                return x * zs
            return inner(1.0)

        a = scale_by(jnp.ones(4))
        b = scale_by(jnp.ones(5))
        out = b + jnp.ones(5)
        """, (5,)),
    "a gram matrix by vmap of vmap, for two pairs of point sets": ("""
        def gram(xs, zs):
            return jax.vmap(lambda x: jax.vmap(lambda z: jnp.dot(x, z))(zs))(xs)

        X, Xs = jnp.ones((20, 2)), jnp.ones((7, 2))
        K = gram(X, X)
        Ks = gram(X, Xs)
        out = Ks @ jnp.ones(7)
        """, (20,)),
    "a gram matrix for new points used the wrong way round": ("""
        def gram(xs, zs):
            return jax.vmap(lambda x: jax.vmap(lambda z: jnp.dot(x, z))(zs))(xs)

        X, Xs = jnp.ones((20, 2)), jnp.ones((7, 2))
        K = gram(X, X)
        Ks = gram(X, Xs)
        out = Ks @ jnp.ones(20)  # bug
        """, None),
    "an equinox ensemble mapped by jax.vmap": ("""
        import equinox as eqx

        @eqx.filter_vmap
        def make(key):
            return eqx.nn.Linear(4, 2, key=key)

        ensemble = make(jax.random.split(jax.random.PRNGKey(0), 3))
        out = jax.vmap(lambda m, x: m(x), in_axes=(0, None))(ensemble, jnp.ones(4))
        """, (3, 2)),
    "an equinox ensemble mapped by jax.vmap over inputs of other features": ("""
        import equinox as eqx

        @eqx.filter_vmap
        def make(key):
            return eqx.nn.Linear(4, 2, key=key)

        ensemble = make(jax.random.split(jax.random.PRNGKey(0), 3))
        out = jax.vmap(lambda m, x: m(x), in_axes=(0, None))(ensemble, jnp.ones(5))  # bug
        """, None),
    "an equinox model called through filter_jit": ("""
        import equinox as eqx

        class Readout(eqx.Module):
            linear: eqx.nn.Linear

            def __init__(self, key):
                self.linear = eqx.nn.Linear(6, 2, key=key)

            def __call__(self, x):
                return jax.vmap(self.linear)(x)

        model = Readout(jax.random.PRNGKey(0))
        out = eqx.filter_jit(model)(jnp.zeros((3, 6)))
        """, (3, 2)),
    "a layer jitted whole, given the wrong features": ("""
        import equinox as eqx

        layer = eqx.nn.Linear(6, 2, key=jax.random.PRNGKey(0))
        out = jax.jit(layer)(jnp.zeros(24))  # bug
        """, None),
    "a jitted function's __wrapped__ is the function": ("""
        @jax.jit
        def logits(x, wte):
            return x @ wte.T

        raw = logits.__wrapped__
        out = raw(jnp.ones((4, 32)), jnp.ones((50, 32)))
        """, (4, 50)),
    "a wrong call of a jitted function's __wrapped__": ("""
        @jax.jit
        def logits(x, wte):
            return x @ wte.T  # bug

        out = logits.__wrapped__(jnp.ones((4, 32)), jnp.ones((50, 31)))
        """, None),
    "a record rebuilt by an instance's classmethod": ("""
        class Ball(NamedTuple):
            positions: jax.Array

            @classmethod
            def create(cls, positions):
                return cls(positions=positions)

        ball = Ball(jnp.zeros((0,))).create(jnp.zeros((10, 3)))
        out = ball.positions @ jnp.ones((4, 2))  # bug
        """, None),
    "a dict filled key by key": ("""
        params = {}
        params["w1"] = jnp.ones((4, 8))
        params["w2"] = jnp.ones((8, 2))
        out = jnp.ones((3, 4)) @ params["w1"] @ params["w2"]
        """, (3, 2)),
    "a key assigned again replaces its value": ("""
        params = {"w": jnp.ones((4, 8))}
        params["w"] = jnp.ones((4, 5))
        out = jnp.ones((3, 4)) @ params["w"]
        """, (3, 5)),
    "a ** merge, later keys win": ("""
        base = {"w": jnp.ones((4, 8)), "b": jnp.zeros(8)}
        params = {**base, "w": jnp.ones((4, 6)), "b": jnp.zeros(6)}
        out = jnp.ones((3, 4)) @ params["w"] + params["b"]
        """, (3, 6)),
    "a | merge of dicts": ("""
        params = {"w": jnp.ones((4, 8))} | {"b": jnp.zeros(8)}
        out = jnp.ones((3, 4)) @ params["w"] + params["b"]
        """, (3, 8)),
    "a wrong weight read from a merged dict": ("""
        params = {**{"w1": jnp.ones((4, 8))}, "w2": jnp.ones((4, 2))}
        out = jnp.ones((3, 4)) @ params["w1"] @ params["w2"]  # bug
        """, None),
    "layers from a comprehension over zip": ("""
        sizes = [4, 8, 2]
        layers = [jnp.ones((m, n)) for m, n in zip(sizes[:-1], sizes[1:])]
        first, *rest = layers
        out = jnp.ones((3, 4)) @ first @ rest[0]
        """, (3, 2)),
    "a comprehension builds a wrong stack": ("""
        sizes = [4, 8, 2]
        layers = [jnp.ones((m, n)) for m, n in zip(sizes[:-1], sizes[1:])]
        out = jnp.ones((3, 4)) @ layers[1]  # bug
        """, None),
    "a dict comprehension and enumerate": ("""
        params = {f"layer_{i}": jnp.ones((n, n)) for i, n in enumerate([3, 5])}
        out = jnp.ones((2, 5)) @ params["layer_1"]
        """, (2, 5)),
    "a loop over known items fills a dict": ("""
        params = {}
        for name, (m, n) in zip(["a", "b"], [(4, 8), (8, 2)]):
            params[name] = jnp.ones((m, n))
        out = jnp.ones((3, 4)) @ params["a"] @ params["b"]
        """, (3, 2)),
    "a loop appends layers": ("""
        layers = []
        for n in [8, 2]:
            layers.append(jnp.ones((4, n)))
        out = jnp.ones((3, 4)) @ layers[1]
        """, (3, 2)),
    "a NamedTuple, its fields and _replace": ("""
        class State(NamedTuple):
            w: jax.Array
            b: jax.Array
        s = State(jnp.ones((4, 8)), b=jnp.zeros(8))
        s = s._replace(w=jnp.ones((4, 6)), b=jnp.zeros(6))
        w, b = s
        out = jnp.ones((3, 4)) @ w + s[1]
        """, (3, 6)),
    "a NamedTuple field of the wrong width": ("""
        class State(NamedTuple):
            w: jax.Array
            b: jax.Array
        s = State(jnp.ones((4, 8)), jnp.zeros(6))
        out = jnp.ones((3, 4)) @ s.w + s.b  # bug
        """, None),
    "a dataclass with a method and dataclasses.replace": ("""
        @dataclasses.dataclass
        class Linear:
            w: jax.Array
            b: jax.Array
            def __call__(self, x):
                return x @ self.w + self.b
        layer = Linear(jnp.ones((4, 8)), jnp.zeros(8))
        layer = dataclasses.replace(layer, w=jnp.ones((4, 5)), b=jnp.zeros(5))
        out = layer(jnp.ones((3, 4)))
        """, (3, 5)),
    "a dataclass called with the wrong input": ("""
        @dataclasses.dataclass
        class Linear:
            w: jax.Array
            def __call__(self, x):
                return x @ self.w  # bug
        out = Linear(jnp.ones((4, 8)))(jnp.ones((3, 5)))
        """, None),
    "a module whose __init__ sets its weights": ("""
        class MLP:
            def __init__(self, d_in, d_hidden, d_out):
                self.w1 = jnp.ones((d_in, d_hidden))
                self.w2 = jnp.ones((d_hidden, d_out))
            def __call__(self, x):
                return jax.nn.relu(x @ self.w1) @ self.w2
        model = MLP(4, 16, 2)
        out = model(jnp.ones((3, 4)))
        """, (3, 2)),
    "a module's weights in the wrong order": ("""
        class MLP:
            def __init__(self, d_in, d_hidden, d_out):
                self.w1 = jnp.ones((d_in, d_hidden))
                self.w2 = jnp.ones((d_hidden, d_out))
            def __call__(self, x):
                return jax.nn.relu(x @ self.w2) @ self.w1  # bug
        out = MLP(4, 16, 2)(jnp.ones((3, 4)))
        """, None),
    "a method that changes its object": ("""
        class Linear:
            def __init__(self):
                self.w = jnp.ones((4, 8))
            def resize(self, n):
                self.w = jnp.ones((4, n))
        layer = Linear()
        layer.resize(3)
        out = jnp.ones((2, 4)) @ layer.w
        """, (2, 3)),
    "an attribute set in one branch only": ("""
        class Box:
            def __init__(self, flag):
                self.w = jnp.ones((4, 2))
                if flag:
                    self.w = jnp.ones((4, 3))
        out = jnp.ones((2, 4)) @ Box(len(jax.devices()) > 4).w
        """, (2, None)),  # type: ignore[dict-item]
    "a subclass inherits its base's __init__": ("""
        class Base:
            def __init__(self, n):
                self.w = jnp.ones((4, n))
        class Head(Base):
            def __call__(self, x):
                return x @ self.w
        out = Head(6)(jnp.ones((2, 4)))
        """, (2, 6)),
    "keywords from a config dict": ("""
        CONFIG = dict(d_in=12, d_out=3)
        def init(d_in, d_out):
            return {"w": jnp.zeros((d_in, d_out)), "b": jnp.zeros(d_out)}
        params = init(**CONFIG)
        out = jnp.ones((9, 13)) @ params["w"] + params["b"]  # bug
        """, None),
    "keywords from a dict literal, and from a dict with another keyword": ("""
        def init(d_in, d_out, scale=1.0):
            return jnp.zeros((d_in, d_out)) * scale
        w = init(**{"d_in": 4, "d_out": 5})
        out = init(2, **{"d_out": 3}, scale=2.0) @ jnp.ones((3, 4)) @ w
        """, (2, 5)),
    "a string's length": ("""
        text = "a rather long sentence here"
        ids = jnp.zeros(len(text), dtype=jnp.int32)
        out = ids.reshape(4, 7)  # bug
        """, None),
    "texts tokenized character by character": ("""
        def tokenize(text):
            return jnp.array([ord(ch) for ch in text], dtype=jnp.int32)
        batch = [tokenize(t) for t in ["hello", "world"]]
        out = jnp.stack(batch) + jnp.ones(5, jnp.int32)
        """, (2, 5)),
    "texts of other lengths stacked": ("""
        def tokenize(text):
            return jnp.array([ord(ch) for ch in text], dtype=jnp.int32)
        out = jnp.stack([tokenize(t) for t in ["hello world", "a rather long sentence"]])  # bug
        """, None),
    "vmap over a NamedTuple maps its fields, and gives one back": ("""
        class Pair(NamedTuple):
            w: jax.Array
            b: jax.Array
        stacked = Pair(jnp.ones((5, 4, 3)), jnp.ones((5, 3)))
        mapped = jax.vmap(lambda p, x: Pair(x @ p.w, p.b * 2))(stacked, jnp.ones((5, 7, 4)))
        out = mapped.w + mapped.b[:, None, :]
        """, (5, 7, 3)),
    "vmap over a NamedTuple of another size than the other argument": ("""
        class Pair(NamedTuple):
            w: jax.Array
            b: jax.Array
        stacked = Pair(jnp.ones((5, 4, 3)), jnp.ones((5, 3)))
        out = jax.vmap(lambda p, x: x @ p.w)(stacked, jnp.ones((6, 7, 4)))  # bug
        """, None),
    "a float a vmapped function returns in a NamedTuple is mapped too": ("""
        class Pair(NamedTuple):
            w: jax.Array
            scale: float
        p = jax.vmap(lambda w: Pair(w * 2, 3.0))(jnp.ones((5, 4)))
        out = p.w * p.scale  # bug
        """, None),
    "a collective over a dict of gradients keeps each leaf": ("""
        grads = {"w": jnp.ones((6, 4, 3)), "b": [jnp.ones((6, 3))]}
        mean = jax.vmap(lambda g: jax.lax.pmean(g, "batch"), axis_name="batch")(grads)
        out = mean["w"] @ jnp.ones((4,))  # bug
        """, None),
    "all_gather over a tree": ("""
        tree = {"a": jnp.ones((4, 3)), "b": (jnp.ones((4,)),)}
        gathered = jax.vmap(lambda t: jax.lax.all_gather(t, "i"), axis_name="i")(tree)
        out = gathered["a"] + gathered["b"][0][..., None]
        """, (4, 4, 3)),
    "a corpus of repeated and sliced literals": ("""
        PLAIN = "the quick brown fox jumps over the lazy dog "
        CORPUS = PLAIN * 4
        ids = jnp.array([ord(c) for c in CORPUS[:32]])
        out = ids.reshape(4, 8) + jnp.zeros((len(CORPUS) // 44, 1), jnp.int32)
        """, (4, 8)),
    "optax.apply_updates keeps the parameters' tree and shapes": ("""
        params = {"w": jnp.ones((8, 4)), "b": jnp.zeros(4)}
        tx = optax.adam(1e-3)
        updates, state = tx.update(jax.grad(lambda p: jnp.sum(p["w"] + p["b"]))(params), tx.init(params), params)
        params = optax.apply_updates(params, updates)
        out = jnp.ones((3, 8)) @ params["w"] + params["b"]
        """, (3, 4)),
    "optax.apply_updates of updates of another structure": ("""
        params = {"w": jnp.ones((8, 4)), "b": jnp.zeros(4)}
        out = optax.apply_updates(params, {"w": jnp.ones((8, 4))})  # bug
        """, None),
    "optax.apply_updates of an update of another shape": ("""
        params = {"w": jnp.ones((8, 4))}
        out = optax.apply_updates(params, {"w": jnp.ones((4, 8))})  # bug
        """, None),
    "parameters after a long training loop keep their shapes": ("""
        params = {"w": jnp.zeros((4, 2)), "b": jnp.zeros(2)}
        for epoch in range(100):
            grads = jax.grad(lambda p: jnp.sum(jnp.ones((8, 4)) @ p["w"] + p["b"]))(params)
            params = jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)
        out = jnp.ones((3, 5)) @ params["w"]  # bug
        """, None),
    "a while loop that keeps its array": ("""
        w = jnp.zeros(4)
        step = 0
        while step < 3:
            w = w * 0.9
            step += 1
        out = jnp.ones((2, 4)) @ w
        """, (2,)),
    "the first run of a long loop": ("""
        theta = jnp.zeros(3)
        for i in range(50):
            theta = theta + jnp.ones(2)  # bug
        out = theta
        """, None),
    "one row unpacked into one name, or a name and the rest": ("""
        a, = jnp.zeros(1)
        b, *rest = jnp.zeros((1, 3))
        out = b + a
        """, (3,)),
    "keys split into fewer than the names they unpack into": ("""
        k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 3)  # bug
        out = k1
        """, None),
    "keys split and unpacked, one drawn from": ("""
        k1, k2, *rest = jax.random.split(jax.random.PRNGKey(0), 4)
        out = jax.random.normal(k1, (2, 3)) + jax.random.uniform(rest[0], (3,))
        """, (2, 3)),
    "a batch of keys given to a sampler": ("""
        keys = jax.random.split(jax.random.PRNGKey(0), 3)
        out = jax.random.normal(keys, (4, 4))  # bug
        """, None),
    "a Vandermonde matrix": ("""
        design = jnp.vander(jnp.linspace(0.0, 1.0, 50), 4)
        out = design @ jnp.ones(3)  # bug
        """, None),
    "an optimizer state made for other parameters": ("""
        tx = optax.adam(1e-3)
        opt_state = tx.init({"w": jnp.zeros((4,))})
        params = {"w": jnp.zeros((8,))}
        updates, opt_state = tx.update({"w": jnp.ones((8,))}, opt_state, params)  # bug
        out = updates["w"]
        """, None),
    "a chain with momentum over parameters of another tree": ("""
        tx = optax.chain(optax.clip_by_global_norm(1.0), optax.sgd(0.1, momentum=0.9))
        opt_state = tx.init({"w": jnp.zeros((4,)), "b": jnp.zeros(())})
        updates, opt_state = tx.update({"w": jnp.ones((4,))}, opt_state)  # bug
        out = updates["w"]
        """, None),
    "plain sgd keeps no moments, whatever the gradients": ("""
        tx = optax.sgd(0.1)
        opt_state = tx.init({"w": jnp.zeros((4,))})
        updates, opt_state = tx.update({"w": jnp.ones((8,))}, opt_state)
        out = updates["w"]
        """, (8,)),
    "an adam step in a loop keeps its state": ("""
        tx = optax.adamw(1e-3)
        params = {"w": jnp.zeros((4, 2))}
        opt_state = tx.init(params)
        for step in range(30):
            grads = jax.grad(lambda p: jnp.sum(jnp.ones((3, 4)) @ p["w"]))(params)
            updates, opt_state = tx.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
        out = jnp.ones((5, 4)) @ params["w"]
        """, (5, 2)),
    "optax.masked with a mask of another tree than the parameters": ("""
        params = {"w": jnp.ones((3, 2)), "b": {"c": jnp.zeros(2)}}
        tx = optax.masked(optax.adamw(1e-3), {"w": True})
        out = tx.init(params)  # bug
        """, None),
    "optax.multi_transform with labels as a prefix of the parameters": ("""
        params = {"w": jnp.ones((3, 2)), "b": {"c": jnp.zeros(2)}}
        tx = optax.multi_transform({"decay": optax.adamw(1e-3), "plain": optax.sgd(0.1)}, {"w": "decay", "b": "plain"})
        state = tx.init(params)
        updates, state = tx.update(jax.tree.map(jnp.ones_like, params), state, params)
        out = optax.apply_updates(params, updates)["w"]
        """, (3, 2)),
    "gradients accumulated by MultiSteps for other parameters": ("""
        tx = optax.MultiSteps(optax.sgd(0.1), every_k_schedule=2)
        state = tx.init({"w": jnp.zeros(3)})
        updates, state = tx.update({"w": jnp.ones(4)}, state, {"w": jnp.zeros(3)})  # bug
        out = updates["w"]
        """, None),
    "a bias column joined by jnp.c_": ("""
        X = jnp.c_[jnp.ones(50), jnp.zeros((50, 3))]
        out = X @ jnp.zeros(3)  # bug
        """, None),
    "rows joined by jnp.r_": ("""
        out = jnp.r_[1.0, jnp.ones(3), jnp.zeros(2)] * jnp.ones(6)
        """, (6,)),
    "pairs a flag asks for, unpacked": ("""
        grid, dx = jnp.linspace(0.0, 1.0, 11, retstep=True)
        lse, sign = jax.scipy.special.logsumexp(jnp.ones((4, 5)), axis=1, return_sign=True)
        avg, total = jnp.average(jnp.ones((4, 3)), axis=0, weights=jnp.ones(4), returned=True)
        out = grid[:4] * dx + lse * sign + avg[0] * total[0]
        """, (4,)),
    "a complex literal times an array keeps its shape": ("""
        k = jnp.fft.fftfreq(256)
        out = jnp.sum(1j * k * jnp.ones((3, 256)), axis=1)
        """, (3,)),
    "a complex literal times an array, summed along an axis it lacks": ("""
        k = jnp.ones(256)
        out = jnp.sum(1j * k, axis=1)  # bug
        """, None),
    "a grid from mgrid, and open grids from ogrid": ("""
        X, Y = jnp.mgrid[0:64, 0:32]
        yy, xx = jnp.ogrid[0:64, 0:32]
        out = (X + Y) * (xx + yy) + jnp.mgrid[1:10:2][:, None, None]
        """, (5, 64, 32)),
    "a field on a grid of swapped sizes": ("""
        X, Y = jnp.mgrid[0:64, 0:32]
        out = jnp.zeros((32, 64)) + X  # bug
        """, None),
    "a config's property": ("""
        @dataclasses.dataclass(frozen=True)
        class Config:
            d_model: int = 64
            n_heads: int = 6
            @property
            def head_dim(self):
                return self.d_model // self.n_heads
        cfg = Config()
        out = jnp.ones((2, cfg.d_model)).reshape(2, cfg.n_heads, cfg.head_dim)  # bug
        """, None),
    "a property with a setter reads its getter": ("""
        class Box:
            def __init__(self, n):
                self._n = n
            @property
            def n(self):
                return self._n
            @n.setter
            def n(self, value):
                self._n = value
        out = jnp.ones((3, Box(5).n))
        """, (3, 5)),
    "a NamedTuple's property": ("""
        class Shape(NamedTuple):
            rows: int
            cols: int
            @property
            def size(self):
                return self.rows * self.cols
        s = Shape(3, 4)
        out = jnp.ones(s.size).reshape(s.rows, s.cols)
        """, (3, 4)),
    "a field derived in __post_init__": ("""
        @dataclasses.dataclass
        class Config:
            d_model: int = 64
            n_heads: int = 6
            def __post_init__(self):
                self.head_dim = self.d_model // self.n_heads
        cfg = Config()
        out = jnp.ones((2, cfg.d_model)).reshape(2, cfg.n_heads, cfg.head_dim)  # bug
        """, None),
    "dataclasses.replace derives the __post_init__ fields again": ("""
        @dataclasses.dataclass
        class Config:
            d_model: int = 64
            n_heads: int = 8
            def __post_init__(self):
                self.head_dim = self.d_model // self.n_heads
        big = dataclasses.replace(Config(), d_model=96)
        out = jnp.ones((2, big.d_model)).reshape(2, big.n_heads, big.head_dim)
        """, (2, 8, 12)),
    "tree.map over a dict of parameters and their gradients": ("""
        params = {"w": jnp.ones((4, 8)), "b": jnp.zeros(8)}
        grads = jax.grad(lambda p: jnp.sum(jnp.ones((3, 4)) @ p["w"] + p["b"]))(params)
        params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
        out = jnp.ones((3, 4)) @ params["w"] + params["b"]
        """, (3, 8)),
    "tree.map keeps a wrong parameter wrong": ("""
        params = {"w": jnp.ones((4, 8)), "b": jnp.zeros(6)}
        params = jax.tree_util.tree_map(lambda p: p * 2, params)
        out = jnp.ones((3, 4)) @ params["w"] + params["b"]  # bug
        """, None),
    "tree.leaves in JAX's order": ("""
        leaves = jax.tree.leaves({"z": jnp.ones((4, 2)), "a": jnp.ones((3, 4))})
        out = leaves[0] @ leaves[1]
        """, (3, 2)),
    "dict methods": ("""
        params = dict(w=jnp.ones((4, 8)), b=jnp.zeros(8))
        total = [v.ndim for k, v in params.items()]
        out = jnp.ones((3, 4)) @ params.get("w") + params.get("b", 0.0) * total[0]
        """, (3, 8)),
}

# What the checker cannot follow stays unknown, and nothing is reported from it.
UNKNOWN = {
    "loops whose bodies never run": """
        x = jnp.zeros(3)
        while False:
            x = x + jnp.ones(2)
        for i in []:
            x = x + jnp.ones(2)
            break
        out = x
        """,
    "an array a long loop grows": """
        x = jnp.zeros(1)
        for i in range(20):
            x = jnp.concatenate([x, jnp.ones(1)])
        out = x @ jnp.ones(21)
        """,
    "a computed key": """
        params = {"w": jnp.ones((4, 8))}
        params[str(len(jax.devices()))] = jnp.ones((5, 5))
        out = jnp.ones((3, 4)) @ params["w"]
        """,
    "a class built by a base the checker cannot read": """
        import collections
        class Thing(collections.UserDict):
            pass
        t = Thing()
        out = t.anything @ jnp.ones((3, 4))
        """,
    "an object passed to a function that changes it": """
        class Holder:
            def __init__(self):
                self.w = jnp.ones((4, 8))
        def grow(h):
            h.w = jnp.ones((5, 8))
        h = Holder()
        grow(h)
        out = h.w
        """,
    "a loop that breaks": """
        params = {"w": jnp.ones((4, 8))}
        for n in [2, 3]:
            params["w"] = jnp.ones((4, n))
            if n == 2:
                break
        out = jnp.ones((3, 4)) @ params["w"]
        """,
}


def _program(body: str) -> str:
    return HEADER + textwrap.dedent(body)


def _out_line(text: str) -> ast.expr:
    tree = ast.parse(text)
    assign = [s for s in tree.body if isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) == "out"][-1]
    return assign.value


def _bug_lines(text: str) -> list[int]:
    return [number for number, line in enumerate(text.splitlines(), 1) if line.rstrip().endswith("# bug")]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_checker(name: str) -> None:
    body, shape = PROGRAMS[name]
    text = _program(body)
    result = analyze_source("model.py", text, keep_types=True)
    reported = sorted({d.span.line for d in result.diagnostics})
    assert reported == _bug_lines(text), [d.message for d in result.diagnostics]
    if shape is not None:
        value = _out_line(text)
        types = [t.type for t in result.types if (t.span.line, t.span.column) == (value.lineno, value.col_offset)
                 and t.span.end_column == value.end_col_offset]
        assert types, "no type inferred for `out`"
        assert types[0].dims == shape


@pytest.mark.parametrize("name", list(UNKNOWN))
def test_what_is_not_followed_is_never_reported(name: str) -> None:
    assert analyze_source("model.py", _program(UNKNOWN[name])).diagnostics == ()


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_jax_agrees(name: str) -> None:
    """JAX, the oracle: each clean program runs with the shape the checker inferred, each wrong
    one raises a shape error on its marked line."""
    body, shape = PROGRAMS[name]
    text = _program(body)
    namespace: dict[str, object] = {"__name__": "model"}
    # Not this file's `from __future__ import annotations`: the program runs as written (string
    # annotations would send `dataclass` looking for a module "model" that is not imported).
    code = compile(text, "model.py", "exec", dont_inherit=True)
    if shape is None:
        with pytest.raises((TypeError, ValueError)) as raised:
            exec(code, namespace)
        lines = [frame.lineno for frame in _frames(raised.value) if frame.filename == "model.py"]
        assert lines and lines[-1] == _bug_lines(text)[0]
        return
    exec(code, namespace)
    out = namespace["out"]
    real = tuple(out.shape)  # type: ignore[attr-defined]
    assert all(want is None or want == got for want, got in zip(shape, real, strict=True)), real


def _frames(error: BaseException) -> list:  # type: ignore[type-arg]
    import traceback

    return list(traceback.extract_tb(error.__traceback__))


@pytest.mark.parametrize("decorator", ["@jaxtyped(typechecker=beartype)", "@beartype", "@jaxtyped",
                                       "@typechecked"])
def test_a_run_time_type_checker_keeps_the_function_checked(decorator: str) -> None:
    text = textwrap.dedent(f"""\
        import jax.numpy as jnp
        from beartype import beartype
        from jaxtyping import Array, Float, jaxtyped
        from typeguard import typechecked

        {decorator}
        def dense(x: Float[Array, "batch 128"], w: Float[Array, "128 10"]) -> Float[Array, "batch 10"]:
            return x @ w

        y = dense(jnp.ones((4, 128)), jnp.ones((64, 10)))
        z = dense(jnp.ones((4, 128)), jnp.ones((128, 10))) + jnp.ones((4, 10))
        """)
    result = analyze_source("model.py", text)
    assert [(d.span.line, d.code) for d in result.diagnostics] == [(10, "SC103")]


def test_keys_formatted_in_a_loop_fill_a_dict() -> None:
    text = _program("""
        params = {}
        for i, n in enumerate([8, 2]):
            params[f"layer_{i}"] = jnp.ones((4, n))
        out = jnp.ones((3, 4)) @ params["layer_1"] + jnp.ones((3, 8))  # bug
        """)
    result = analyze_source("model.py", text)
    assert [d.span.line for d in result.diagnostics] == _bug_lines(text)


# A model's parameters through jax.tree.map (an SGD step, noise) are still what `init` made:
# `apply` on inputs of another shape is refused (the library raises inside the model, so the
# traceback's last line is the model's, not the call's: outside PROGRAMS).
MAPPED_PARAMETERS = {
    "flax variables after an SGD step": """
        import flax.linen as nn

        model = nn.Dense(3)
        variables = model.init(jax.random.PRNGKey(0), jnp.zeros((1, 10)))
        grads = jax.grad(lambda v: model.apply(v, jnp.zeros((1, 10))).sum())(variables)
        variables = jax.tree.map(lambda p, g: p - 0.1 * g, variables, grads)
        out = model.apply(variables, jnp.zeros((1, 15)))
        """,
    "haiku parameters after a tree_map": """
        import haiku as hk

        net = hk.without_apply_rng(hk.transform(lambda x: hk.Linear(1)(x)))
        params = net.init(jax.random.PRNGKey(0), jnp.zeros(10))
        params = jax.tree_util.tree_map(lambda p: p - 0.1, params)
        out = net.apply(params, jnp.zeros(15))
        """,
}


@pytest.mark.parametrize("name", list(MAPPED_PARAMETERS))
def test_mapped_parameters_are_checked_at_apply(name: str) -> None:
    text = _program(MAPPED_PARAMETERS[name])
    last = len(text.rstrip().splitlines())
    assert [(d.span.line, d.code) for d in analyze_source("model.py", text).diagnostics] == [(last, "SC103")]
    from flax.errors import ScopeParamShapeError

    with pytest.raises((ValueError, ScopeParamShapeError), match="shape"):
        exec(compile(text, "model.py", "exec", dont_inherit=True), {"__name__": "model"})
