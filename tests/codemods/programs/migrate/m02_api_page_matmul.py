"""The xmap API page: a vdot turned into a matrix product, then distributed over a 2x2 mesh,
with Mesh imported from its old home in jax.experimental.maps."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.maps import Mesh, xmap  # both from the removed module

x = jnp.arange(10).reshape((2, 5))
print(xmap(jnp.vdot,
           in_axes=({0: 'left'}, {1: 'right'}),
           out_axes=['left', 'right', ...])(x, x.T))

devices = np.array(jax.devices())[:4].reshape((2, 2))
with Mesh(devices, ('x', 'y')):  # declare a 2D mesh with axes 'x' and 'y'
    distributed_out = xmap(
        jnp.vdot,
        in_axes=({0: 'left'}, {1: 'right'}),
        out_axes=['left', 'right', ...],
        axis_resources={'left': 'x', 'right': 'y'})(x, x.T)
print(distributed_out)
