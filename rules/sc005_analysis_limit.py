"""SC005 analysis-limit: part of a file was not analysed because it reached a bound."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.config import DEFAULT_MAX_FILE_SIZE
from shapecheck.parsing import MAX_DEPTH
from shapecheck.rules.rule import Example, Rule

# Generated, not written out: the point of the example is its size.
WRONG = dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((3,))
    total = {terms}
""").format(terms=" + ".join(["x"] * (MAX_DEPTH + 20)))

FIXED = dedent(f"""\
    import jax.numpy as jnp

    x = jnp.ones((3,))
    total = {MAX_DEPTH + 20} * x
""")

RULE = Rule(
    code=Code.ANALYSIS_LIMIT,
    name="analysis-limit",
    summary=(
        f"Reports code the checker did not analyse because it reached one of its bounds: an "
        f"expression nested more than {MAX_DEPTH:,} levels deep (from that level on its value is "
        f"unknown), a file that took longer than the time limit per file or ran out of memory, "
        f"or a file over the size bound (`max-file-size`, {DEFAULT_MAX_FILE_SIZE // 1_000_000} MB by default), which is not read at "
        f"all. Everything found before the bound is still reported. The run exits with status 2: "
        f"the file is not fully checked."
    ),
    why=(
        "A checker that crashes, hangs or silently skips a file on deeply nested code (usually "
        "generated) cannot be trusted on the rest: a clean result must mean the code was checked. "
        f"Python itself does not compile expressions nested much more than {MAX_DEPTH:,} levels "
        "deep at its default recursion limit (such code is usually a generated left-nested "
        "chain like `a + b + c + ...`). Rewrite such code with a "
        "reduction (`sum`, `jnp.stack(...).sum(0)`, a loop), or silence the line with "
        "`# shapecheck: ignore[SC005]` to accept that it is unchecked."
    ),
    wrong=Example(source=WRONG, expected=((4, "SC005"),)),
    fixed=Example(source=FIXED),
)
