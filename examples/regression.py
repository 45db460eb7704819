"""Linear regression with named axes, from the xmap API documentation.

The einsum spec `{in_features},{in_features}->{}` contracts only `in_features`: the
`batch` and `out_features` axes are in both inputs and the output, so they broadcast
without being mentioned. The loss is reduced over every axis, so `out_axes={}`.
shapecheck finds nothing to report here.
"""
import jax
import jax.numpy as jnp
from jax.experimental.maps import xmap
from shapecheck import f32


def regression_loss(x: f32[(), {'batch': 256, 'in_features': 32}],
                    y: f32[(), {'batch': 256, 'out_features': 4}],
                    w: f32[(), {'in_features': 32, 'out_features': 4}],
                    b: f32[(), {'out_features': 4}]) -> f32[()]:
    y_pred = jnp.einsum('{in_features},{in_features}->{}', x, w) + b
    error = jnp.sum((y - y_pred) ** 2, axis='out_features')
    return jnp.mean(error, axis='batch')


loss = xmap(regression_loss,
            in_axes=(['batch', 'in_features', ...],
                     ['batch', 'out_features', ...],
                     ['in_features', 'out_features', ...],
                     ['out_features', ...]),
            out_axes={})

key = jax.random.PRNGKey(0)
x = jax.random.normal(key, (256, 32))
true_w = jnp.ones((32, 4))
y = x @ true_w
w = jnp.zeros((32, 4))
b = jnp.zeros((4,))
print(loss(x, y, w, b))
