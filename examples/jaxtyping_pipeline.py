"""A small image pipeline annotated with jaxtyping, checked by shapecheck.

jaxtyping's `Float[Array, "batch height width"]` annotations mean positional shapes;
shapecheck binds the symbols across each signature. The pooling and flattening steps
are consistent, but the classifier head was sized for 28x28 inputs, not 32x32: the
matrix product contracts 256 pooled features with a 196-row weight.
"""
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float


def pool(images: Float[Array, "batch 32 32"]) -> Float[Array, "batch 16 16"]:
    return images.reshape((images.shape[0], 16, 2, 16, 2)).mean(axis=(2, 4))


def flatten(x: Float[Array, "batch h w"]) -> Float[Array, "batch features"]:
    return x.reshape((x.shape[0], -1))


def classify(features, w, b):
    return jnp.dot(features, w) + b


key = jax.random.PRNGKey(0)
images = jax.random.uniform(key, (8, 32, 32))
w = jnp.zeros((196, 10))
b = jnp.zeros((10,))
logits = classify(flatten(pool(images)), w, b)
print(logits.shape)
