"""SC301 dtype-mismatch: an inferred dtype (JAX's promotion rules) that contradicts the annotation."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp
    from shapecheck import i32

    counts: i32[(3,)] = jnp.ones(3) * 0.5
""")

FIXED = dedent("""\
    import jax.numpy as jnp
    from shapecheck import i32

    counts: i32[(3,)] = (jnp.ones(3) * 0.5).astype(jnp.int32)
""")

RETURN_VALUE = dedent("""\
    import jax.numpy as jnp
    from shapecheck import i32


    def average_count(counts: i32[(5,)]) -> i32[()]:
        return jnp.mean(counts)
""")

CALL_ARGUMENT = dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32


    def normalize(x: f32[('n',)]):
        return x / jnp.sum(x)


    weights = normalize(jnp.arange(4))
""")

JAXTYPING = dedent("""\
    import jax.numpy as jnp
    from jaxtyping import Array, Int


    def histogram(labels: Int[Array, "n"]):
        return jnp.bincount(labels, length=10)


    histogram(jnp.linspace(0, 9, 20))
""")

# What JAX accepts is never reported: a Python number adapts to the array it meets, jaxtyping's
# Shaped and Array accept any dtype, and 64-bit requests hold when the program enables x64.
ADAPTS = dedent("""\
    import jax.numpy as jnp
    from jaxtyping import Array, Float, Shaped
    from shapecheck import f16, f32, f64


    def scale(x: f32[()]):
        return x * 2


    half: f16[(3,)] = jnp.ones(3, dtype=jnp.float16) * 2.0
    scale(jnp.asarray(3))
    precise: f64[(3,)] = jnp.zeros(3, dtype=jnp.float64)
    anything: Shaped[Array, "3"] = jnp.arange(3)
    mask_sum: Float[Array, ""] = jnp.mean(jnp.arange(3) > 1)
""")

LAX_OPERATORS = dedent("""\
    import jax.numpy as jnp
    from jax import lax

    counts = jnp.zeros((8,), jnp.int32)
    scale = jnp.ones((8,), jnp.float32)
    ok = jnp.multiply(counts, scale)
    wrong = lax.mul(counts, scale)
    angle = lax.sin(counts)
""")

FLOAT_INDEX = dedent("""\
    import jax.numpy as jnp

    table = jnp.zeros((64, 32))
    positions = jnp.arange(20) / 2
    rows = table[positions]
    labels = jnp.zeros((8,))
    picked = jnp.take_along_axis(jnp.zeros((8, 10)), labels[:, None], axis=-1)
    fixed = table[positions.astype(jnp.int32)]
""")

RULE = Rule(
    code=Code.DTYPE_MISMATCH,
    name="dtype-mismatch",
    summary=(
        "Checks the dtype JAX gives a value against its annotation (`i32[...]`, `f32[...]`, "
        "jaxtyping's `Float[...]`, `Int[...]`, `Float32[...]`): at annotated assignments, returns "
        "and the arguments of calls to annotated functions. Dtypes follow JAX's promotion lattice: "
        "Python numbers are weakly typed and take the dtype of the array they meet; `/`, "
        "`jnp.sqrt`, `jnp.mean` of ints give floats; comparisons give bool; `argmax` gives the "
        "default int; `jnp.ones(3)` is the default float. With `jax_enable_x64` off (JAX's "
        "default) 64-bit types are 32-bit; unless `x64` is set in `[tool.shapecheck]`, only what "
        "holds in both modes is reported. An unknown dtype is never reported. `jax.lax`'s "
        "operators convert nothing: `lax.add` and its kin take operands of one dtype (a Python "
        "number is of its kind's default type), `lax.select` cases of one dtype and a boolean "
        "or integer predicate, and each operator only the kinds it is defined for (`lax.sin` "
        "and `lax.floor` floats, `lax.add` no booleans). An index is an integer or a boolean "
        "mask: JAX refuses floats in `x[idx]`, `x.at[idx]`, `jnp.take`, `jnp.take_along_axis` "
        "and segment ids, where no annotation is needed to know it."
    ),
    why=(
        "A dtype annotation is a promise readers and jaxtyping's run-time checks rely on. "
        "`counts: i32[(3,)] = jnp.ones(3) * 0.5` holds floats: integer code that reads `counts` "
        "(indexing, bincount, equality) then silently rounds, fails under jaxtyping, or "
        "promotes everything it meets to float."
    ),
    wrong=Example(source=WRONG, expected=((4, "SC301"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=RETURN_VALUE, expected=((6, "SC301"),)),
        Example(source=CALL_ARGUMENT, expected=((9, "SC301"),)),
        Example(source=JAXTYPING, expected=((9, "SC301"),)),
        Example(source=ADAPTS),
        # jax.numpy promotes; lax refuses: one dtype for both operands, floats for sin.
        Example(source=LAX_OPERATORS, expected=((7, "SC301"), (8, "SC301"))),
        # Positions divided into floats, labels loaded as floats: JAX gathers with integers only.
        Example(source=FLOAT_INDEX, expected=((5, "SC301"), (7, "SC301"))),
    ),
)
