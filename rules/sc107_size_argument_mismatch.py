"""SC107 size-argument-mismatch: a count, index or width argument that the array's dims refuse.

No older code covers it: SC105 is about reshape's element count and SC106 about axis indices,
while these are sizes the call cuts, pads or keeps along an axis. JAX raises each at run time
(ValueError; ZeroDivisionError for 0 sections), checked on JAX 0.10.2.
"""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp

    qkv = jnp.zeros((8, 128, 3 * 64 + 1))
    q, k, v = jnp.split(qkv, 3, axis=-1)
""")

FIXED = dedent("""\
    import jax.numpy as jnp

    qkv = jnp.zeros((8, 128, 3 * 64))
    q, k, v = jnp.split(qkv, 3, axis=-1)
""")

SPLIT_INDICES = dedent("""\
    import jax.numpy as jnp

    x = jnp.zeros((10, 4))
    head, tail = jnp.split(x, [-2])
""")

PAD_WIDTH = dedent("""\
    import jax.numpy as jnp

    images = jnp.zeros((8, 28, 28))
    padded = jnp.pad(images, ((0, 0), (2, 2), (2, 2), (0, 0)))
""")

TOP_K = dedent("""\
    import jax.numpy as jnp
    from jax import lax

    logits = jnp.zeros((16, 4))
    weights, experts = lax.top_k(logits, 8)
""")

# Drawing without replacement takes at most the population: jax.random.choice and categorical
# (JAX: ValueError); choice's p has one probability per entry.
SAMPLING = dedent("""\
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    fixed = jax.random.choice(key, 10, (5,), replace=False)
    wrong = jax.random.choice(key, 10, (12,), replace=False)
    top = jax.random.categorical(key, jnp.zeros((4, 10)), shape=(12, 4), replace=False)
""")

# A KV cache written one step at a time: the step's keys are a block of the cache, of its rank
# and within its size (JAX: TypeError, "dynamic_update_slice update shape must be smaller than
# operand shape"); a window read from it keeps within it too.
CACHE = dedent("""\
    import jax.numpy as jnp
    from jax import lax

    cache = jnp.zeros((4, 128, 64))
    step = jnp.ones((4, 1, 64))
    fixed = lax.dynamic_update_slice(cache, step, (0, 7, 0))
    wrong = lax.dynamic_update_slice(cache, step.reshape(4, 64), (0, 7, 0))
    window = lax.dynamic_slice(cache, (0, 100, 0), (4, 256, 64))
""")

# A Python int passed to a jitted function is a tracer in its body: where JAX needs a concrete
# size (a shape, a count, an axis, a slice bound, `range`), mark the argument static.
TRACED = dedent("""\
    from functools import partial

    import jax
    import jax.numpy as jnp


    @jax.jit
    def pad_to(x, n):
        return jnp.concatenate([x, jnp.zeros(n - x.shape[0])]), jnp.zeros(n)


    @partial(jax.jit, static_argnums=(1,))
    def padded(x, n):
        return jnp.concatenate([x, jnp.zeros(n - x.shape[0])])


    a = pad_to(jnp.ones(3), 8)
    b = padded(jnp.ones(3), 8)
""")

RULE = Rule(
    code=Code.SIZE_ARGUMENT_MISMATCH,
    name="size-argument-mismatch",
    summary=(
        "Checks the sizes a call cuts, pads or keeps along an axis against that axis: `lax.slice` "
        "starts and limits within each dim (one of each per dim), `lax.dynamic_slice` sizes "
        "within the operand (one per dim, as its starts), a `lax.dynamic_update_slice` update of "
        "the operand's rank that fits in it, and their one-axis forms; `jnp.repeat` counts, one "
        "per element or one for all and never negative; `jnp.split` "
        "sections that divide it (and never 0), split indices that do not decrease and stay within "
        "it (JAX does not count negative ones from the end), `jnp.pad` widths of a shape that fits "
        "the rank and never negative (nor copied from an empty axis), `lax.top_k`'s `k` between 0 "
        "and the axis size, and a non-negative `num_segments`. Samples drawn without replacement "
        "(`jax.random.choice`, `jax.random.categorical` with `replace=False`) number at most the "
        "entries drawn from, and `choice`'s `p` holds one probability per entry. Also: "
        "`lax.pad`'s interior padding (never negative) and padded sizes (never below 0), "
        "`lax.tile`'s one count per dim, `lax.split`'s sizes that add up to the dim, "
        "`lax.select_n`'s two cases for a boolean predicate, `jnp.convolve` and `correlate` of "
        "non-empty arrays, `jnp.interp`'s `xp` and `fp` of one length, `jnp.select`'s one choice "
        "per condition, `jnp.cross`'s vectors of 2 or 3, `jax.nn.glu`'s even axis, and "
        "`lax.associative_scan`'s leaves of one length. Also a Python int passed to a jitted function as "
        "a non-static argument (a tracer in its body) where JAX needs a concrete value: a shape, "
        "`num_classes`, `num_segments`, `length`, `num`, `k`, an axis, a count of `repeat` or `tile`, "
        "a slice bound, `range` and `int` (not followed through arithmetic on it)."
    ),
    why=(
        "Each is a ValueError when the program runs, after the data pipeline has started: a fused "
        "projection one column too wide cannot be split into q, k and v, and a pad width written for "
        "NHWC images fails on a batch of grey ones."
    ),
    wrong=Example(source=WRONG, expected=((4, "SC107"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=SPLIT_INDICES, expected=((4, "SC107"),)),
        Example(source=TRACED, expected=((9, "SC107"),)),
        Example(source=PAD_WIDTH, expected=((4, "SC107"),)),
        Example(source=TOP_K, expected=((5, "SC107"),)),
        Example(source=SAMPLING, expected=((6, "SC107"), (7, "SC107"))),
        Example(source=CACHE, expected=((7, "SC107"), (8, "SC107"))),
    ),
)
