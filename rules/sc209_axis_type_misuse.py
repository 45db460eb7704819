"""SC209 axis-type-misuse: an API given mesh axes of the wrong type (Auto, Explicit, Manual)."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('X', 'Y'))
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        y = jax.sharding.reshard(x, P(None, 'X'))
""")

FIXED = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('X', 'Y'))
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        y = jax.lax.with_sharding_constraint(x, P(None, 'X'))
""")

# On Explicit axes with_sharding_constraint only asserts the sharding a value has; on a mixed
# mesh it may name only the Auto axes; out_sharding= names only Explicit ones.
MORE = Example(source=dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import AxisType, PartitionSpec as P

    explicit = jax.make_mesh((2, 4), ('X', 'Y'))
    with jax.set_mesh(explicit):
        a = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        kept = jax.lax.with_sharding_constraint(a, P('X', 'Y'))
        changed = jax.lax.with_sharding_constraint(a, P(None, 'X'))
        moved = jax.sharding.reshard(a, P(None, 'X'))
    mixed = jax.make_mesh((2, 4), ('X', 'Y'), axis_types=(AxisType.Explicit, AxisType.Auto))
    with jax.set_mesh(mixed):
        b = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        auto = jax.lax.with_sharding_constraint(b, P(None, 'Y'))
        explicit_axis = jax.lax.with_sharding_constraint(b, P('X', 'Y'))
        zeros = jnp.zeros((8, 16), out_sharding=P(None, 'Y'))
"""), expected=((9, "SC209"), (15, "SC209"), (16, "SC209")))

# With no mesh set, a NamedSharding of Explicit axes is refused by with_sharding_constraint,
# even one the value has (JAX 0.10: jax.make_mesh's axes are Explicit by default).
NO_MESH = Example(source=dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = jax.make_mesh((2, 4), ('X', 'Y'))
    x = jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P('X', 'Y')))
    kept = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P()))
    same = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P('X', 'Y')))
"""), expected=((8, "SC209"),))

RULE = Rule(
    code=Code.AXIS_TYPE_MISUSE,
    name="axis-type-misuse",
    summary=(
        "Checks that APIs are given mesh axes of the type they take (JAX 0.10): "
        "`jax.sharding.reshard` and `out_sharding=` (of `jnp.dot`, `einsum`, `reshape`, the "
        "constructors and `jax.random`) name only Explicit axes; `with_sharding_constraint` names "
        "only Auto axes, and on a mesh whose axes are all Explicit it only asserts the sharding the "
        "value already has; where no mesh is set, a NamedSharding naming an Explicit axis is "
        "refused even where it matches."
    ),
    why=(
        "JAX raises a ValueError (\"PartitionSpec passed to reshard cannot contain axis names "
        "that are of type Auto or Manual\", \"The spec of NamedSharding passed to "
        "with_sharding_constraint can only refer to Auto axes\") or, for a constraint that "
        "would change an Explicit sharding, an AssertionError. On Auto axes place values with "
        "`with_sharding_constraint`; on Explicit ones with `jax.sharding.reshard`."
    ),
    wrong=Example(source=WRONG, expected=((9, "SC209"),)),
    fixed=Example(source=FIXED),
    more=(MORE, NO_MESH),
)
