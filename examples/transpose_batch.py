"""Per-example feature normalisation, mapped over a batch with xmap.

`normalize` sees one example at a time (the batch is the named axis 'batch') and is
annotated with its named shape. The xmap that applies it forgets to say where 'batch'
goes in the result: `out_axes=[...]` places no named axis, so the normalised batch has
nowhere to go. shapecheck reports the out_axes mapping; `out_axes=['batch', ...]` (or
`{1: 'batch'}` for a transposed result) is the fix.
"""
import jax.numpy as jnp
from jax.experimental.maps import xmap
from shapecheck import f32


def normalize(x: f32[(64,), {'batch': 32}]) -> f32[(64,), {'batch': 32}]:
    centered = x - jnp.mean(x)
    return centered / jnp.sqrt(jnp.mean(centered ** 2) + 1e-6)


features: f32[(32, 64)] = jnp.ones((32, 64))
per_example = xmap(normalize,
                   in_axes=['batch', ...],
                   out_axes=[...])
normalized = per_example(features)

transposed = xmap(normalize, in_axes=['batch', ...], out_axes={1: 'batch'})(features)
columns: f32[(64, 32)] = transposed
