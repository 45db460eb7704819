"""Parameters are written only where every caller is in view: a private helper whose calls all
pass one fully known type (then its return, in a second round); not a public function, not a
private one called with two shapes, not one passed around as a value."""
import jax.numpy as jnp


def _scale(x, factor):
    scaled = x * factor
    return scaled


def _pad(x):
    return jnp.concatenate([x, x])


def _apply(f, x):
    return f(x)


def public(x):
    return x + 1


v = jnp.ones((3,), dtype=jnp.float32)
m = jnp.ones((2, 3), dtype=jnp.float32)
a = _scale(v, jnp.full((3,), 2.0, dtype=jnp.float32))
b = _scale(v, factor=jnp.full((3,), 4.0, dtype=jnp.float32))
c = _pad(v)
d = _pad(m)
e = _apply(_pad, v)
f = public(v)
