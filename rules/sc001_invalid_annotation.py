"""SC001 invalid-annotation: an annotation outside the named-shape annotation language."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32


    def scale(x: f32[(128, -1)], factor: float) -> f32[(128, 64)]:
        return x * factor


    y = scale(jnp.ones((128, 64)), 0.5)
""")

FIXED = dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32


    def scale(x: f32[(128, 64)], factor: float) -> f32[(128, 64)]:
        return x * factor


    y = scale(jnp.ones((128, 64)), 0.5)
""")

ELLIPSIS_IN_NAMED = dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32

    h: f32[(32,), {'batch': 20, ...: ...}] = jnp.zeros((32,))
""")

NOT_LITERALS = dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32

    n = 16
    a: f32[(n, 3)] = jnp.zeros((16, 3))
    b: f32[(2.5, 3)] = jnp.zeros((2, 3))
    c: f32[(4,), {'heads': 8, 'heads': 8}] = jnp.zeros((4,))
    d: f32[4] = jnp.zeros((4,))
""")

BAD_SHARDINGS = dedent("""\
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P
    from shapecheck import f32

    a: f32[(8, 16), P('X', 'X')] = jnp.zeros((8, 16))
    b: f32[(8,), P('X', 'Y')] = jnp.zeros((8,))
    c: f32[('n', ...), P('X')] = jnp.zeros((8, 16))
    d: f32[P('X', 'Y')] = jnp.zeros((8, 16))
""")

RULE = Rule(
    code=Code.INVALID_ANNOTATION,
    name="invalid-annotation",
    summary=(
        "Checks that every `DTYPE[...]` annotation is in the annotation language: a tuple literal "
        "of dims (non-negative ints, `None`, a symbol such as `'n'`, and at most one `...`), then "
        "optionally a dict literal from axis names to dims, then optionally a sharding `P(...)` "
        "of mesh axis names. Negative or float sizes, variables, calls, `...` as a named-shape "
        "key, duplicate axis names, and a sharding with a mesh axis twice, more entries than "
        "dims or after a `...` are reported, never evaluated."
    ),
    why=(
        "An annotation the checker cannot read checks nothing: `f32[(128, -1)]` looks like "
        "`reshape`'s `-1` but there is no size -1, so the parameter silently becomes unchecked and "
        "every call of `scale` passes whatever shape it is given. The annotations are never "
        "evaluated, so `f32[(n, 3)]` with `n = 16` defined above cannot be read either: write the "
        "size (`16`) or a symbol in quotes (`'n'`)."
    ),
    wrong=Example(source=WRONG, expected=((5, "SC001"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=ELLIPSIS_IN_NAMED, expected=((4, "SC001"),)),
        Example(
            source=NOT_LITERALS,
            expected=((5, "SC001"), (6, "SC001"), (7, "SC001"), (8, "SC001")),
        ),
        # A sharding spells what jax.typeof prints: each mesh axis splits one dim at most (JAX's
        # DuplicateSpecError), one entry per dim at most, every dim written, after the shape.
        Example(
            source=BAD_SHARDINGS,
            expected=((5, "SC001"), (6, "SC001"), (7, "SC001"), (8, "SC001")),
        ),
    ),
)
