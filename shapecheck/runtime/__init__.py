"""xmap and named axes on current JAX (DESIGN.md section 6).

Importing this package imports jax; `import shapecheck` alone never does.
`shapecheck.runtime.numpy`, `.lax`, `.nn` and `.special` are the named-axis forms of
`jax.numpy`, `jax.lax`, `jax.nn` and `jax.scipy.special`.
"""

from __future__ import annotations

from shapecheck.runtime.errors import NamedAxisError
from shapecheck.runtime.xmap import xmap

__all__ = ["NamedAxisError", "xmap"]
