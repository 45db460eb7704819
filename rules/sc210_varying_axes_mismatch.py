"""SC210 varying-axes-mismatch: a loop carry or a branch whose varying manual axes differ."""

from __future__ import annotations

from textwrap import dedent
from typing import TYPE_CHECKING

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

if TYPE_CHECKING:
    from shapecheck.diagnostic import Diagnostic
    from shapecheck.fixes import Fix, Source

WRONG = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('X', 'Y'))


    def total(x):
        def step(acc, row):
            return acc + row, None

        acc, _ = lax.scan(step, jnp.zeros((4,)), x)
        return acc


    out = jax.shard_map(total, mesh=mesh, in_specs=P('X', 'Y'), out_specs=P(('X', 'Y')))(jnp.ones((8, 16)))
""")

FIXED = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('X', 'Y'))


    def total(x):
        def step(acc, row):
            return acc + row, None

        acc, _ = lax.scan(step, lax.pcast(jnp.zeros((4,)), ('X', 'Y'), to='varying'), x)
        return acc


    out = jax.shard_map(total, mesh=mesh, in_specs=P('X', 'Y'), out_specs=P(('X', 'Y')))(jnp.ones((8, 16)))
""")

# A branch that psums returns a value that varies over fewer axes than the other branch's; a
# psum over an axis the value varies over and one it does not is refused too; pcast to
# 'varying' over an axis the value varies over already is refused; with check_vma=False nothing
# is checked.
BRANCHES = Example(source=dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('X', 'Y'))


    def body(x):
        a = lax.cond(jnp.sum(x) > 0, lambda: lax.psum(x, 'Y'), lambda: x)
        b = lax.switch(1, [lambda: x, lambda: jnp.ones((4, 4))])
        c = lax.psum(lax.psum(x, 'Y'), ('X', 'Y'))
        d = lax.pcast(x, 'X', to='varying')
        e = lax.fori_loop(0, 3, lambda i, acc: acc + x, lax.pcast(jnp.zeros((4, 4)), ('X', 'Y'), to='varying'))
        return e


    out = jax.shard_map(body, mesh=mesh, in_specs=P('X', 'Y'), out_specs=P('X', 'Y'))(jnp.ones((8, 16)))
    unchecked = jax.shard_map(lambda x: lax.fori_loop(0, 3, lambda i, acc: acc + x, jnp.zeros((4, 4))),
                              mesh=mesh, in_specs=P('X', 'Y'), out_specs=P('X', 'Y'), check_vma=False)(jnp.ones((8, 16)))
"""), expected=((11, "SC210"), (12, "SC210"), (13, "SC210"), (14, "SC210")))

# A loop that psums its carry makes it invariant: the carry it returns is cast back.
REDUCED = Example(source=dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(8), ('i',))


    def body(x):
        return lax.while_loop(lambda c: jnp.sum(c) > 1e9, lambda c: lax.psum(c, 'i'), x)


    ok = jax.shard_map(lambda x: lax.while_loop(lambda c: jnp.sum(c) > 1e9, lambda c: lax.pcast(lax.psum(c, 'i'), 'i', to='varying'), x),
                       mesh=mesh, in_specs=P('i'), out_specs=P('i'))(jnp.ones((8,)))
    wrong = jax.shard_map(body, mesh=mesh, in_specs=P('i'), out_specs=P('i'))(jnp.ones((8,)))
"""), expected=((11, "SC210"),))

RULE = Rule(
    code=Code.VARYING_AXES_MISMATCH,
    name="varying-axes-mismatch",
    summary=(
        "Checks, in a `shard_map` body (with `check_vma=True`, the default), that a `lax.scan`, "
        "`fori_loop` or `while_loop` carry leaves the body varying over the manual mesh axes it "
        "entered with, and that the branches of a `lax.cond` or `lax.switch` return values that vary "
        "over the same axes. A value varies over the mesh axes its arguments' in_specs split and "
        "`lax.axis_index`'s axis; `psum`/`pmean`/`pmax`/`pmin` over an axis make it invariant there; "
        "`all_gather`, `ppermute` and `psum_scatter` make it vary over theirs; constants and fresh "
        "arrays (`jnp.zeros`) vary over nothing, `zeros_like` as its argument; arithmetic takes the "
        "union; `lax.pcast(x, axes, to='varying')` adds axes. Also reported: `pcast` to varying over "
        "an axis the value varies over already, and `psum`/`pmean` over axes of which it varies over "
        "some but not all. The message names both sets and the `lax.pcast` that fixes it, which "
        "`shapecheck check --fix` and the language server's quick fix insert."
    ),
    why=(
        "JAX types every value in a shard_map body with the manual axes it varies over "
        "(`jax.typeof` prints `float32[4]{V:(X,Y)}`) and refuses at trace time a loop whose carry "
        "changes them (\"scan body function carry input and carry output must have equal types ... "
        "the manual axis types do not match\") or branches that differ. The usual cause is a "
        "zero-initialised accumulator (`jnp.zeros` varies over nothing) summing varying blocks, or "
        "a branch that reduces. Cast the initial carry (or the branch's output) to vary over the "
        "missing axes: it costs nothing and keeps the check that catches a result taken from one "
        "device as if all held it; turning `check_vma` off loses that check."
    ),
    wrong=Example(source=WRONG, expected=((14, "SC210"),)),
    fixed=Example(source=FIXED),
    more=(BRANCHES, REDUCED),
)


def fix(diagnostic: Diagnostic, source: Source) -> Fix | None:
    """Cast the value the diagnostic points at to vary over the axes its message names (safe: a
    cast to varying changes no value, only the type JAX checks)."""
    from shapecheck.codemods.pcast_fix import pcast_fix

    return pcast_fix(diagnostic, source)
