"""SC003 invalid-einsum-spec: an einsum spec that is malformed or does not fit its operands."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp


    def project(x, w):
        return jnp.einsum('bd,de->bf', x, w)


    x = jnp.ones((32, 64))
    w = jnp.ones((64, 16))
    y = project(x, w)
""")

FIXED = dedent("""\
    import jax.numpy as jnp


    def project(x, w):
        return jnp.einsum('bd,de->be', x, w)


    x = jnp.ones((32, 64))
    w = jnp.ones((64, 16))
    y = project(x, w)
""")

THREE_NAMED_OPERANDS = dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap


    def mlp(x, w1, w2):
        return jnp.einsum('{inputs},{inputs,hidden},{hidden,out}->{out}', x, w1, w2)


    x = jnp.ones((128, 784))
    w1 = jnp.ones((784, 512))
    w2 = jnp.ones((512, 10))
    f = xmap(mlp, in_axes=(['batch', 'inputs', ...], ['inputs', 'hidden', ...], ['hidden', 'out', ...]), out_axes=['batch', 'out', ...])
    y = f(x, w1, w2)
""")

OPERAND_COUNT = dedent("""\
    import jax.numpy as jnp

    a = jnp.ones((3, 4))
    b = jnp.ones((4, 5))
    c = jnp.ones((5, 6))
    d = jnp.einsum('ij,jk->ik', a, b, c)
""")

EINOPS_ONE_SIDED = dedent("""\
    import einops
    import jax.numpy as jnp

    tokens = jnp.zeros((8, 128, 512))
    pooled = einops.rearrange(tokens, 'b t d -> b d')
""")

EINOPS_UNDERDETERMINED = dedent("""\
    import einops
    import jax.numpy as jnp

    tokens = jnp.zeros((8, 128, 512))
    heads = einops.rearrange(tokens, 'b t (h d) -> b h t d')
""")

RULE = Rule(
    code=Code.INVALID_EINSUM_SPEC,
    name="invalid-einsum-spec",
    summary=(
        "Checks `einsum` specs: letters for positional axes, `{a,b}` after an operand's letters "
        "for its named axes, one term per operand, output letters and names that appear in some "
        "input, and at most two operands when named axes appear."
    ),
    why=(
        "`'bd,de->bf'` asks for an output axis `f` that no operand has, so the call fails when "
        "it runs, after the model was built and the data loaded. The named-axis einsum of the "
        "removed xmap only supported two operands; a three-operand spec with braces has no "
        "defined meaning, so split it into two contractions."
    ),
    wrong=Example(source=WRONG, expected=((5, "SC003"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=THREE_NAMED_OPERANDS, expected=((6, "SC003"),)),
        Example(source=OPERAND_COUNT, expected=((6, "SC003"),)),
        Example(source=EINOPS_ONE_SIDED, expected=((5, "SC003"),)),
        Example(source=EINOPS_UNDERDETERMINED, expected=((5, "SC003"),)),
    ),
)
