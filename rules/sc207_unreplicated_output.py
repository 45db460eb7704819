"""SC207 unreplicated-output: a shard_map out_spec omits a mesh axis its value still varies over."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    from functools import partial

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(8), ('data',))


    @partial(jax.shard_map, mesh=mesh, in_specs=(P(), P('data')), out_specs=P())
    def gradient(w, x):
        return x.T @ (x @ w)


    g = gradient(jnp.ones((16, 4)), jnp.ones((64, 16)))
""")

FIXED = dedent("""\
    from functools import partial

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(8), ('data',))


    @partial(jax.shard_map, mesh=mesh, in_specs=(P(), P('data')), out_specs=P())
    def gradient(w, x):
        return jax.lax.psum(x.T @ (x @ w), 'data')


    g = gradient(jnp.ones((16, 4)), jnp.ones((64, 16)))
""")

# Each device's result may differ along 'x' (it depends on a block split over 'x', and
# axis_index differs per device); out_specs naming the axis assembles the blocks instead.
ASSEMBLED = Example(source=dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('x', 'y'))


    def shift(a):
        return a + jax.lax.axis_index('y')


    ok = jax.shard_map(shift, mesh=mesh, in_specs=P('x'), out_specs=P('x', 'y'))(jnp.ones((8, 8)))
    wrong = jax.shard_map(shift, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones((8, 8)))
    maxed = jax.shard_map(lambda a: jax.lax.pmax(a, ('x', 'y')) + 1, mesh=mesh, in_specs=P('x'), out_specs=P())(jnp.ones((8, 8)))
    unchecked = jax.shard_map(shift, mesh=mesh, in_specs=P('x'), out_specs=P(), check_vma=False)(jnp.ones((8, 8)))
"""), expected=((14, "SC207"),))

# JAX 0.10.2 types an all_gather's result as varying over the gathered axis, even gathered from
# an invariant value: out_specs must name the axis (it then assembles the gathered copies).
GATHERED = Example(source=dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('x', 'y'))
    x = jnp.ones((4,))

    summed = jax.shard_map(lambda a: jax.lax.psum(a, 'x'), mesh=mesh, in_specs=P(), out_specs=P())(x)
    gathered = jax.shard_map(lambda a: jax.lax.all_gather(a, 'x'), mesh=mesh, in_specs=P(), out_specs=P())(x)
    placed = jax.shard_map(lambda a: jax.lax.all_gather(a, 'x'), mesh=mesh, in_specs=P(), out_specs=P(None, 'x'))(x)
"""), expected=((10, "SC207"),))

RULE = Rule(
    code=Code.UNREPLICATED_OUTPUT,
    name="unreplicated-output",
    summary=(
        "Checks that a `shard_map` out_spec names every mesh axis its result varies over "
        "(with `check_vma=True`, the default). A value varies over the mesh axes its "
        "arguments' in_specs split them over and over `lax.axis_index`'s axis; "
        "`lax.psum`, `pmean`, `pmax` and `pmin` over an axis make it the same on every device "
        "along it; `lax.all_gather`'s result varies over the gathered axis even when its argument "
        "did not (JAX 0.10 types it so, though every device holds the same data); other operations "
        "keep what their inputs vary over."
    ),
    why=(
        "An out_spec that leaves out a mesh axis says the result is the same on every device "
        "along it, so JAX keeps one device's copy. A result computed from a block of the "
        "batch (a gradient before its `psum`) is not: JAX 0.10 refuses it at trace time "
        "(\"out_specs ... implies that the corresponding output value is only varying across "
        "mesh axes {} and not {data}\"), and with the check off it silently returns one "
        "device's partial result. Reduce over the axis, or name it in out_specs to assemble "
        "the blocks."
    ),
    wrong=Example(source=WRONG, expected=((11, "SC207"),)),
    fixed=Example(source=FIXED),
    more=(ASSEMBLED, GATHERED),
)
