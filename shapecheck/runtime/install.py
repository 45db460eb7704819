"""Stand the runtime in for the removed and named-axis parts of jax, for `shapecheck run`.

A program written for the removed xmap imports `jax.experimental.maps` and calls
`jax.numpy`/`jax.lax`/`jax.nn` with named axes; while the stand-ins are installed those imports
resolve to shapecheck.runtime's modules, which pass every other name through to jax, and
their `with Mesh(...)` enters the mesh through the current API rather than JAX's deprecated
context.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import types
from collections.abc import Iterator
from typing import Any


def _maps_module() -> types.ModuleType:
    import jax.sharding

    from shapecheck.runtime.xmap import xmap

    maps = types.ModuleType("jax.experimental.maps", "xmap, provided by shapecheck.runtime")
    maps.xmap = xmap  # type: ignore[attr-defined]
    maps.Mesh = jax.sharding.Mesh  # type: ignore[attr-defined]  # the old home of Mesh
    return maps


@contextlib.contextmanager
def _legacy_mesh_context() -> Iterator[None]:
    """`with mesh:`, as programs written for xmap enter a mesh, done through `jax.set_mesh`.

    JAX deprecated the legacy context and warns at every `with mesh:`; `shapecheck run`
    promises to run such a program unchanged, so while it runs the context is the current
    API's. Every axis is Auto, as in the world of the removed xmap (where `jax.make_mesh`'s
    Explicit default did not exist), and as the runtime reads a legacy mesh anyway.
    """
    import jax
    from jax.sharding import AxisType, Mesh

    entered = threading.local()

    def enter(mesh: Mesh) -> Mesh:
        auto = Mesh(mesh.devices, mesh.axis_names, axis_types=(AxisType.Auto,) * len(mesh.axis_names))
        scopes: list[Any] = entered.__dict__.setdefault("scopes", [])
        scopes.append(jax.set_mesh(auto))
        return mesh

    def exit_(mesh: Mesh, *exc_info: object) -> bool:
        entered.scopes.pop().__exit__(*exc_info)
        return False

    saved = Mesh.__enter__, Mesh.__exit__
    Mesh.__enter__, Mesh.__exit__ = enter, exit_  # type: ignore[method-assign]
    try:
        yield
    finally:
        Mesh.__enter__, Mesh.__exit__ = saved  # type: ignore[method-assign]


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
        with _legacy_mesh_context():
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
