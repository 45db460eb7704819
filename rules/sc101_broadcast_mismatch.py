"""SC101 broadcast-mismatch: positional dims that cannot broadcast."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp


    def add_bias(x, b):
        return x + b


    x = jnp.ones((32, 128))
    b = jnp.ones((64,))
    y = add_bias(x, b)
""")

FIXED = dedent("""\
    import jax.numpy as jnp


    def add_bias(x, b):
        return x + b


    x = jnp.ones((32, 128))
    b = jnp.ones((128,))
    y = add_bias(x, b)
""")

TRANSPOSED_OPERAND = dedent("""\
    import jax.numpy as jnp

    scores = jnp.zeros((8, 16))
    mask = jnp.ones((16, 8), dtype=bool)
    masked = jnp.where(mask, scores, -1e9)
""")

NAMED_BODY = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def scale_rows(x, s):
        return x * s


    x = jnp.ones((20, 5))
    s = jnp.ones((20, 3))
    y = xmap(scale_rows, in_axes=(['batch', ...], ['batch', ...]), out_axes=['batch', ...])(x, s)
""")

RULE = Rule(
    code=Code.BROADCAST_MISMATCH,
    name="broadcast-mismatch",
    summary=(
        "Checks that the positional dims of an elementwise operation broadcast: aligned from the "
        "right, each pair of dims must be equal or one of them 1. Unknown (`None`) and symbolic "
        "dims are never reported."
    ),
    why=(
        "Adding a bias of shape (64,) to activations of shape (32, 128) fails only when the "
        "program runs. Worse, when the sizes happen to coincide (a (32,) bias on a (32, 32) "
        "batch) the same mistake broadcasts along the wrong axis without any error, so catching "
        "it where the sizes differ is the cheap chance to fix it. Named axes never pair with "
        "positional ones: inside an xmap only the positional dims that remain are compared."
    ),
    wrong=Example(source=WRONG, expected=((5, "SC101"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=TRANSPOSED_OPERAND, expected=((5, "SC101"),)),
        Example(source=NAMED_BODY, expected=((6, "SC101"),)),
    ),
)
