# The module JAX removed (0.4.31), as `shapecheck run` provides it: `xmap` is shapecheck's
# runtime xmap (same signature and meaning), `Mesh` is jax.sharding's. Shipped as part of the
# partial stub package `jax-stubs`, so mypy (and other type checkers) resolve
# `from jax.experimental.maps import xmap` and look up every other jax module in jax itself.
from jax.sharding import Mesh as Mesh
from shapecheck.runtime.xmap import xmap as xmap
