"""SC102 named-size-mismatch: one axis name with two sizes."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap

    x = jnp.arange(5)
    y = jnp.arange(7)
    z = xmap(lambda a, b: a * b, in_axes=(['i', ...], ['i', ...]), out_axes=['i', ...])(x, y)
""")

FIXED = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap

    x = jnp.arange(5)
    y = jnp.arange(5)
    z = xmap(lambda a, b: a * b, in_axes=(['i', ...], ['i', ...]), out_axes=['i', ...])(x, y)
""")

ONE_HOT = dedent("""\
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental.maps import xmap
    from jax.nn import one_hot


    def nll(logits, labels):
        return -lax.psum(one_hot(labels, 10, axis='classes') * logits, 'classes')


    logits = jnp.zeros((128, 1000))
    labels = jnp.zeros((128,), dtype=jnp.int32)
    loss = xmap(nll, in_axes=(['batch', 'classes', ...], ['batch', ...]), out_axes=['batch', ...])
    print(loss(logits, labels))
""")

AXIS_SIZES = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def center(x):
        return x - jnp.mean(x, axis='batch')


    x = jnp.ones((128, 16))
    f = xmap(
        center,
        in_axes=['batch', ...],
        out_axes=['batch', ...],
        axis_sizes={'batch': 64},
    )
    y = f(x)
""")

# vmap and pmap: keyword arguments are always mapped over axis 0, so weights passed by keyword
# meet the batch; pass them positionally with in_axes None.
VMAP_KEYWORD = dedent("""\
    import jax
    import jax.numpy as jnp


    def predict(x, w):
        return jnp.tanh(jnp.dot(x, w))


    w = jnp.ones((3, 2))
    xs = jnp.ones((16, 3))
    fixed = jax.vmap(predict, in_axes=(0, None))(xs, w)
    wrong = jax.vmap(predict, in_axes=(0,))(xs, w=w)
    devices = jax.pmap(predict, in_axes=(0, 0))(jnp.ones((4, 5, 3)), jnp.ones((2, 3, 2)))
""")

RULE = Rule(
    code=Code.NAMED_SIZE_MISMATCH,
    name="named-size-mismatch",
    summary=(
        "Checks that one axis name has one size: across the arguments of an xmap (each "
        "argument's `in_axes` entry and dimension), against `axis_sizes`, in named "
        "broadcasting, in `einsum` and `pdot`, and for `one_hot(x, n, axis=name)`; across the "
        "mapped axes of a `jax.vmap` or `jax.pmap` call, positional and keyword arguments "
        "alike (keyword arguments are always mapped over axis 0), and against `axis_size`."
    ),
    why=(
        "Inside an xmap a name is a single axis: `['i', ...]` on a (5,) array and on a (7,) array "
        "asks for an axis `i` of size 5 and 7 at once, which the removed xmap refused only at "
        "run time. `one_hot(labels, 10, axis='classes')` against 1000 logits per example "
        "is the same mistake inside the body: the one-hot targets cannot line up with the "
        "classes they are multiplied with."
    ),
    wrong=Example(source=WRONG, expected=((6, "SC102"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=ONE_HOT, expected=((8, "SC102"),)),
        Example(source=AXIS_SIZES, expected=((14, "SC102"),)),
        Example(source=VMAP_KEYWORD, expected=((12, "SC102"), (13, "SC102"))),
    ),
)
