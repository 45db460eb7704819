"""A two-layer classifier written with named axes and run through xmap.

The tutorial's toy network: `named_predict` never mentions axis positions, `named_loss`
contracts and reduces by name, and `xmap` turns the positional arrays into named ones.
The same function then runs with batch and model parallelism over a (4, 2) mesh.
shapecheck finds nothing to report here.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental.maps import xmap
from jax.nn import one_hot, relu
from jax.scipy.special import logsumexp
from jax.sharding import Mesh


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


w1 = jnp.zeros((784, 512))
w2 = jnp.zeros((512, 10))
images = jnp.zeros((128, 784))
labels = jnp.zeros(128, dtype=jnp.int32)

in_axes = [['inputs', 'hidden', ...],
           ['hidden', 'classes', ...],
           ['batch', 'inputs', ...],
           ['batch', ...]]

loss = xmap(named_loss, in_axes=in_axes, out_axes=[...])
print(loss(w1, w2, images, labels))

parallel_loss = xmap(named_loss, in_axes=in_axes, out_axes=[...],
                     axis_resources={'batch': 'x', 'hidden': 'y'})
devices = np.array(jax.local_devices()).reshape((4, 2))
with Mesh(devices, ('x', 'y')):
    print(parallel_loss(w1, w2, images, labels))
