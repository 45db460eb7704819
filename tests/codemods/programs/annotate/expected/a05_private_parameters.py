"""Parameters are written only where every caller is in view: a private helper whose calls all
pass one fully known type (then its return, in a second round); not a public function, not a
private one called with two shapes, not one passed around as a value."""
import jax.numpy as jnp
from shapecheck import f32


def _scale(x: f32[(3,)], factor: f32[(3,)]) -> f32[(3,)]:
    scaled: f32[(3,)] = x * factor
    return scaled


def _pad(x):
    return jnp.concatenate([x, x])


def _apply(f, x: f32[(3,)]):
    return f(x)


def public(x):
    return x + 1


v: f32[(3,)] = jnp.ones((3,), dtype=jnp.float32)
m: f32[(2, 3)] = jnp.ones((2, 3), dtype=jnp.float32)
a: f32[(3,)] = _scale(v, jnp.full((3,), 2.0, dtype=jnp.float32))
b: f32[(3,)] = _scale(v, factor=jnp.full((3,), 4.0, dtype=jnp.float32))
c: f32[(6,)] = _pad(v)
d: f32[(4, 3)] = _pad(m)
e: f32[(6,)] = _apply(_pad, v)
f: f32[(3,)] = public(v)
