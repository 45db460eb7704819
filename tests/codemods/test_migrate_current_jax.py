"""`shapecheck migrate` for today's JAX APIs (JAX 0.10.2): the experimental shard_map, `pvary`,
`use_mesh` and `with mesh:`, and `jax.experimental.shard`. Each rewrite has its program before and
after: the after is what migrate writes (and a second run changes nothing), it checks clean and
runs on JAX; the before runs too where JAX still has the old API. (A `lax.psum` over a name
counts as named-axis use to migrate, which then imports lax from shapecheck.runtime: its psum
is jax's outside xmap.)"""

from __future__ import annotations

from dataclasses import dataclass
from textwrap import dedent

import pytest

from shapecheck.api import check_source
from shapecheck.codemods.migrate import migrate_text

pytest.importorskip("jax")

HEAD = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('x', 'y'))
"""


@dataclass(frozen=True)
class Case:
    name: str
    before: str
    after: str
    before_runs: bool  # JAX 0.10.2 still has the old API


CASES = (
    Case("experimental_shard_map", HEAD + dedent("""\
        from jax.experimental.shard_map import shard_map

        f = shard_map(lambda a: lax.psum(a, 'y'), mesh, P('x', 'y'), P('x'), check_rep=True)
        g = jax.experimental.shard_map.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('x', 'y'),
                                                 out_specs=P('x', 'y'), check_rep=False)
        out = f(jnp.ones((8, 16))) + g(jnp.ones((8, 16)))[:, :4]
    """), HEAD.replace("from jax import lax", "from shapecheck.runtime import lax") + dedent("""\
        from jax import shard_map

        f = shard_map(lambda a: lax.psum(a, 'y'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x'), check_vma=True)
        g = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('x', 'y'),
                                                 out_specs=P('x', 'y'), check_vma=False)
        out = f(jnp.ones((8, 16))) + g(jnp.ones((8, 16)))[:, :4]
    """), before_runs=True),
    # `auto=` (JAX 0.4-0.6) named the axes left to the compiler; axis_names= names the others.
    Case("shard_map_auto", HEAD + dedent("""\
        from jax.experimental.shard_map import shard_map

        f = shard_map(lambda a: lax.psum(a, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P(), auto=frozenset({'y'}))
        out = f(jnp.ones((8, 16)))
    """), HEAD.replace("from jax import lax", "from shapecheck.runtime import lax") + dedent("""\
        from jax import shard_map

        f = shard_map(lambda a: lax.psum(a, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P(), axis_names=frozenset(mesh.axis_names) - frozenset(frozenset({'y'})))
        out = f(jnp.ones((8, 16)))
    """), before_runs=False),
    Case("pvary", HEAD + dedent("""\
        def total(a):
            return lax.fori_loop(0, 3, lambda i, acc: acc + a, lax.pvary(jnp.zeros((4, 4)), ('x', 'y')))


        out = jax.shard_map(total, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))(jnp.ones((8, 16)))
    """), HEAD + dedent("""\
        def total(a):
            return lax.fori_loop(0, 3, lambda i, acc: acc + a, jax.lax.pcast(jnp.zeros((4, 4)), ('x', 'y'), to='varying'))


        out = jax.shard_map(total, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))(jnp.ones((8, 16)))
    """), before_runs=False),
    Case("use_mesh_and_with_mesh", HEAD + dedent("""\
        with jax.sharding.use_mesh(mesh):
            a = jax.device_put(jnp.ones((8, 16)), P('x', 'y'))
        with mesh:
            out = jax.shard_map(lambda v: v * 2, in_specs=P('x', 'y'), out_specs=P('x', 'y'))(a)
    """), HEAD + dedent("""\
        with jax.set_mesh(mesh):
            a = jax.device_put(jnp.ones((8, 16)), P('x', 'y'))
        with jax.set_mesh(mesh):
            out = jax.shard_map(lambda v: v * 2, in_specs=P('x', 'y'), out_specs=P('x', 'y'))(a)
    """), before_runs=False),
    Case("experimental_shard", dedent("""\
        import jax
        import jax.numpy as jnp
        from jax.experimental.shard import auto_axes
        from jax.sharding import AxisType, PartitionSpec as P

        mesh = jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Explicit))
        with jax.set_mesh(mesh):
            a = jax.device_put(jnp.ones((8, 16)), P('x', 'y'))
            b = jax.experimental.shard.reshard(a, P(None, 'x'))
            out = auto_axes(lambda v: v * 2, out_sharding=P('x', None))(b)
    """), dedent("""\
        import jax
        import jax.numpy as jnp
        from jax.sharding import reshard, auto_axes
        from jax.sharding import AxisType, PartitionSpec as P

        mesh = jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Explicit))
        with jax.set_mesh(mesh):
            a = jax.device_put(jnp.ones((8, 16)), P('x', 'y'))
            b = reshard(a, P(None, 'x'))
            out = auto_axes(lambda v: v * 2, out_sharding=P('x', None))(b)
    """), before_runs=False),
)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_migrate_writes_todays_api(case: Case) -> None:
    rewrite = migrate_text("program.py", case.before)
    assert rewrite.text == case.after
    assert not rewrite.messages
    assert migrate_text("program.py", rewrite.text).text == rewrite.text


def runs(source: str) -> str | None:
    """Run the program (on 8 CPU devices): None, or the error it raises."""
    try:
        exec(compile(source, "program.py", "exec"), {"__name__": "program"})
    except Exception as error:  # the program's own failure is the answer
        return f"{type(error).__name__}: {error}"
    return None


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_migrated_program_checks_clean_and_runs(case: Case) -> None:
    assert check_source("program.py", case.after) == []
    assert runs(case.after) is None
    if case.before_runs:
        assert runs(case.before) is None
    else:
        assert runs(case.before) is not None  # JAX 0.10.2 no longer has the old API
