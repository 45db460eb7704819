"""SC105 reshape-mismatch: a reshape to a different number of elements."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp

    images = jnp.zeros((128, 784))
    grid = images.reshape((128, 28, 27))
""")

FIXED = dedent("""\
    import jax.numpy as jnp

    images = jnp.zeros((128, 784))
    grid = images.reshape((128, 28, 28))
""")

INFERRED_DIM = dedent("""\
    import jax.numpy as jnp

    tokens = jnp.zeros((10, 64))
    heads = jnp.reshape(tokens, (10, -1, 12))
""")

EINOPS_SPLIT = dedent("""\
    import einops
    import jax.numpy as jnp

    tokens = jnp.zeros((8, 128, 512))
    heads = einops.rearrange(tokens, 'b t (h d) -> b h t d', h=12)
""")

RULE = Rule(
    code=Code.RESHAPE_MISMATCH,
    name="reshape-mismatch",
    summary=(
        "Checks that `reshape` (function or method) keeps the number of elements: the product "
        "of the new shape equals the product of the old one, and with one `-1` the known part "
        "of the new shape divides it."
    ),
    why=(
        "128 images of 784 pixels are 100352 numbers; a (128, 28, 27) grid holds 96768. The "
        "typo fails at run time, after the data pipeline has started; with `-1` the error is "
        "less obvious still: 64 features cannot be split into 12 heads of equal width."
    ),
    wrong=Example(source=WRONG, expected=((4, "SC105"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=INFERRED_DIM, expected=((4, "SC105"),)),
        Example(source=EINOPS_SPLIT, expected=((5, "SC105"),)),
    ),
)
