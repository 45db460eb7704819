"""SC201 resource-cooccurrence: two named axes mapped to one mesh axis appear in one value."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental.maps import xmap
    from jax.sharding import Mesh


    def outer(x, y):
        return x * y


    q = jnp.ones((4,))
    u = jnp.ones((12,))
    with Mesh(np.array(jax.devices()[:4]), ('x',)):
        v = xmap(
            outer,
            in_axes=(['a', ...], ['b', ...]),
            out_axes=['a', 'b', ...],
            axis_resources={'a': 'x', 'b': 'x'},
        )(q, u)
""")

FIXED = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental.maps import xmap
    from jax.sharding import Mesh


    def sum_two_args(x, y):
        return jnp.sum(x, axis='a') + jnp.sum(y, axis='b')


    q = jnp.ones((4,))
    u = jnp.ones((12,))
    with Mesh(np.array(jax.devices()[:4]), ('x',)):
        v = xmap(
            sum_two_args,
            in_axes=(['a', ...], ['b', ...]),
            out_axes=[...],
            axis_resources={'a': 'x', 'b': 'x'},
        )(q, u)
""")

DISTRIBUTED_MATMUL = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental.maps import xmap
    from jax.sharding import Mesh


    def row_times_column(row, column):
        return jnp.dot(row, column)


    x = jnp.ones((8, 8))
    with Mesh(np.array(jax.devices()[:4]).reshape((2, 2)), ('x', 'y')):
        z = xmap(
            row_times_column,
            in_axes=({0: 'left'}, {1: 'right'}),
            out_axes=['left', 'right', ...],
            axis_resources={'left': 'x', 'right': 'x'},
        )(x, x)
""")

# shard_map: one mesh axis splits at most one dim of a value.
SHARD_MAP = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
    x = jnp.ones((16, 16))
    fixed = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P("data", "model"), out_specs=P("data", "model"))(x)
    wrong = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P("model", "model"), out_specs=P("model", "model"))(x)
""")

# Shardings: NamedSharding refuses a spec that uses one mesh axis twice.
SHARDING = dedent("""\
    import jax
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("data", "model"))
    fixed = NamedSharding(mesh, P("data", "model"))
    wrong = NamedSharding(mesh, P("model", "model"))
""")

RULE = Rule(
    code=Code.RESOURCE_COOCCURRENCE,
    name="resource-cooccurrence",
    summary=(
        "Checks that two named axes that `axis_resources` maps to the same mesh axis never both "
        "appear in the named shape of one value inside the xmapped body; the diagnostic points "
        "at the expression that first builds such a value, with notes at both mappings. In a "
        "`PartitionSpec` (`shard_map`), the same rule: one mesh axis splits at most one dim."
    ),
    why=(
        "Each mesh axis splits a value once. With `axis_resources={'a': 'x', 'b': 'x'}` and a "
        "mesh axis `x` of 2 devices, an f32[(2, 8), {'a': 4, 'b': 12}] value would have to be "
        "split along 'a' and along 'b' at the same time: 4 chunks (2 along 'a', 2 along 'b') for "
        "2 devices, so it has no layout at all. The removed xmap documented the rule but never "
        "enforced it, leaving the program's behaviour undefined. Reduce one of the axes before "
        "the two meet (as `sum_two_args` does), or map them to different mesh axes."
    ),
    wrong=Example(source=WRONG, expected=((9, "SC201"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=DISTRIBUTED_MATMUL, expected=((9, "SC201"),)),
        Example(source=SHARD_MAP, expected=((9, "SC201"),)),
        Example(source=SHARDING, expected=((6, "SC201"),)),
    ),
)
