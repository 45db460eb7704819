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

RULE = Rule(
    code=Code.UNKNOWN_RESOURCE,
    name="unknown-resource",
    summary=(
        "Checks, under a statically known mesh (`with Mesh(devices, names):`, `with "
        "jax.make_mesh(shape, names):` or `with jax.set_mesh(mesh):` around the call), that "
        "every mesh axis named in an "
        "`xmap`'s `axis_resources` is one of the mesh's axis names. The mesh axes of a "
        "`PartitionSpec` (`shard_map`, `NamedSharding`, `with_sharding_constraint`) are not "
        "checked yet."
    ),
    why=(
        "`axis_resources={'batch': 'data'}` under a mesh with axes ('x', 'y') refers to a "
        "resource that does not exist; the removed xmap failed with a lookup error at run time, "
        "usually in a script written for another mesh layout. The checker knows the mesh "
        "from the enclosing `with` and names the axes it does have."
    ),
    wrong=Example(source=WRONG, expected=((17, "SC206"),)),
    fixed=Example(source=FIXED),
)
