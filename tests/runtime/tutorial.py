"""The xmap tutorial's toy network, in its named form and its positional form (shared by tests)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from shapecheck.runtime import lax, nn, special

IN_AXES: Any = [["inputs", "hidden", ...], ["hidden", "classes", ...], ["batch", "inputs", ...], ["batch", ...]]


def named_predict(w1: Any, w2: Any, image: Any) -> Any:
    hidden = nn.relu(lax.pdot(image, w1, "inputs"))
    logits = lax.pdot(hidden, w2, "hidden")
    return logits - special.logsumexp(logits, "classes")


def named_loss(w1: Any, w2: Any, images: Any, labels: Any) -> Any:
    predictions = named_predict(w1, w2, images)
    num_classes = lax.psum(1, "classes")
    targets = nn.one_hot(labels, num_classes, axis="classes")
    losses = lax.psum(targets * predictions, "classes")
    return -lax.pmean(losses, "batch")


def predict(w1: Any, w2: Any, images: Any) -> Any:
    hiddens = jax.nn.relu(jnp.dot(images, w1))
    logits = jnp.dot(hiddens, w2)
    return logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)


def loss(w1: Any, w2: Any, images: Any, labels: Any) -> Any:
    predictions = predict(w1, w2, images)
    targets = jax.nn.one_hot(labels, predictions.shape[-1])
    return -jnp.mean(jnp.sum(targets * predictions, axis=1), axis=0)


def inputs(batch: int = 16, features: int = 8, hidden: int = 8, classes: int = 4) -> tuple[Any, ...]:
    keys = jax.random.split(jax.random.key(0), 4)
    return (jax.random.normal(keys[0], (features, hidden)) / 3,
            jax.random.normal(keys[1], (hidden, classes)) / 3,
            jax.random.normal(keys[2], (batch, features)),
            jax.random.randint(keys[3], (batch,), 0, classes))
