"""SC104 contraction-mismatch: contracted dims of a product that differ."""

from __future__ import annotations

from textwrap import dedent

from shapecheck.codes import Code
from shapecheck.rules.rule import Example, Rule

WRONG = dedent("""\
    import jax.numpy as jnp
    from jax.nn import relu

    images = jnp.zeros((128, 784))
    w1 = jnp.zeros((512, 784))
    hiddens = relu(jnp.dot(images, w1))
""")

FIXED = dedent("""\
    import jax.numpy as jnp
    from jax.nn import relu

    images = jnp.zeros((128, 784))
    w1 = jnp.zeros((784, 512))
    hiddens = relu(jnp.dot(images, w1))
""")

MATMUL_OPERATOR = dedent("""\
    import jax.numpy as jnp


    def attention_scores(q, k):
        return q @ k


    q = jnp.ones((16, 64))
    k = jnp.ones((16, 64))
    s = attention_scores(q, k)
""")

EINSUM_LETTER = dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((20, 5, 7))
    y = jnp.ones((8, 11))
    z = jnp.einsum('bnk,km->bnm', x, y)
""")

# shard_map: inside, `x` is its (4, 4) block; an unsplit `w` keeps 16 rows. Splitting w's rows
# over 'model' too, and psum-ing the partial products, is the tensor-parallel form.
SHARD_MAP = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))


    def project(x, w):
        return jax.lax.psum(jnp.dot(x, w), "model")


    x, w = jnp.ones((8, 16)), jnp.ones((16, 32))
    fixed = jax.shard_map(project, mesh=mesh, in_specs=(P("data", "model"), P("model", None)), out_specs=P("data"))(x, w)
    wrong = jax.shard_map(project, mesh=mesh, in_specs=(P("data", "model"), P()), out_specs=P("data"))(x, w)
""")

# Convolutions contract the input's features with the kernel's 'I' dim (per group), and
# dot_product_attention contracts query and key over the head size (JAX: ValueError).
CONVOLUTION = dedent("""\
    import jax
    import jax.numpy as jnp
    from jax import lax

    images = jnp.zeros((8, 28, 28, 1))
    kernel = jnp.zeros((5, 5, 3, 32))
    h = lax.conv_general_dilated(images, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    q, k = jnp.zeros((2, 10, 8, 64)), jnp.zeros((2, 12, 8, 32))
    out = jax.nn.dot_product_attention(q, k, k)
""")

RULE = Rule(
    code=Code.CONTRACTION_MISMATCH,
    name="contraction-mismatch",
    summary=(
        "Checks that the dims a product contracts agree: the last dim of the left operand and "
        "the second-to-last of the right one for `dot`, `matmul` and `@`, the `axes` of "
        "`tensordot`, and each letter repeated across `einsum` operands. `jnp.linalg.solve`'s "
        "matrix rows and right-hand side; the square matrices `inv`, `det` and friends take. A convolution "
        "(`lax.conv_general_dilated`, `lax.conv`) contracts the input's features with the "
        "kernel's in-features: with `feature_group_count` groups the features must divide into "
        "them, and the kernel's out-features (`batch_group_count` too) must be a multiple of the "
        "groups. `jax.nn.dot_product_attention` contracts query and key over the head size: value "
        "has key's shape, query key's batch, and the query heads are a multiple of the key heads. "
        "The other products: `inner` and `vecdot` (one size for the contracted dims), `matvec` "
        "and `vecmat`, `jnp.linalg.multi_dot` (each array's last dim the next one's first), "
        "`lstsq`'s and `jax.scipy.linalg`'s right-hand sides (the matrix's rows), the square "
        "matrices of `matrix_power`, `eig`, `eigvals`, `expm` and `cho_factor`, and "
        "`jax.random.multivariate_normal`'s cov `(..., n, n)` for its mean's n."
    ),
    why=(
        "A weight matrix stored as (512, 784) instead of (784, 512) is the classic first bug of "
        "a hand-written network: `jnp.dot(images, w1)` with 128 images of 784 pixels contracts "
        "784 against 512 and fails only when the step runs. When the two sizes happen to be "
        "equal the transposed weight is silently used instead, so the mismatch is worth "
        "catching as soon as it is certain."
    ),
    wrong=Example(source=WRONG, expected=((6, "SC104"),)),
    fixed=Example(source=FIXED),
    more=(
        Example(source=MATMUL_OPERATOR, expected=((5, "SC104"),)),
        Example(source=EINSUM_LETTER, expected=((5, "SC104"),)),
        Example(source=SHARD_MAP, expected=((10, "SC104"),)),
        Example(source=CONVOLUTION, expected=((7, "SC104"), (9, "SC104"))),
    ),
)
