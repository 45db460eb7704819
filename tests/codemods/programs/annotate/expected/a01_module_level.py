"""Module-level values: those with a known dtype and shape get annotated; those whose dtype is
chosen at run time keep no annotation."""
import sys

import jax
import jax.numpy as jnp
from shapecheck import bool_, f32, i32

DTYPE = getattr(jnp, sys.argv[-1])

x: f32[(2, 3)] = jnp.ones((2, 3), dtype=jnp.float32)
y: f32[(2, 3)] = x * 2.0
z: i32[(3, 4)] = jnp.zeros((3, 4), jnp.int32) + 1
product: f32[(2, 5)] = x @ jnp.ones((3, 5), dtype=jnp.float32)
total: f32[()] = product.sum()
flags: bool_[(2, 3)] = x > 1.0
w = jnp.ones((2, 3), dtype=DTYPE)
noise = jax.random.normal(jax.random.PRNGKey(0), (4, 5), dtype=DTYPE)
count = 3
print(y, z, product, total, flags, w, noise, count)
