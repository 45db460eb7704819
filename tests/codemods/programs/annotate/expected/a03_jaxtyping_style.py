"""A file written with jaxtyping gets jaxtyping annotations (Float32[Array, "8 10"]), never a
second style; the dtype names it needs are imported beside the ones it has."""
import jax.numpy as jnp
from jaxtyping import Array, Float32, Int32


def affine(x: Float32[Array, "8 16"], w: Float32[Array, "16 10"]) -> Float32[Array, "8 10"]:
    y: Float32[Array, "8 10"] = x @ w
    return jnp.maximum(y, 0.0)


inputs: Float32[Array, "8 16"] = jnp.ones((8, 16), dtype=jnp.float32)
weights: Float32[Array, "16 10"] = jnp.zeros((16, 10), dtype=jnp.float32)
labels: Int32[Array, "8"] = jnp.zeros((8,), dtype=jnp.int32)
out: Float32[Array, "8 10"] = affine(inputs, weights)
