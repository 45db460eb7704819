"""Stand the runtime in for the removed and named-axis parts of jax, for `shapecheck run`.

A program written for the removed xmap imports `jax.experimental.maps` and calls
`jax.numpy`/`jax.lax`/`jax.nn` with named axes; while the stand-ins are installed those imports
resolve to shapecheck.runtime's modules, which pass every other name through to jax.
"""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Iterator


def _maps_module() -> types.ModuleType:
    import jax.sharding

    from shapecheck.runtime.xmap import xmap

    maps = types.ModuleType("jax.experimental.maps", "xmap, provided by shapecheck.runtime")
    maps.xmap = xmap  # type: ignore[attr-defined]
    maps.Mesh = jax.sharding.Mesh  # type: ignore[attr-defined]  # the old home of Mesh
    return maps


@contextlib.contextmanager
def stand_ins() -> Iterator[None]:
    """Install the stand-ins for the duration of the block; jax is restored afterwards."""
    import jax
    import jax.experimental
    import jax.scipy

    # Import ours first, so that they bind the real jax modules they delegate to.
    from shapecheck.runtime import lax, nn, numpy, special

    replacements = {
        "jax.experimental.maps": (jax.experimental, "maps", _maps_module()),
        "jax.numpy": (jax, "numpy", numpy),
        "jax.lax": (jax, "lax", lax),
        "jax.nn": (jax, "nn", nn),
        "jax.scipy.special": (jax.scipy, "special", special),
    }
    saved_modules = {name: sys.modules.get(name) for name in replacements}
    saved_attrs = {name: getattr(parent, attr, None) for name, (parent, attr, _) in replacements.items()}
    try:
        for name, (parent, attr, module) in replacements.items():
            sys.modules[name] = module
            setattr(parent, attr, module)
        yield
    finally:
        for name, (parent, attr, _) in replacements.items():
            if saved_modules[name] is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = saved_modules[name]  # type: ignore[assignment]
            if saved_attrs[name] is None:
                with contextlib.suppress(AttributeError):
                    delattr(parent, attr)
            else:
                setattr(parent, attr, saved_attrs[name])
