"""Module-level values: those with a known dtype and shape get annotated; `jnp.ones` without a
dtype (float32 or float64 depending on jax's x64 flag) and random values keep no annotation."""
import jax
import jax.numpy as jnp

x = jnp.ones((2, 3), dtype=jnp.float32)
y = x * 2.0
z = jnp.zeros((3, 4), jnp.int32) + 1
product = x @ jnp.ones((3, 5), dtype=jnp.float32)
total = product.sum()
flags = x > 1.0
w = jnp.ones((2, 3))
noise = jax.random.normal(jax.random.PRNGKey(0), (4, 5))
count = 3
print(y, z, product, total, flags, w, noise, count)
