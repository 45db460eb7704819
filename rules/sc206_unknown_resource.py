"""SC206 unknown-resource: an xmap's axis_resources names a mesh axis the known mesh lacks."""

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


    x = jnp.ones((128, 64))
    mesh = jax.make_mesh((4, 2), ('x', 'y'))
    with mesh:
        y = xmap(
            center,
            in_axes=['batch', ...],
            out_axes=['batch', ...],
            axis_resources={'batch': 'data'},
        )(x)
""")

FIXED = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def center(x):
        return x - jnp.mean(x, axis='batch')


    x = jnp.ones((128, 64))
    mesh = jax.make_mesh((4, 2), ('x', 'y'))
    with mesh:
        y = xmap(
            center,
            in_axes=['batch', ...],
            out_axes=['batch', ...],
            axis_resources={'batch': 'x'},
        )(x)
""")

# shard_map: a PartitionSpec names the mesh's own axes.
SHARD_MAP = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
    x = jnp.ones((8, 16))
    fixed = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P("data"), out_specs=P("data"))(x)
    wrong = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P("batch"), out_specs=P("batch"))(x)
""")

# Shardings: a NamedSharding's spec, and a bare spec under jax.set_mesh, name the mesh's axes.
SHARDING = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("data", "model"))
    fixed = NamedSharding(mesh, P("data", "model"))
    wrong = NamedSharding(mesh, P("batch", "model"))
    with jax.set_mesh(mesh):
        y = jax.jit(jnp.tanh, in_shardings=P("batch"))(jnp.ones((8, 16)))
""")

# shard_map with axis_names: the specs name only its manual axes; the others are the
# compiler's (JAX: ValueError, "must refer to an axis marked as manual").
PARTIAL_MANUAL = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("data", "model"))
    x = jnp.ones((8, 16))
    fixed = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P("data"), out_specs=P("data"), axis_names={"data"})(x)
    wrong = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P("data", "model"), out_specs=P("data", "model"),
                          axis_names={"data"})(x)
""")

# No mesh at all: a bare spec where no `jax.set_mesh` is in effect has nothing to be read
# against (JAX: "Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to
# device_put", "Using PartitionSpec when you are not under a mesh context is not allowed").
NO_MESH = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("data", "model"))
    x = jnp.ones((8, 16))
    fixed = jax.device_put(x, NamedSharding(mesh, P("data")))
    with jax.set_mesh(mesh):
        also_fixed = jax.device_put(x, P("data"))
    wrong = jax.device_put(x, P("data"))
    zeros = jnp.zeros((8, 16), out_sharding=P("data"))
""")

RULE = Rule(
    code=Code.UNKNOWN_RESOURCE,
    name="unknown-resource",
    summary=(
        "Checks, under a statically known mesh (`with Mesh(devices, names):`, `with "
        "jax.make_mesh(shape, names):` or `with jax.set_mesh(mesh):` around the call), that "
        "every mesh axis named in an "
        "`xmap`'s `axis_resources` is one of the mesh's axis names; and likewise each mesh axis "
        "a `PartitionSpec` of a `shard_map`'s in_specs or out_specs names, against its mesh, "
        "and of a `NamedSharding` or a bare spec under `jax.set_mesh` (`device_put`, "
        "`with_sharding_constraint`, jit's `in_shardings`/`out_shardings`). A `shard_map` with "
        "`axis_names` may name only those (its manual axes) in its specs. Where no mesh is set at "
        "all (module-level code outside `jax.set_mesh`, and what it calls), a bare spec is refused "
        "whatever it names: `device_put`, `reshard`, `with_sharding_constraint`, jit's shardings "
        "and any `out_sharding=`. A module that calls something that may set a mesh the checker "
        "cannot follow (`setup_mesh()`) is not reported so."
    ),
    why=(
        "`axis_resources={'batch': 'data'}` under a mesh with axes ('x', 'y') refers to a "
        "resource that does not exist; the removed xmap failed with a lookup error at run time, "
        "usually in a script written for another mesh layout. The checker knows the mesh "
        "from the enclosing `with` and names the axes it does have."
    ),
    wrong=Example(source=WRONG, expected=((17, "SC206"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=SHARD_MAP, expected=((9, "SC206"),)),
        Example(source=SHARDING, expected=((7, "SC206"), (9, "SC206"))),
        Example(source=PARTIAL_MANUAL, expected=((8, "SC206"),)),
        Example(source=NO_MESH, expected=((10, "SC206"), (11, "SC206"))),
    ),
)
