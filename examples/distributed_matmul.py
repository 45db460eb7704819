"""Matrix multiplication distributed over a 2x2 device mesh with xmap.

Each output element is the dot product of one row ('left') and one column ('right').
The intent was to split rows over mesh axis 'x' and columns over 'y', but both were
mapped to 'x': every product holds a 'left' and a 'right' axis at once, which one
mesh axis cannot split twice. shapecheck reports the product that first holds both.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.maps import xmap
from jax.sharding import Mesh


def row_times_column(row, column):
    return jnp.dot(row, column)


x = jnp.arange(2048.0 * 64).reshape((2048, 64))
local_matmul = xmap(row_times_column,
                    in_axes=({0: 'left'}, {1: 'right'}),
                    out_axes=['left', 'right', ...])
local = local_matmul(x, x.T)

devices = np.array(jax.devices()[:4]).reshape((2, 2))
with Mesh(devices, ('x', 'y')):
    distr_matmul = xmap(row_times_column,
                        in_axes=({0: 'left'}, {1: 'right'}),
                        out_axes=['left', 'right', ...],
                        axis_resources={'left': 'x', 'right': 'x'})
    distr = distr_matmul(x, x.T)

np.testing.assert_allclose(local, distr)
