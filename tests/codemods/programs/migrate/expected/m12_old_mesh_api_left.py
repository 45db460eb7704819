"""Uses of the old mesh API that migrate has no rewrite for: the old mesh function called ahead
of its `with`, and a read of thread_resources other than its mesh. They are left as written,
with a message, and run on shapecheck.runtime's stand-ins, where `maps` now points."""
import jax
import jax.numpy as jnp
import numpy as np
from shapecheck import runtime as maps

context = maps.mesh(np.array(jax.devices()[:4]), ('data',))
double = maps.xmap(lambda v: v * 2, in_axes=['rows', ...], out_axes=['rows', ...],
                   axis_resources={'rows': 'data'})
with context:
    print(dict(maps.thread_resources.env.shape))
    print(double(jnp.arange(8.0)))
