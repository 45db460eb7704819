"""The tutorial's named reductions and named einsum, with `from jax.experimental import maps`."""
from typing import Any, Callable

import jax.numpy as jnp
import numpy as np
from jax.experimental import maps


class ArrayType:
    def __getitem__(self, idx):
        return Any


f32 = ArrayType()


def named_broadcast_and_reduce(
    x: f32[(), {'x': 2}],
    y: f32[(5,), {'y': 4}]) \
        -> f32[()]:
    z: f32[(5,), {'x': 2, 'y': 4}] = x + y
    w: f32[()] = jnp.sum(z, axis=(0, 'x', 'y'))
    return w


positional_broadcast_and_reduce: Callable[[f32[(2,)], f32[(5, 4)]], f32[()]]
positional_broadcast_and_reduce = \
    maps.xmap(named_broadcast_and_reduce,
              in_axes=({0: 'x'}, {1: 'y'}),
              out_axes={})
print(positional_broadcast_and_reduce(jnp.arange(2, dtype=np.float32),
                                      jnp.arange(20, dtype=np.float32).reshape((5, 4))))


def named_batch_matrix_single_matrix(
        x: f32[(5,), {'b': 20, 'k': 7}],
        y: f32[(), {'k': 7, 'm': 11}]) \
        -> f32[(5,), {'b': 20, 'm': 11}]:
    return jnp.einsum('n{b,k},{k,m}->n{b,m}', x, y)


x = jnp.ones((20, 5, 7))
y = jnp.arange(77.0).reshape((7, 11))
z = jnp.einsum('bnk,km->bnm', x, y)
zx = maps.xmap(named_batch_matrix_single_matrix,
               in_axes=[{0: 'b', 2: 'k'}, ['k', 'm', ...]],
               out_axes={0: 'b', 2: 'm'})(x, y)
np.testing.assert_allclose(z, zx)
print(zx.sum(), zx.shape)
