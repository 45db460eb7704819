# The module JAX removed (0.4.31), as `shapecheck run` provides it: `xmap` is shapecheck's
# runtime xmap (same signature and meaning), `Mesh` is jax.sharding's, and the old mesh API
# (`mesh`, `thread_resources`, `ResourceEnv`) is the runtime's, on today's jax.set_mesh.
# Shipped as part of the partial stub package `jax-stubs`, so mypy (and other type checkers)
# resolve `from jax.experimental.maps import xmap` and look up every other jax module in jax itself.
from jax.sharding import Mesh as Mesh
from shapecheck.runtime.legacy import ResourceEnv as ResourceEnv
from shapecheck.runtime.legacy import mesh as mesh
from shapecheck.runtime.legacy import thread_resources as thread_resources
from shapecheck.runtime.xmap import xmap as xmap
