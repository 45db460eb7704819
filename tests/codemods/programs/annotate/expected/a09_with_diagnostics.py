"""A file with diagnostics: annotating keeps exactly the same ones (the conflicting sizes are
unknown downstream, so nothing is written there), and the values before them get annotated."""
import jax.numpy as jnp
from shapecheck import f32

a: f32[(3, 4)] = jnp.ones((3, 4), dtype=jnp.float32)
b: f32[(5, 4)] = jnp.ones((5, 4), dtype=jnp.float32)
c = a + b
d = c * 2.0
e = a.reshape((5, 5))
f: f32[(4, 3)] = a.T
