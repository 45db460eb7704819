"""Multi-head self-attention over named 'batch' and 'heads' axes.

The projections are per head, so xmap maps the leading dims of the activations and of
the weights to named axes. There is one mistake: the key projection was built for 6
heads while the query and value projections have 8, so the axis 'heads' would have
two sizes at once. shapecheck reports it at the call that passes the key weights.
"""
import jax
import jax.numpy as jnp
from jax.experimental.maps import xmap
from jax.nn import softmax

batch, seq, model, heads, head_dim = 4, 10, 128, 8, 16
key = jax.random.PRNGKey(0)
x = jax.random.normal(key, (4, 10, 128))
wq = jax.random.normal(key, (8, 128, 16))
wk = jax.random.normal(key, (6, 128, 16))
wv = jax.random.normal(key, (8, 128, 16))


def head_attention(x, wq, wk, wv):
    q = x @ wq
    k = x @ wk
    v = x @ wv
    scores = jnp.einsum('qd,kd->qk', q, k) / jnp.sqrt(16.0)
    return softmax(scores, axis=-1) @ v


attend = xmap(head_attention,
              in_axes=(['batch', ...], ['heads', ...], ['heads', ...], ['heads', ...]),
              out_axes=['batch', 'heads', ...])
out = attend(x, wq, wk, wv)
print(out.shape)
