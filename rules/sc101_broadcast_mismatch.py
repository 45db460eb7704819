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

# A sampler's parameters broadcast *to* its shape= (JAX: ValueError), and attention's bias and
# mask to its logits (B, N, T, S).
SAMPLERS = dedent("""\
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    fixed = jax.random.bernoulli(key, jnp.full((512,), 0.9), (32, 512))
    wrong = jax.random.bernoulli(key, jnp.full((32,), 0.9), (32, 512))
    q, kv = jnp.zeros((2, 10, 4, 16)), jnp.zeros((2, 12, 4, 16))
    masked = jax.nn.dot_product_attention(q, kv, kv, mask=jnp.ones((2, 1, 10, 10), bool))
""")

RULE = Rule(
    code=Code.BROADCAST_MISMATCH,
    name="broadcast-mismatch",
    summary=(
        "Checks that the positional dims of an elementwise operation broadcast: aligned from the "
        "right, each pair of dims must be equal or one of them 1. Unknown (`None`) and symbolic "
        "dims are never reported. A random sampler's parameters (`jax.random.bernoulli`'s `p`, "
        "`randint`'s bounds, NumPy's `loc` and `scale`) must broadcast to the `shape`/`size` it "
        "is given, and `jax.nn.dot_product_attention`'s bias and mask to its logits."
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
        Example(source=SAMPLERS, expected=((6, "SC101"), (8, "SC101"))),
    ),
)
