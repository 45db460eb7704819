"""Stand the runtime in for the removed and named-axis parts of jax, for `shapecheck run`.

A program written for the removed xmap imports `jax.experimental.maps` and calls
`jax.numpy`/`jax.lax`/`jax.nn` with named axes; while the stand-ins are installed those imports
resolve to shapecheck.runtime's modules, which pass every other name through to jax, and
their `with Mesh(...)` enters the mesh through the current API rather than JAX's deprecated
context. The rest of the old mesh and partitioning API (`maps.mesh`, `maps.thread_resources`,
`jax.experimental.PartitionSpec`, pjit's `in_axis_resources`) is `shapecheck.runtime.legacy`.
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

    from shapecheck.runtime import legacy
    from shapecheck.runtime.xmap import xmap

    maps = types.ModuleType("jax.experimental.maps", "xmap and the old mesh API, provided by shapecheck.runtime")
    members = {"xmap": xmap, "Mesh": jax.sharding.Mesh,  # the old home of Mesh
               "mesh": legacy.mesh, "thread_resources": legacy.thread_resources,
               "ResourceEnv": legacy.ResourceEnv}
    vars(maps).update(members, __getattr__=lambda name: legacy.refuse(maps.__name__, name))
    return maps


def _pjit_module() -> types.ModuleType:
    """`jax.experimental.pjit` as it was: pjit with its old keywords, PartitionSpec, with_sharding_constraint."""
    import jax.experimental.pjit
    import jax.sharding

    from shapecheck.runtime import legacy

    current = jax.experimental.pjit
    pjit = types.ModuleType("jax.experimental.pjit", "pjit with its old keywords, provided by shapecheck.runtime")
    members = {"pjit": legacy.pjit, "PartitionSpec": jax.sharding.PartitionSpec,
               "with_sharding_constraint": legacy.with_sharding_constraint}
    vars(pjit).update(members, __getattr__=lambda name: getattr(current, name))
    return pjit


@contextlib.contextmanager
def _legacy_mesh_context() -> Iterator[None]:
    """`with mesh:`, as programs written for xmap enter a mesh, done through `jax.set_mesh`.

    JAX deprecated the legacy context and warns at every `with mesh:`; `shapecheck run`
    promises to run such a program unchanged, so while it runs the context is the current
    API's. Every axis is Auto, as in the world of the removed xmap (where `jax.make_mesh`'s
    Explicit default did not exist), and as the runtime reads a legacy mesh anyway.
    """
    import jax
    from jax.sharding import Mesh

    from shapecheck.runtime.mesh_scope import auto_mesh

    entered = threading.local()

    def enter(mesh: Mesh) -> Mesh:
        scopes: list[Any] = entered.__dict__.setdefault("scopes", [])
        scopes.append(jax.set_mesh(auto_mesh(mesh)))
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
    import jax.sharding

    # Import ours first, so that they bind the real jax modules they delegate to.
    from shapecheck.runtime import lax, legacy, nn, numpy, special

    modules = {
        "jax.experimental.maps": (jax.experimental, "maps", _maps_module()),
        "jax.experimental.pjit": (jax.experimental, "pjit", _pjit_module()),
        "jax.numpy": (jax, "numpy", numpy),
        "jax.lax": (jax, "lax", lax),
        "jax.nn": (jax, "nn", nn),
        "jax.scipy.special": (jax.scipy, "special", special),
    }
    # Names that old programs read from a module that no longer has them.
    attributes = [(jax.experimental, "PartitionSpec", jax.sharding.PartitionSpec)]
    saved_modules = {name: sys.modules.get(name) for name in modules}
    missing = object()
    saved_attrs = [(parent, attr, getattr(parent, attr, missing))
                   for parent, attr, _ in [*modules.values(), *attributes]]
    try:
        for name, (_, _, module) in modules.items():
            sys.modules[name] = module
        for parent, attr, value in [*modules.values(), *attributes]:
            setattr(parent, attr, value)
        with _legacy_mesh_context():
            yield
    finally:
        legacy.thread_resources.restore()
        for name, saved in saved_modules.items():
            if saved is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = saved
        for parent, attr, value in saved_attrs:
            if value is missing:
                with contextlib.suppress(AttributeError):
                    delattr(parent, attr)
            else:
                setattr(parent, attr, value)
