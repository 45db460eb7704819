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

# The classic loss bug: integer class labels given to the loss that takes one-hot labels
# (optax: ValueError, "Incompatible shapes for broadcasting: shapes=[(32,), (32, 10)]").
LOSSES = dedent("""\
    import jax.numpy as jnp
    import optax

    logits = jnp.zeros((32, 10))
    labels = jnp.zeros((32,), jnp.int32)
    fixed = optax.softmax_cross_entropy_with_integer_labels(logits, labels)
    wrong = optax.softmax_cross_entropy(logits, labels)
""")

RULE = Rule(
    code=Code.BROADCAST_MISMATCH,
    name="broadcast-mismatch",
    summary=(
        "Checks that the positional dims of an elementwise operation broadcast: aligned from the "
        "right, each pair of dims must be equal or one of them 1. Unknown (`None`) and symbolic "
        "dims are never reported. A random sampler's parameters (`jax.random.bernoulli`'s `p`, "
        "`randint`'s bounds, NumPy's `loc` and `scale`) must broadcast to the `shape`/`size` it "
        "is given, and `jax.nn.dot_product_attention`'s bias and mask to its logits. optax's "
        "losses: `softmax_cross_entropy`'s labels broadcast with its logits (one-hot labels over "
        "the classes), `softmax_cross_entropy_with_integer_labels` takes one integer class per "
        "example (the logits' shape without the class axis), `sigmoid_binary_cross_entropy`, "
        "`huber_loss`, `log_cosh` and `cosine_similarity` broadcast their two arrays, and "
        "`l2_loss` and `squared_error` take targets of the predictions' very shape. `jax.lax`'s "
        "elementwise operators add no leading dims: their operands have one rank (0-d ones "
        "aside), and `lax.select`'s cases one shape, unbroadcast."
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
        Example(source=LOSSES, expected=((7, "SC101"),)),
    ),
)
