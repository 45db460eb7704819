"""The module paths older JAX releases exported the same APIs from (older code and issue
reports still use them) are the same calls: `qualnames.canonical` maps each to today's name."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.analyzer.qualnames import canonical
from shapecheck.api import check_source


@pytest.mark.parametrize(("old", "new"), [
    ("jax.tree_map", "jax.tree.map"),
    ("jax.tree_util.tree_multimap", "jax.tree.map"),
    ("jax.tree_leaves", "jax.tree.leaves"),
    ("jax.experimental.maps.Mesh", "jax.sharding.Mesh"),
    ("jax.interpreters.pxla.Mesh", "jax.sharding.Mesh"),
    ("jax.experimental.PartitionSpec", "jax.sharding.PartitionSpec"),
    ("jax.experimental.pjit.PartitionSpec", "jax.sharding.PartitionSpec"),
    ("jax.interpreters.pxla.PartitionSpec", "jax.sharding.PartitionSpec"),
    ("jax.experimental.pjit.with_sharding_constraint", "jax.lax.with_sharding_constraint"),
])
def test_old_spellings_are_todays_names(old: str, new: str) -> None:
    assert canonical(old) == new


def test_programs_in_old_spellings_are_checked() -> None:
    source = textwrap.dedent("""\
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.experimental import PartitionSpec
        from jax.experimental.maps import Mesh
        from jax.experimental.shard_map import shard_map

        a = jax.tree_map(lambda v: v + jnp.ones(3), {'w': jnp.ones(4)})
        b = jax.tree_util.tree_multimap(lambda v, u: v + u, (jnp.ones(4),), (jnp.ones(5),))
        c = [leaf @ jnp.ones(3) for leaf in jax.tree_leaves({'w': jnp.ones(4)})]
        mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('x', 'y'))
        d = shard_map(lambda v: v, mesh, in_specs=(PartitionSpec('z'),), out_specs=PartitionSpec())(jnp.ones(8))
        """)
    assert {(d.span.line, d.code) for d in check_source("t.py", source)} == {
        (8, "SC101"), (9, "SC101"), (10, "SC104"), (12, "SC206")}
