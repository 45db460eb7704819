"""SC203 unplaced-named-axis: an xmap result keeps a named axis that out_axes does not place."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def normalize(x):
        return x / jnp.sum(x)


    x = jnp.ones((20, 5))
    f = xmap(
        normalize,
        in_axes=['batch', ...],
        out_axes=[...],
    )
    y = f(x)
""")

FIXED = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def normalize(x):
        return x / jnp.sum(x)


    x = jnp.ones((20, 5))
    f = xmap(
        normalize,
        in_axes=['batch', ...],
        out_axes=['batch', ...],
    )
    y = f(x)
""")

SECOND_RESULT = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def stats(x):
        return jnp.mean(x, axis='batch'), x - jnp.mean(x, axis='batch')


    x = jnp.ones((128, 16))
    f = xmap(
        stats,
        in_axes=['batch', ...],
        out_axes=([...], [...]),
    )
    mean, centered = f(x)
""")

RULE = Rule(
    code=Code.UNPLACED_NAMED_AXIS,
    name="unplaced-named-axis",
    summary=(
        "Checks that every named axis an xmapped function's result still has is placed by the "
        "result's `out_axes` mapping: the named axes a result leaves the body with become "
        "positional dims only where `out_axes` puts them."
    ),
    why=(
        "The xmapped function returns positional arrays only: a result with a named axis of "
        "size 20 that `out_axes=[...]` does not place has nowhere to go, and the removed xmap "
        "refused it at trace time. Either give it a position in `out_axes` (`['batch', ...]`) or "
        "reduce it in the body (`jnp.sum(x, axis='batch')`). The opposite is fine: an "
        "`out_axes` name that the result lacks broadcasts the result along that axis."
    ),
    wrong=Example(source=WRONG, expected=((13, "SC203"),)),
    fixed=Example(source=FIXED),
    more=(Example(source=SECOND_RESULT, expected=((13, "SC203"),)),),
)
