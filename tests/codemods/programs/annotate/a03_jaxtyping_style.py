"""A file written with jaxtyping gets jaxtyping annotations (Float32[Array, "8 10"]), never a
second style; the dtype names it needs are imported beside the ones it has."""
import jax.numpy as jnp
from jaxtyping import Array, Float32


def affine(x: Float32[Array, "8 16"], w: Float32[Array, "16 10"]):
    y = x @ w
    return jnp.maximum(y, 0.0)


inputs = jnp.ones((8, 16), dtype=jnp.float32)
weights = jnp.zeros((16, 10), dtype=jnp.float32)
labels = jnp.zeros((8,), dtype=jnp.int32)
out = affine(inputs, weights)
