"""SC208 sharding-type-mismatch: operands or arguments whose explicit shardings JAX rejects."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((2, 4), ('X', 'Y'))
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        w = jax.device_put(jnp.ones((16, 4)), P('Y', None))
        y = x @ w
""")

FIXED = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((2, 4), ('X', 'Y'))
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        w = jax.device_put(jnp.ones((16, 4)), P('Y', None))
        y = jnp.dot(x, w, out_sharding=P('X', None))
""")

# Elementwise operands split over different axes in one dim; an unsplit dim takes the other's
# split; Auto meshes (Mesh(devices, names)) carry no sharding in types and are never compared.
BROADCAST = Example(source=dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    explicit = jax.make_mesh((2, 4), ('X', 'Y'))
    with jax.set_mesh(explicit):
        a = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        b = jax.device_put(jnp.ones((8, 16)), P('Y', 'X'))
        fine = a + jax.device_put(jnp.ones((8, 16)), P('X', None)) + jnp.ones(16) + 1.0
        wrong = a + b
    auto = Mesh(np.array(jax.devices()).reshape(2, 4), ('X', 'Y'))
    with jax.set_mesh(auto):
        c = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        d = jax.device_put(jnp.ones((8, 16)), P('Y', 'X'))
        untyped = c + d
"""), expected=((11, "SC208"),))

# A reshape that regroups split dims, a cumsum along a split dim, an index into one, and a
# shard_map whose in_specs differ from its argument's sharding.
LAYOUT = Example(source=dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((2, 4), ('X', 'Y'))
    with jax.set_mesh(mesh):
        a = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        merged = a.reshape(128)
        regrouped = a.reshape(16, 8)
        given = jnp.reshape(a, (16, 8), out_sharding=P('X', None))
        scanned = jnp.cumsum(a, axis=1)
        row = a[0]
        doubled = jax.shard_map(lambda x: x * 2, in_specs=P('X', None), out_specs=P('X', None))(a)
        same = jax.shard_map(lambda x: x * 2, in_specs=P('X', 'Y'), out_specs=P('X', 'Y'))(a)
"""), expected=((9, "SC208"), (11, "SC208"), (12, "SC208"), (13, "SC208")))

RULE = Rule(
    code=Code.SHARDING_TYPE_MISMATCH,
    name="sharding-type-mismatch",
    summary=(
        "Checks the shardings in types that JAX infers and checks under Explicit mesh axes "
        "(`jax.make_mesh` makes them by default): operands of elementwise ops, `where` and "
        "`concatenate` split differently, contractions whose contracted or batch dims are split "
        "over different axes (or both split, without `out_sharding=`), results that would split "
        "two dims over one mesh axis, reshapes that regroup split dims, `cumsum`/`sort` along a "
        "split dim, integer indexing into a split dim, and `shard_map` arguments whose sharding "
        "differs from their in_specs. Values on Auto axes carry no sharding in their types and "
        "are never reported; unknown shardings never are."
    ),
    why=(
        "JAX refuses these programs while it traces them, with a `ShardingTypeError` (or a "
        "ValueError for shard_map's in_specs): the program never runs. The message names both "
        "shardings as `jax.typeof` prints them (`float32[8@X,16@Y]`) and the fix: "
        "`out_sharding=P(...)` on the operation, or `jax.sharding.reshard(x, P(...))` first."
    ),
    wrong=Example(source=WRONG, expected=((9, "SC208"),)),
    fixed=Example(source=FIXED),
    more=(BROADCAST, LAYOUT),
)
