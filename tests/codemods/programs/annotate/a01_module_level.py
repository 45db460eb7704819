"""Module-level values: those with a known dtype and shape get annotated; those whose dtype is
chosen at run time keep no annotation."""
import sys

import jax
import jax.numpy as jnp

DTYPE = getattr(jnp, sys.argv[-1])

x = jnp.ones((2, 3), dtype=jnp.float32)
y = x * 2.0
z = jnp.zeros((3, 4), jnp.int32) + 1
product = x @ jnp.ones((3, 5), dtype=jnp.float32)
total = product.sum()
flags = x > 1.0
w = jnp.ones((2, 3), dtype=DTYPE)
noise = jax.random.normal(jax.random.PRNGKey(0), (4, 5), dtype=DTYPE)
count = 3
print(y, z, product, total, flags, w, noise, count)
