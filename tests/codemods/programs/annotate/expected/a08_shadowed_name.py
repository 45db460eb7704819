"""`f32` means jnp.float32 in this file, so no f32 annotation is written (a message says so);
the i32 ones still are, with their import."""
import jax.numpy as jnp
from shapecheck import i32

f32 = jnp.float32

x = jnp.ones((2, 3), dtype=f32)
n: i32[(6,)] = jnp.arange(6, dtype=jnp.int32)
m: i32[(6,)] = n * 2
