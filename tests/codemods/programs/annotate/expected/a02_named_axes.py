"""A function whose parameters declare fully known named shapes: its locals and its return get
annotated with named axes; the xmap that calls it and its result too."""
import jax.numpy as jnp
from jax.experimental.maps import xmap
from shapecheck import f32


def scores(q: f32[(4,), {'batch': 8, 'heads': 2}], k: f32[(4,), {'heads': 2, 'keys': 6}]) -> f32[(), {'batch': 8, 'heads': 2}]:
    logits: f32[(), {'batch': 8, 'heads': 2, 'keys': 6}] = jnp.einsum('d{batch,heads},d{heads,keys}->{batch,heads,keys}', q, k)
    scaled: f32[(), {'batch': 8, 'heads': 2, 'keys': 6}] = logits / 2.0
    pooled: f32[(), {'batch': 8, 'heads': 2}] = jnp.sum(scaled, axis='keys')
    return pooled


queries: f32[(8, 2, 4)] = jnp.ones((8, 2, 4), dtype=jnp.float32)
keys: f32[(2, 6, 4)] = jnp.ones((2, 6, 4), dtype=jnp.float32)
pooled: f32[(8, 2)] = xmap(scores, in_axes=(['batch', 'heads', ...], ['heads', 'keys', ...]),
              out_axes=['batch', 'heads', ...])(queries, keys)
