"""An xmap over a body that uses no axis name: only the xmap import moves; jax.numpy and jax.nn
stay jax's. The comments and the layout of the imports are kept."""
import jax.numpy as jnp  # positional numpy is enough here
from jax.experimental.maps import (  # the removed module
    xmap,  # the only name used
)
from jax.nn import softmax


def head_attention(x, wq, wk, wv):
    q = x @ wq
    k = x @ wk
    v = x @ wv
    scores = jnp.einsum('qd,kd->qk', q, k) / jnp.sqrt(4.0)
    return softmax(scores, axis=-1) @ v


x = jnp.sin(jnp.arange(2 * 5 * 8.0)).reshape((2, 5, 8))
wq = jnp.cos(jnp.arange(3 * 8 * 4.0)).reshape((3, 8, 4))
wk = jnp.sin(jnp.arange(3 * 8 * 4.0) / 3).reshape((3, 8, 4))
wv = jnp.cos(jnp.arange(3 * 8 * 4.0) / 5).reshape((3, 8, 4))
attend = xmap(head_attention,
              in_axes=(['batch', ...], ['heads', ...], ['heads', ...], ['heads', ...]),
              out_axes=['batch', 'heads', ...])
out = attend(x, wq, wk, wv)
print(out.shape, out.sum())
