"""The old mesh and partitioning API of mesh-transformer-jax-era programs: the old mesh function
through `import jax` (`jax.experimental.maps.mesh(devices, names)`), pjit with
`in_axis_resources`/`out_axis_resources` (by keyword, by position and through functools.partial),
`jax.experimental.PartitionSpec`, pjit's `with_sharding_constraint` and `maps.thread_resources`."""
import functools

import jax
import shapecheck.runtime
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P
from jax import jit as pjit
from jax.lax import with_sharding_constraint

devices = np.array(jax.devices()).reshape((2, 4))


@functools.partial(pjit, in_shardings=(P('dp', 'mp'),), out_shardings=P('mp'))
def column_sums(x):
    return with_sharding_constraint(x * 2, P('dp', None)).sum(axis=0)


init = pjit(lambda key: jax.random.normal(key, (8, 4)), in_shardings=None, out_shardings=P('dp', 'mp'))
scale = shapecheck.runtime.xmap(lambda row, w: row * w, in_axes=(['rows', ...], [...]),
                                   out_axes=['rows', ...], axis_resources={'rows': 'dp'})

with jax.set_mesh(Mesh(devices, ('dp', 'mp'))):  # enter the mesh for what follows
    x = init(jax.random.PRNGKey(0))
    print(column_sums(x))
    print(scale(x, jnp.arange(4.0)).sum())

jax.set_mesh(Mesh(devices, ('dp', 'mp')))
print(dict(jax.sharding.get_mesh().shape))
print(column_sums(x))
