"""SC002 invalid-axis-spec: malformed xmap axis specs, or specs that do not fit the arguments."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def center(x):
        return x - jnp.mean(x, axis='batch')


    x = jnp.ones((128, 16))
    f = xmap(
        center,
        in_axes=['batch', ...],
        out_axes=['batch', ...],
        axis_resources={'btach': 'x'},
    )
    y = f(x)
""")

FIXED = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def center(x):
        return x - jnp.mean(x, axis='batch')


    x = jnp.ones((128, 16))
    f = xmap(
        center,
        in_axes=['batch', ...],
        out_axes=['batch', ...],
        axis_resources={'batch': 'x'},
    )
    y = f(x)
""")

EXACT_RANK = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def normalize(x):
        return x / jnp.sum(x)


    x = jnp.ones((8, 16, 32))
    f = xmap(
        normalize,
        in_axes=['batch', None],
        out_axes=['batch', ...],
    )
    y = f(x)
""")

UNDEFINED_OUT_NAME = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def double(x):
        return 2 * x


    x = jnp.ones((8, 16))
    f = xmap(
        double,
        in_axes=['batch', ...],
        out_axes=['batch', 'heads', ...],
    )
    y = f(x)
""")

WRONG_ARGUMENT_COUNT = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def add(x, y):
        return x + y


    a = jnp.ones((8, 16))
    b = jnp.ones((8, 16))
    f = xmap(
        add,
        in_axes=(['batch', ...], ['batch', ...], ['batch', ...]),
        out_axes=['batch', ...],
    )
    c = f(a, b)
""")

# shard_map: in_specs is a pytree prefix of the argument tuple, one entry per argument.
SHARD_MAP = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
    x, w = jnp.ones((8, 16)), jnp.ones((16, 32))
    fixed = jax.shard_map(jnp.dot, mesh=mesh, in_specs=(P("data", None), P()), out_specs=P("data", None))(x, w)
    wrong = jax.shard_map(jnp.dot, mesh=mesh, in_specs=(P("data", None),), out_specs=P("data", None))(x, w)
""")

# vmap/pmap: in_axes has one entry per positional argument (JAX: ValueError, len(in_axes)=2,
# len(args)=3); a dict of parameter names is not an in_axes (JAX: TypeError).
VMAP = dedent("""\
    import jax
    import jax.numpy as jnp


    def loss(w, x, y):
        return jnp.mean((jnp.dot(x, w) - y) ** 2)


    w, xs, ys = jnp.ones((3, 2)), jnp.ones((16, 3)), jnp.zeros((16, 2))
    fixed = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
    wrong = jax.vmap(jax.grad(loss), in_axes=(None, 0))(w, xs, ys)
    named = jax.vmap(loss, in_axes={'w': None, 'x': 0, 'y': 0})
    listed = jax.pmap(loss, in_axes=[None, 0, 0])(w, jnp.ones((4, 5, 3)), jnp.ones((4, 5, 2)))
""")

# vmap: out_axes None returns the body's value unmapped, which JAX allows only for a value that
# does not vary along the mapped axis (JAX: ValueError, "vmap has mapped output (axis_name=batch)
# but out_axes is None"): a psum over the axis, or a `*_like` built from the shape alone.
VMAP_OUT_NONE = dedent("""\
    import jax
    import jax.numpy as jnp


    def total(x):
        return jax.lax.psum(jnp.sum(x ** 2), 'batch')


    def squares(x):
        return jnp.sum(x ** 2)


    xs = jnp.ones((16, 3))
    fixed = jax.vmap(total, axis_name='batch', out_axes=None)(xs)
    wrong = jax.vmap(squares, axis_name='batch', out_axes=None)(xs)
""")

# jit: a tuple (or list) of in_shardings has one entry per positional argument of the call,
# static ones not counted (JAX: ValueError, "in_shardings is the wrong length").
JIT = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
    rows, replicated = NamedSharding(mesh, P("data", None)), NamedSharding(mesh, P())


    def step(w, x, lr):
        return w - lr * jnp.dot(x.T, x)


    w, x = jnp.ones((16, 16)), jnp.ones((8, 16))
    fixed = jax.jit(step, in_shardings=(replicated, rows), static_argnums=2)(w, x, 0.1)
    wrong = jax.jit(step, in_shardings=(replicated, rows))(w, x, 0.1)
""")

# Convolution and pooling options name the operands' axes: one stride, dilation and padding pair
# per spatial dim, one window size per dim to pool, dimension_numbers that fit the operands
# (JAX: TypeError or ValueError).
WINDOWS = dedent("""\
    import jax.numpy as jnp
    from jax import lax

    images = jnp.zeros((8, 32, 32, 3))
    kernel = jnp.zeros((3, 3, 3, 16))
    fixed = lax.conv_general_dilated(images, kernel, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    strides = lax.conv_general_dilated(images, kernel, (2,), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    pooled = lax.reduce_window(images, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID")
""")

RULE = Rule(
    code=Code.INVALID_AXIS_SPEC,
    name="invalid-axis-spec",
    summary=(
        "Checks the `in_axes`, `out_axes`, `axis_sizes` and `axis_resources` of `xmap`: an axis "
        "mapping is a dict `{pos: name}` with non-negative int keys or a list of names (`None` "
        "skips a position, a final `...` leaves the rest positional); names may not repeat within "
        "one mapping; every `out_axes` name and every `axis_resources` key must be an axis the "
        "xmap defines (an `in_axes` name or an `axis_sizes` key); a list without `...` must have "
        "exactly the argument's rank; the spec's structure must be a prefix of the arguments'. "
        "A `shard_map`'s in_specs is a pytree prefix of its argument tuple (one entry per "
        "argument, or one spec for all), its out_specs of its result. A `vmap`'s or `pmap`'s "
        "in_axes is an int, None, or a tuple with one entry per positional argument (vmap also "
        "takes a list), each a pytree prefix of its argument with int or None leaves; its "
        "out_axes a pytree prefix of the result, None (vmap) only for a result that does not "
        "vary along the mapped axis; at least one argument must be mapped (vmap "
        "accepts `axis_size` instead). A `jit`'s in_shardings, when a tuple or list, has one "
        "entry per positional argument of each call, static arguments not counted. The options "
        "of a convolution or a windowed reduction (`lax.conv_general_dilated`, `lax.reduce_window`) "
        "fit their operands: `dimension_numbers` name each dim of the operands once, there is one "
        "stride, dilation and padding pair per spatial dim (one window size per dim for "
        "`reduce_window`), the padding is 'SAME', 'VALID', 'SAME_LOWER' or (low, high) pairs, "
        "and group counts and windows are positive."
    ),
    why=(
        "The removed xmap raised these errors only when the program ran, often after minutes of "
        "setup on a TPU pod; some it never raised. `axis_resources={'btach': 'x'}` mentions an "
        "axis that no `in_axes` defines, so the intended batch partitioning never happens: the "
        "128-row batch stays replicated on every device, and nothing fails. `['batch', None]` "
        "says the argument has exactly two dims; an `f32[(8, 16, 32)]` argument makes the spec "
        "mean something else than what was written."
    ),
    wrong=Example(source=WRONG, expected=((14, "SC002"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=EXACT_RANK, expected=((12, "SC002"),)),
        Example(source=UNDEFINED_OUT_NAME, expected=((13, "SC002"),)),
        Example(source=WRONG_ARGUMENT_COUNT, expected=((13, "SC002"),)),
        Example(source=SHARD_MAP, expected=((9, "SC002"),)),
        Example(source=VMAP, expected=((11, "SC002"), (12, "SC002"), (13, "SC002"))),
        Example(source=VMAP_OUT_NONE, expected=((15, "SC002"),)),
        Example(source=JIT, expected=((16, "SC002"),)),
        Example(source=WINDOWS, expected=((7, "SC002"), (8, "SC002"))),
    ),
)
