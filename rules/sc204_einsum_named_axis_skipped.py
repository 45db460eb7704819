"""SC204 einsum-named-axis-skipped: an einsum operand skips a named axis another one mentions."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def contract(x, y):
        return jnp.einsum('n{b,k},{k}->n{b}', x, y)


    x = jnp.ones((20, 5, 7))
    y = jnp.ones((20, 7))
    z = xmap(contract, in_axes=({0: 'b', 2: 'k'}, ['b', 'k', ...]), out_axes={0: 'b'})(x, y)
""")

FIXED = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def contract(x, y):
        return jnp.einsum('n{b,k},{b,k}->n{b}', x, y)


    x = jnp.ones((20, 5, 7))
    y = jnp.ones((20, 7))
    z = xmap(contract, in_axes=({0: 'b', 2: 'k'}, ['b', 'k', ...]), out_axes={0: 'b'})(x, y)
""")

RULE = Rule(
    code=Code.EINSUM_NAMED_AXIS_SKIPPED,
    name="einsum-named-axis-skipped",
    summary=(
        "Checks named-axis `einsum` specs: an operand that has a named axis must list it in its "
        "braces whenever another operand's braces mention that axis. Omitting a name from all "
        "operands and the output is fine: it then broadcasts."
    ),
    why=(
        "`'n{b,k},{k}->n{b}'` lists 'b' for the first operand but not for the second, although "
        "both carry a 20-long 'b' axis. The spec then asks 'b' to be both a batch axis of the "
        "first operand and a broadcast axis of the second; the removed xmap documented this as "
        "unchecked undefined behaviour, so the result could silently be wrong. List the axis "
        "for every operand that has it."
    ),
    wrong=Example(source=WRONG, expected=((6, "SC204"),)),
    fixed=Example(source=FIXED),
)
