"""What migrate cannot read is left as written, with a message: a member of the removed module
that shapecheck.runtime lacks, and a `with` of a mesh built elsewhere."""
import jax.numpy as jnp
from shapecheck import runtime as maps
from jax.experimental.maps import SerialLoop
from shapecheck.runtime import xmap

from mesh_helpers import build_mesh

loop_mesh = build_mesh()
f = xmap(lambda v: v + 1, in_axes=['i', ...], out_axes=['i', ...],
         axis_resources={'i': SerialLoop(2)})
with loop_mesh:
    print(f(jnp.ones((4, 2))))
    print(maps.serial_loop)
