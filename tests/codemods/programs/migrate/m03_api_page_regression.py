"""The xmap API page's linear regression: einsum braces and reductions over axis names, with the
module imported as `import jax.experimental.maps as maps`."""
import jax
import jax.numpy as jnp
import jax.experimental.maps as maps


def regression_loss(x, y, w, b):
    # Contract over in_features. Batch and out_features are present in
    # both inputs and output, so they don't need to be mentioned
    y_pred = jnp.einsum('{in_features},{in_features}->{}', x, w) + b
    error = jnp.sum((y - y_pred) ** 2, axis='out_features')
    return jnp.mean(error, axis='batch')


xmap_loss = maps.xmap(regression_loss,
                      in_axes=(['batch', 'in_features', ...],
                               ['batch', 'out_features', ...],
                               ['in_features', 'out_features', ...],
                               ['out_features', ...]),
                      out_axes={})  # Loss is reduced over all axes, including batch!

key = jax.random.PRNGKey(0)
x = jax.random.normal(key, (32, 8))
true_w = jnp.ones((8, 4))
y = x @ true_w
w = jnp.full((8, 4), 0.5)
b = jnp.zeros((4,))
print(xmap_loss(x, y, w, b))
print(jax.grad(xmap_loss, argnums=2)(x, y, w, b))
