"""SC202 unbound-axis-name: a collective or named reduction over an axis no map binds."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax import lax


    def normalize(x):
        return x - lax.pmean(x, 'btach')


    xs = jnp.ones((32, 128))
    ys = jax.vmap(normalize, axis_name='batch')(xs)
""")

FIXED = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax import lax


    def normalize(x):
        return x - lax.pmean(x, 'batch')


    xs = jnp.ones((32, 128))
    ys = jax.vmap(normalize, axis_name='batch')(xs)
""")

TOP_LEVEL = dedent("""\
    import jax.numpy as jnp
    from jax import lax

    x = jnp.arange(8.0)
    total = lax.psum(x, 'i')
""")

XMAP_BODY = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def pool(x):
        return jnp.max(x, axis='tokens')


    x = jnp.ones((16, 64))
    y = xmap(pool, in_axes=['batch', ...], out_axes=['batch', ...])(x)
""")

# shard_map binds its mesh's axis names, and only those, for the collectives inside.
SHARD_MAP = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))


    def total(x):
        return jax.lax.psum(x.sum(), "batch")


    def fixed_total(x):
        return jax.lax.psum(x.sum(), "data")


    fixed = jax.shard_map(fixed_total, mesh=mesh, in_specs=P("data"), out_specs=P())(jnp.ones(8))
    wrong = jax.shard_map(total, mesh=mesh, in_specs=P("data"), out_specs=P())(jnp.ones(8))
""")

# jit and shardings bind no axis name, whatever mesh is around.
SHARDING = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = jax.make_mesh((8,), ("data",))


    @jax.jit
    def mean(x):
        return jax.lax.psum(x.sum(), "data") / x.size


    def fixed_mean(x):
        return jax.lax.psum(x.sum(), "data") / x.size


    x = jax.device_put(jnp.ones((16, 4)), NamedSharding(mesh, P("data")))
    wrong = mean(x)
    fixed = jax.vmap(fixed_mean, axis_name="data")(x)
""")

# pmap: a training step that averages over 'batch' under a pmap without axis_name (JAX:
# NameError, unbound axis name: batch); nested vmaps bind both their names.
PMAP = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax import lax


    def step(w, g):
        return w - 0.1 * lax.pmean(g, 'batch')


    def block(x):
        return x / lax.psum(x, ('rows', 'cols'))


    w, g = jnp.ones((4, 3)), jnp.ones((4, 3))
    fixed = jax.pmap(step, axis_name='batch')(w, g)
    wrong = jax.pmap(step)(w, g)
    grid = jax.vmap(jax.vmap(block, axis_name='cols'), axis_name='rows')(jnp.ones((4, 6)))
""")

# A driver: nothing in the module maps `main`, so the jit built and called there binds no name,
# although another function's vmap binds 'batch'.
DRIVER = dedent("""\
    import jax
    import jax.numpy as jnp


    def loss(x):
        return jax.lax.pmean(x, 'batch')


    def main():
        return jax.jit(loss)(jnp.ones(8))


    def per_example(xs):
        return jax.vmap(loss, axis_name='batch')(xs)
""")

RULE = Rule(
    code=Code.UNBOUND_AXIS_NAME,
    name="unbound-axis-name",
    summary=(
        "Checks that the axis name of a collective (`psum`, `pmean`, `pmax`, `pmin`, `pdot`, "
        "`all_gather`, `axis_index`, `ppermute`, ...) or of a named reduction (`jnp.sum(x, "
        "axis='batch')`) is bound by an enclosing `xmap`, or `vmap` or `pmap` with that "
        "`axis_name`, where the code runs. Only what is certain is reported: code run from the "
        "module's top level (also through `jax.jit`, which binds no name) and the bodies of "
        "those maps. A function checked on its own may run under any map, and inside a map "
        "whose surroundings are unknown a name that some map, mesh or axis-name constant of the "
        "module mentions may be bound further out, unless the call graph in view settles it: in "
        "a module-level function that nothing in the module passes anywhere (only calls, from "
        "the top level or from such functions), a map or `jax.jit` built and called there binds "
        "only its own names, and a note points at it. A `shard_map` binds its mesh's axis names "
        "(only those in `axis_names` when it lists some). After SC202 what the collective's "
        "value varies over is unknown: no SC207 follows from it."
    ),
    why=(
        "`lax.pmean(x, 'btach')` under `vmap(..., axis_name='batch')` raises `unbound axis name: "
        "btach` only when the function is traced, and with nested maps a misspelled name can "
        "instead pick the wrong enclosing axis. A collective outside any map has no axis to "
        "reduce over at all."
    ),
    wrong=Example(source=WRONG, expected=((7, "SC202"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=TOP_LEVEL, expected=((5, "SC202"),)),
        Example(source=XMAP_BODY, expected=((6, "SC202"),)),
        Example(source=SHARD_MAP, expected=((10, "SC202"),)),
        Example(source=SHARDING, expected=((10, "SC202"),)),
        Example(source=PMAP, expected=((7, "SC202"),)),
        Example(source=DRIVER, expected=((6, "SC202"),)),
    ),
)
