"""Meshes entered the legacy ways: `with Mesh(...) as mesh:`, a jax.make_mesh mesh bound to a
name, and a `with` of two items. Only the meshes are wrapped in jax.set_mesh."""
import contextlib

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.maps import xmap
from jax.sharding import Mesh

double = xmap(lambda v: v * 2, in_axes=['rows', ...], out_axes=['rows', ...],
              axis_resources={'rows': 'data'})
x = jnp.arange(16.0).reshape((8, 2))

# Enter the mesh and keep a handle on it.
with Mesh(np.array(jax.devices()), ('data',)) as mesh:
    print(dict(mesh.shape))
    print(double(x))

made = jax.make_mesh((4,), ('data',), devices=jax.devices()[:4])
with made:
    print(double(x))

with contextlib.nullcontext(), Mesh(np.array(jax.devices()[:2]), ('data',)):
    print(double(x).sum())
