"""SC205 mesh-indivisible: a named axis whose size its mesh axes cannot split evenly."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def center(x):
        return x - jnp.mean(x, axis='batch')


    x = jnp.ones((10, 64))
    mesh = jax.make_mesh((4, 2), ('x', 'y'))
    with mesh:
        y = xmap(
            center,
            in_axes=['batch', ...],
            out_axes=['batch', ...],
            axis_resources={'batch': 'x'},
        )(x)
""")

FIXED = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def center(x):
        return x - jnp.mean(x, axis='batch')


    x = jnp.ones((12, 64))
    mesh = jax.make_mesh((4, 2), ('x', 'y'))
    with mesh:
        y = xmap(
            center,
            in_axes=['batch', ...],
            out_axes=['batch', ...],
            axis_resources={'batch': 'x'},
        )(x)
""")

TWO_MESH_AXES = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental.maps import xmap
    from jax.sharding import Mesh


    def scale(w):
        return 0.5 * w


    w = jnp.ones((6, 512))
    with Mesh(np.array(jax.devices()[:8]).reshape((4, 2)), ('x', 'y')):
        v = xmap(
            scale,
            in_axes=['out', ...],
            out_axes=['out', ...],
            axis_resources={'out': ('x', 'y')},
        )(w)
""")

# shard_map: a dim split over ('data', 'model') needs 2 x 4 = 8 even blocks.
SHARD_MAP = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
    fixed = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P(("data", "model")), out_specs=P(("data", "model")))(jnp.ones((16, 4)))
    wrong = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P(("data", "model")), out_specs=P(("data", "model")))(jnp.ones((12, 4)))
""")

# Shardings: device_put and jit's in_shardings split each dim over its mesh axes' devices.
SHARDING = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("data", "model"))
    batch = NamedSharding(mesh, P("data"))
    step = jax.jit(lambda x: 2 * x, in_shardings=batch, out_shardings=batch)
    fixed = step(jax.device_put(jnp.ones((32, 16)), batch))
    wrong = step(jax.device_put(jnp.ones((30, 16)), batch))
""")

RULE = Rule(
    code=Code.MESH_INDIVISIBLE,
    name="mesh-indivisible",
    summary=(
        "Checks, under a statically known mesh (`with Mesh(devices, names)` with a known device "
        "array shape, or `jax.make_mesh`), that each named axis size is divisible by the product "
        "of the sizes of the mesh axes `axis_resources` maps it to; and each dim a `shard_map` "
        "in_spec splits, by the product of the sizes of its mesh axes."
    ),
    why=(
        "A 10-long batch axis cannot be split evenly over the 4 devices of mesh axis 'x': the "
        "removed xmap refused it when the program ran, after the mesh and data were set up. The "
        "check needs the mesh's sizes, so it is silent when they are not known statically "
        "(for example `np.array(jax.devices())` without a reshape). With several mesh axes the "
        "product counts: an axis of 6 mapped to ('x', 'y') of a (4, 2) mesh needs 8 even parts."
    ),
    wrong=Example(source=WRONG, expected=((17, "SC205"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=TWO_MESH_AXES, expected=((18, "SC205"),)),
        Example(source=SHARD_MAP, expected=((8, "SC205"),)),
        Example(source=SHARDING, expected=((9, "SC205"),)),
    ),
)
