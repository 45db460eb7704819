"""The tutorial's sum_two_args over one mesh axis, the mesh bound to a name and entered as
`with mesh:`, and the xmap applied inside it (two named axes on one resource, never together)."""
import jax
import shapecheck.runtime.numpy as jnp
import numpy as np
from shapecheck.runtime import xmap
from jax.sharding import Mesh
from shapecheck import f32


def sum_two_args(x: f32[(), {'a': 4}], y: f32[(), {'b': 12}]) -> f32[()]:
    return jnp.sum(x, axis='a') + jnp.sum(y, axis='b')


q = jnp.arange(4, dtype=np.float32)
u = jnp.ones((12,), dtype=np.float32)
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
with jax.set_mesh(mesh):
    v = xmap(sum_two_args,
             in_axes=(['a', ...], ['b', ...]),
             out_axes=[...],
             axis_resources={'a': 'x', 'b': 'x'})(q, u)
print(v)
