"""SC004 syntax-error: a file that does not parse is reported, never a crash."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((3, 4))
    y = jnp.ones((3 4))
""")

FIXED = dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((3, 4))
    y = jnp.ones((3, 4))
""")

DOUBLED_OPERATOR = dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((3, 4))
    y = x @@ x.T
""")

RULE = Rule(
    code=Code.SYNTAX_ERROR,
    name="syntax-error",
    summary=(
        "Reports a file that is not valid Python, at the place where the parser stops, as an "
        "ordinary diagnostic; the other files are still checked."
    ),
    why=(
        "A pre-commit hook or CI step that crashes on one broken file hides every other "
        "finding, and its traceback does not say where the file is broken. `jnp.ones((3 4))` "
        "has lost its comma: the checker says which line, and checks nothing else in that file."
    ),
    wrong=Example(source=WRONG, expected=((4, "SC004"),)),
    fixed=Example(source=FIXED),
    more=(Example(source=DOUBLED_OPERATOR, expected=((4, "SC004"),)),),
)
