"""SC006 unused-suppression: a `# shapecheck: ignore` comment that silences nothing (ruff's RUF100)."""

from __future__ import annotations

from textwrap import dedent
from typing import TYPE_CHECKING

from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic, Severity
from shapecheck.rules.rule import Example, Rule

if TYPE_CHECKING:
    from shapecheck.fixes import Fix, Source

WRONG = dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((3, 4)) + jnp.ones((4,))  # shapecheck: ignore[SC101]
""")

FIXED = dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((3, 4)) + jnp.ones((4,))
""")

PARTLY_USED = dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((3, 4)) + jnp.ones((5,))  # shapecheck: ignore[SC101, SC102]
    y = jnp.ones((3, 4)) + jnp.ones((5,))  # shapecheck: ignore[SC101]
""")

BARE = dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((3, 4))  # shapecheck: ignore
""")

KEPT_ON_PURPOSE = dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((3, 4))  # shapecheck: ignore[SC101, SC006]
""")

RULE = Rule(
    code=Code.UNUSED_SUPPRESSION,
    name="unused-suppression",
    summary=(
        "Reports a `# shapecheck: ignore[...]` comment, or one code in it, that silences "
        "nothing on its line: the diagnostic it was written for is gone, or the code is not a "
        "shapecheck code. A bare `# shapecheck: ignore` is reported when its line has nothing "
        "to silence. Codes that the configuration does not select are not reported, and files "
        "that could not be fully checked (SC004, SC005) are not looked at."
    ),
    why=(
        "A suppression outlives the problem it was written for: once the line is fixed, it "
        "silently hides the next mistake made there. After `shapecheck check --add-noqa` has "
        "silenced a backlog, this code says which comments can go as the backlog is fixed. "
        "`# shapecheck: ignore[SC006]` on the line keeps a comment on purpose."
    ),
    wrong=Example(source=WRONG, expected=((3, "SC006"),)),
    fixed=Example(source=FIXED),
    severity=Severity.WARNING,
    more=(
        Example(source=PARTLY_USED, expected=((3, "SC006"),)),
        Example(source=BARE, expected=((3, "SC006"),)),
        Example(source=KEPT_ON_PURPOSE),
    ),
)


def fix(diagnostic: Diagnostic, source: Source) -> Fix | None:
    """Delete the unused codes from the comment, or the comment (safe: nothing it silenced is
    reported, so deleting it changes no result)."""
    import libcst as cst

    from shapecheck.fixes import Applicability, Fix
    from shapecheck.suppression import unused_codes, without

    title = "Remove the unused suppression"
    for comment in source.nodes_on_line(diagnostic.span.line, cst.Comment):
        assert isinstance(comment, cst.Comment)
        new = without(comment.value, unused_codes(diagnostic.message))
        if new == comment.value:
            continue
        if new is not None:
            return Fix(title, Applicability.SAFE, ((comment, comment.with_changes(value=new)),))
        parent = source.parents.get(comment)
        if isinstance(parent, cst.TrailingWhitespace):
            bare = parent.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)
            return Fix(title, Applicability.SAFE, ((parent, bare),))
        if isinstance(parent, cst.EmptyLine):
            return Fix(title, Applicability.SAFE, ((parent, cst.RemovalSentinel.REMOVE),))
    return None
