"""The xmap tutorial's named MLP: pdot, psum/pmean, one_hot and logsumexp over names, then the
same loss with batch, model and batch+model parallelism over meshes of the 8 CPU devices."""
import jax.numpy as jnp
from jax import lax
from jax.nn import one_hot, relu
from jax.scipy.special import logsumexp


def named_predict(w1, w2, image):
    hidden = relu(lax.pdot(image, w1, 'inputs'))
    logits = lax.pdot(hidden, w2, 'hidden')
    return logits - logsumexp(logits, 'classes')


def named_loss(w1, w2, images, labels):
    predictions = named_predict(w1, w2, images)
    num_classes = lax.psum(1, 'classes')
    targets = one_hot(labels, num_classes, axis='classes')
    losses = lax.psum(targets * predictions, 'classes')
    return -lax.pmean(losses, 'batch')


w1 = jnp.arange(64 * 32, dtype=jnp.float32).reshape((64, 32)) / 2048.0
w2 = jnp.cos(jnp.arange(32 * 10, dtype=jnp.float32)).reshape((32, 10))
images = jnp.sin(jnp.arange(16 * 64, dtype=jnp.float32)).reshape((16, 64))
labels = jnp.arange(16, dtype=jnp.int32) % 10

from jax.experimental.maps import xmap
in_axes = [['inputs', 'hidden', ...],
           ['hidden', 'classes', ...],
           ['batch', 'inputs', ...],
           ['batch', ...]]
loss = xmap(named_loss, in_axes=in_axes, out_axes=[...])
print(loss(w1, w2, images, labels))

import jax
import numpy as np
from jax.sharding import Mesh
loss = xmap(named_loss, in_axes=in_axes, out_axes=[...],
            axis_resources={'batch': 'x'})
devices = np.array(jax.local_devices())
with Mesh(devices, ('x',)):
    print(loss(w1, w2, images, labels))

loss = xmap(named_loss, in_axes=in_axes, out_axes=[...],
            axis_resources={'hidden': 'x'})
with Mesh(devices, ('x',)):
    print(loss(w1, w2, images, labels))

loss = xmap(named_loss, in_axes=in_axes, out_axes=[...],
            axis_resources={'batch': 'x', 'hidden': 'y'})
devices = np.array(jax.local_devices()).reshape((4, 2))
with Mesh(devices, ('x', 'y')):
    print(loss(w1, w2, images, labels))
