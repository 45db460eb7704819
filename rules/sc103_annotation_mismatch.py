"""SC103 annotation-mismatch: an inferred type that contradicts a declared one."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32

    x: f32[(2, 3)] = jnp.ones((2, 3))
    y: f32[(3, 5)] = jnp.ones((3, 5))
    z: f32[(2, 7)] = x @ y
""")

FIXED = dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32

    x: f32[(2, 3)] = jnp.ones((2, 3))
    y: f32[(3, 5)] = jnp.ones((3, 5))
    z: f32[(2, 5)] = x @ y
""")

RETURN_VALUE = dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32


    def predict(w: f32[(784, 10)], x: f32[(128, 784)]) -> f32[(10, 128)]:
        return x @ w
""")

CALL_ARGUMENT = dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32


    def normalize(x: f32[('n', 64)]):
        return x / jnp.linalg.norm(x, axis=1, keepdims=True)


    features = jnp.ones((64, 128))
    unit = normalize(features)
""")

XMAP_BODY = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap
    from shapecheck import f32


    def my_func(x: f32[(5,), {'batch': 20}]) -> f32[(5,), {'batch': 20}]:
        return jnp.sum(x, axis=0)


    x = jnp.zeros((20, 5))
    y = xmap(my_func, in_axes={0: 'batch'}, out_axes={0: 'batch'})(x)
""")

SCAN_CARRY = dedent("""\
    import jax.numpy as jnp
    from jax import lax


    def step(h, x):
        h = jnp.concatenate([h, x], axis=-1)
        return h, h.sum()


    h_last, sums = lax.scan(step, jnp.zeros((4, 8)), jnp.ones((10, 4, 8)))
""")

COND_BRANCHES = dedent("""\
    import jax.numpy as jnp
    from jax import lax

    x = jnp.ones((4, 3))
    y = lax.cond(x.sum() > 0, lambda v: v.sum(axis=0), lambda v: v, x)
""")

SHARDED_ARGUMENT = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P
    from shapecheck import f32


    def scale(a: f32[(8, 16), P('X', 'Y')]) -> f32[(8, 16), P('X', 'Y')]:
        return a * 2


    mesh = jax.make_mesh((2, 4), ('X', 'Y'))
    with jax.set_mesh(mesh):
        a = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        b = jax.device_put(jnp.ones((8, 16)), P('Y', 'X'))
        ok = scale(a)
        wrong = scale(b)
""")

SHARDED_VALUE = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P
    from shapecheck import f32

    mesh = jax.make_mesh((2, 4), ('X', 'Y'))
    with jax.set_mesh(mesh):
        a = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        flat: f32[(128,), P(('X', 'Y'))] = a.reshape(128)
        rows: f32[(8,), P('Y')] = jnp.sum(a, axis=1)
""")

AUTO_AXES = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P
    from shapecheck import f32

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('X', 'Y'))
    with jax.set_mesh(mesh):
        a = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
        b: f32[(8, 16), P('Y', 'X')] = a
""")

GRADIENT = dedent("""\
    import jax
    import jax.numpy as jnp


    def loss(w, x):
        return (x @ w) ** 2


    w = jnp.zeros((3,))
    x = jnp.ones((5, 3))
    g = jax.grad(loss)(w, x)
    tangent_out = jax.jvp(jnp.sin, (w,), (x,))
""")

FLAX_VARIABLES = dedent("""\
    import jax
    import jax.numpy as jnp
    import flax.linen as nn


    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            return nn.Dense(10)(nn.relu(nn.Dense(64)(x)))


    model = MLP()
    variables = model.init(jax.random.key(0), jnp.ones((1, 784)))
    logits = model.apply(variables, jnp.ones((32, 28, 28)))
    fixed = model.apply(variables, jnp.ones((32, 28, 28)).reshape(32, 784))
""")

RULE = Rule(
    code=Code.ANNOTATION_MISMATCH,
    name="annotation-mismatch",
    summary=(
        "Checks inferred types against declared ones: annotated assignments, returns, the "
        "arguments of calls to annotated functions, and annotated functions run under xmap. "
        "Unknown (`None`), symbolic and `...` parts of either side match anything consistent. "
        "An annotation's sharding (`f32[(8, 16), P('X', 'Y')]`, the `float32[8@X,16@Y]` of "
        "`jax.typeof`) is checked against the inferred split over Explicit mesh axes; an "
        "unknown sharding, or one over Auto axes, is never reported. The trees `jax.tree.map` "
        "maps over: each after the first has the first's structure (or more below its leaves). "
        "Differentiation declares types too: `jax.grad` and `value_and_grad` differentiate a "
        "function with a scalar output, and `jax.jvp` takes a tangent of each primal's shape. "
        "flax's and haiku's `apply` read back the parameters `init` made: an input that would "
        "make one of another shape (a Dense kernel for other features) is refused."
    ),
    why=(
        "Annotations are documentation that readers trust. `z: f32[(2, 7)] = x @ y` claims a "
        "(2, 7) result where the product of (2, 3) and (3, 5) is (2, 5); every line that reads "
        "`z` is then reasoned about with the wrong shape. Catching the contradiction where it "
        "is written keeps the annotations true."
    ),
    wrong=Example(source=WRONG, expected=((6, "SC103"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=RETURN_VALUE, expected=((6, "SC103"),)),
        Example(source=CALL_ARGUMENT, expected=((10, "SC103"),)),
        Example(source=XMAP_BODY, expected=((7, "SC103"),)),
        # A loop's carry must keep its type (JAX raises a TypeError): reported at the body's return.
        Example(source=SCAN_CARRY, expected=((7, "SC103"),)),
        # The branches of cond and switch must return equal types: reported at the call.
        Example(source=COND_BRANCHES, expected=((5, "SC103"),)),
        # A sharding in the annotation, as jax.typeof prints it: float32[8@X,16@Y] is
        # f32[(8, 16), P('X', 'Y')], and an argument split otherwise contradicts it.
        Example(source=SHARDED_ARGUMENT, expected=((16, "SC103"),)),
        # A merged dim `128@(X,Y)` is P(('X', 'Y')); a reduction drops the reduced dim's split.
        Example(source=SHARDED_VALUE, expected=((10, "SC103"),)),
        # Auto axes split no type: on an Auto mesh a declared sharding asks for nothing.
        Example(source=AUTO_AXES),
        # A gradient needs a scalar loss ((5,) here: a mean is missing); a tangent, its primal's shape.
        Example(source=GRADIENT, expected=((11, "SC103"), (12, "SC103"))),
        # Variables made for inputs of 784 features, applied to images of 28 by 28: the first
        # Dense's kernel would be (28, 64), not (784, 64) (flax's ScopeParamShapeError).
        Example(source=FLAX_VARIABLES, expected=((14, "SC103"),)),
    ),
)
