"""SC106 axis-out-of-range: a positional axis index beyond the value's rank."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp

    logits = jnp.zeros((128, 10))
    totals = jnp.sum(logits, axis=2)
""")

FIXED = dedent("""\
    import jax.numpy as jnp

    logits = jnp.zeros((128, 10))
    totals = jnp.sum(logits, axis=1)
""")

OUT_AXES_POSITION = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def total(x):
        return jnp.sum(x)


    x = jnp.ones((20, 5))
    y = xmap(total, in_axes={0: 'batch'}, out_axes={1: 'batch'})(x)
""")

SWAPAXES = dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((4, 8))
    y = jnp.swapaxes(x, 0, 2)
""")

# shard_map: a PartitionSpec has at most one entry per dim of the value it splits.
SHARD_MAP = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
    x = jnp.ones((8, 16))
    fixed = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P("data", "model"), out_specs=P("data", "model"))(x)
    wrong = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P("data", None, "model"), out_specs=P("data"))(x)
""")

# Shardings: a PartitionSpec has at most one entry per dim of the value it places.
SHARDING = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("data", "model"))
    x = jnp.ones((8, 16))
    fixed = jax.device_put(x, NamedSharding(mesh, P("data", "model")))
    wrong = jax.device_put(x, NamedSharding(mesh, P("data", None, "model")))
""")

# vmap/pmap: examples stacked on axis 0 but mapped over axis 2 of a rank-2 batch (JAX: its
# rank should be at least 3, but is only 2); a learning rate in a mapped position has no axis.
VMAP = dedent("""\
    import jax
    import jax.numpy as jnp


    def sgd(w, g, lr):
        return w - lr * g


    ws, gs = jnp.ones((4, 3)), jnp.ones((4, 3))
    fixed = jax.vmap(sgd, in_axes=(0, 0, None))(ws, gs, 0.1)
    wrong = jax.vmap(sgd, in_axes=(0, 2, None))(ws, gs, 0.1)
    scalar = jax.pmap(sgd)(ws, gs, 0.1)
    placed = jax.vmap(sgd, in_axes=(0, 0, None), out_axes=2)(ws, gs, 0.1)
""")

# flax's attention reads its input as (..., length, features): a single position's features,
# (64,), have no length axis (flax: IndexError, tuple index out of range).
ATTENTION = dedent("""\
    import flax.linen as nn
    import jax
    import jax.numpy as jnp


    class Block(nn.Module):
        @nn.compact
        def __call__(self, tokens):
            return nn.MultiHeadDotProductAttention(num_heads=4)(tokens)


    block, tokens = Block(), jnp.zeros((10, 64))
    fixed = block.apply(block.init(jax.random.key(0), tokens), tokens)
    wrong = block.apply(block.init(jax.random.key(0), tokens), tokens[0])
""")

RULE = Rule(
    code=Code.AXIS_OUT_OF_RANGE,
    name="axis-out-of-range",
    summary=(
        "Checks positional axis indices against the value's rank: `axis=` of reductions and "
        "cumulative sums, `repeat`, `diff`, the two matrix dims `jnp.linalg` reads, the axes of "
        "`jnp.fft`'s transforms (each named once), "
        "`transpose`, `swapaxes`, `expand_dims`, `squeeze`, `concatenate` and `stack`, and the "
        "positions where xmap's `in_axes` take dims and `out_axes` insert them; a `shard_map` "
        "PartitionSpec longer than the rank of the argument or result it splits; a `vmap` or "
        "`pmap` in_axes beyond `-rank..rank-1` of its argument, a scalar (Python or 0-d) in a "
        "mapped position, and an out_axes beyond `-(r+1)..r` of a result of rank r; the axes of "
        "collectives: `all_gather`'s `axis`, `psum_scatter`'s `scatter_dimension`, `all_to_all`'s "
        "`split_axis` and `concat_axis`; the length axis flax's `MultiHeadDotProductAttention` "
        "and `SelfAttention` attend over, before the features; `jax.lax`'s dims, which it counts "
        "from 0 only (`lax.transpose`'s permutation, `lax.rev`, `lax.reduce_sum` and its kin, "
        "`lax.concatenate`'s dimension, `lax.cumsum`'s axis), and `lax.broadcast_in_dim`'s "
        "broadcast_dimensions (one distinct result dim per operand dim); the ranks NumPy's "
        "helpers need: `diagonal`, `trace`, `matrix_transpose`, `rot90` and the matrix functions "
        "rank 2 at least (each axis pair distinct), `meshgrid`'s inputs, the sorted sequences of "
        "`searchsorted`, `digitize` and `interp`, `bincount`'s counts, `linalg.outer` 1-d, "
        "`cov` at most 2-d, a quantile's `q` at most 1-d, `jax.image.resize`'s shape of the "
        "image's rank, `cumulative_sum`'s explicit axis above rank 1, and the ranks jax.nn's "
        "initializers fill (the variance-scaling family and `orthogonal` 2 at least, "
        "`delta_orthogonal` 3 to 5: a flax `bias_init=lecun_normal()` is refused at `init`). Out of reach, so never reported (benchmarks/oracle.py "
        "keeps them out): `pmap` over more devices than the program runs on (the count is not in "
        "its text); a negative `pmap` in_axes or out_axes other than `-rank`, and a negative "
        "`all_to_all` concat_axis, which JAX 0.10.2 reads apart from their positive twins (it "
        "refuses some that name a valid axis)."
    ),
    why=(
        "`jnp.sum(logits, axis=2)` on a (128, 10) array names an axis that does not exist; "
        "the usual cause is code written for a batched (N, T, C) array and then reused on an "
        "unbatched one. For xmap, `out_axes={1: 'batch'}` on a scalar result has no second "
        "position to put the 20-long batch axis at."
    ),
    wrong=Example(source=WRONG, expected=((4, "SC106"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=OUT_AXES_POSITION, expected=((10, "SC106"),)),
        Example(source=SWAPAXES, expected=((4, "SC106"),)),
        Example(source=SHARD_MAP, expected=((9, "SC106"),)),
        Example(source=SHARDING, expected=((8, "SC106"),)),
        Example(source=VMAP, expected=((11, "SC106"), (12, "SC106"), (13, "SC106"))),
        Example(source=ATTENTION, expected=((9, "SC106"),)),
    ),
)
