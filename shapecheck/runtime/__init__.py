"""xmap and named axes on current JAX (DESIGN.md section 6).

Importing this package imports jax; `import shapecheck` alone never does.
`shapecheck.runtime.numpy`, `.lax`, `.nn` and `.special` are the named-axis forms of
`jax.numpy`, `jax.lax`, `jax.nn` and `jax.scipy.special`.

The package is the new home of the removed `jax.experimental.maps`: besides `xmap` it keeps
the old mesh API (`mesh`, `thread_resources`, `ResourceEnv`) working on today's equivalents,
so a program whose `maps` now names this package still runs (`shapecheck.runtime.legacy`).
"""

from __future__ import annotations

from shapecheck.runtime.checked import checked
from shapecheck.runtime.errors import NamedAxisError
from shapecheck.runtime.legacy import RemovedAPIError, ResourceEnv, mesh, thread_resources
from shapecheck.runtime.xmap import xmap

__all__ = ["NamedAxisError", "RemovedAPIError", "ResourceEnv", "checked", "mesh", "thread_resources", "xmap"]

