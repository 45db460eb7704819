"""The rest of the old mesh and partitioning API, on today's equivalents.

Programs written for xmap entered their meshes and partitioned their parameters with API that
JAX has since removed or renamed. Each name here keeps its old meaning on current JAX:

| old | today |
| --- | --- |
| `with maps.mesh(devices, names):` | `with jax.set_mesh(Mesh(devices, names)):` |
| `maps.thread_resources.env.physical_mesh` | `jax.sharding.get_mesh()` |
| `maps.thread_resources.env = ResourceEnv(mesh, ())` | `jax.set_mesh(mesh)` |
| `jax.experimental.PartitionSpec` | `jax.sharding.PartitionSpec` |
| `pjit(f, in_axis_resources, out_axis_resources)` | `jax.jit(f, in_shardings=, out_shardings=)` |
| `pjit.with_sharding_constraint(x, axis_resources)` | `jax.lax.with_sharding_constraint(x, shardings)` |

Every mesh entered this way has Auto axes, as all axes were when these APIs existed.
xmap's serial loops (`SerialLoop`, `serial_loop`) have no counterpart and are refused with the
replacement named.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

import jax
import numpy as np
from jax._src import mesh as mesh_lib
from jax.sharding import Mesh

from shapecheck.runtime.mesh_scope import auto_mesh

# The names of the removed module that have no counterpart, and what to write instead.
REMOVED: Final = {
    "SerialLoop": "xmap's serial loops are not provided by shapecheck.runtime; map the axis to a mesh "
                  "axis in axis_resources, or loop over its chunks with jax.lax.map(f, xs, batch_size=...)",
    "serial_loop": "xmap's serial loops are not provided by shapecheck.runtime; map the axis to a mesh "
                   "axis in axis_resources, or loop over its chunks with jax.lax.map(f, xs, batch_size=...)",
}


class RemovedAPIError(ImportError):
    """A name of the removed API that has no counterpart; the message names what to use instead.

    An ImportError, because it is raised where the old module's name is looked up: a
    `from jax.experimental.maps import SerialLoop` fails with this message, not Python's
    "cannot import name".
    """


def refuse(module: str, name: str) -> Any:
    """A module `__getattr__`'s answer for `name`: a RemovedAPIError for a removed name."""
    if name in REMOVED:
        raise RemovedAPIError(f"{module}.{name} was removed from JAX: {REMOVED[name]}", name=module)
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


@contextlib.contextmanager
def mesh(devices: Any, axis_names: Sequence[str]) -> Iterator[None]:
    """`jax.experimental.maps.mesh`: the old mesh function, as `with jax.set_mesh(Mesh(...)):`.

    Like the removed function it yields nothing (`as` binds None).
    """
    with jax.set_mesh(auto_mesh(Mesh(np.asarray(devices), tuple(axis_names)))):
        yield


def ResourceEnv(physical_mesh: Mesh, loops: Sequence[object] = ()) -> Any:  # the old class's name
    """`jax.experimental.maps.ResourceEnv(mesh, loops)`: the mesh alone (serial loops are refused)."""
    if loops:
        raise RemovedAPIError(f"ResourceEnv(..., loops={tuple(loops)!r}): {REMOVED['SerialLoop']}")
    return mesh_lib.ResourceEnv(physical_mesh)


class _ThreadResources(threading.local):
    """`jax.experimental.maps.thread_resources`: its `env` is the mesh of `jax.set_mesh`.

    Reading `env.physical_mesh` gives the mesh in scope (`jax.sharding.get_mesh()`, or the
    mesh of a legacy `with Mesh(...)`); assigning `env = ResourceEnv(mesh)` sets it for the
    rest of the program, as `jax.set_mesh(mesh)` does.
    """

    def __init__(self) -> None:
        self.first: Any = None  # the first assignment's jax.set_mesh: what restore() undoes

    @property
    def env(self) -> Any:
        current: Mesh = mesh_lib.get_concrete_mesh()  # get_mesh() refuses to be read under jit
        if current.empty:
            current = mesh_lib.thread_resources.env.physical_mesh
        return mesh_lib.ResourceEnv(current)

    @env.setter
    def env(self, value: Any) -> None:
        physical = getattr(value, "physical_mesh", None)
        if not isinstance(physical, Mesh):
            raise TypeError(f"thread_resources.env takes a ResourceEnv(mesh), not {type(value).__name__}; "
                            "today's form is jax.set_mesh(mesh)")
        setter = jax.set_mesh(None if physical.empty else auto_mesh(physical))
        if self.first is None:
            self.first = setter

    def restore(self) -> None:
        """The mesh as it was before the first assignment of `env` (in this thread)."""
        if self.first is not None:
            self.first.__exit__(None, None, None)
            self.first = None


thread_resources: Final = _ThreadResources()

_UNSET: Final = object()


def pjit(fun: Callable[..., Any], in_axis_resources: Any = _UNSET, out_axis_resources: Any = _UNSET,
         static_argnums: int | Sequence[int] | None = None, donate_argnums: int | Sequence[int] | None = None,
         **options: Any) -> Any:
    """`jax.experimental.pjit.pjit` with its old keywords: `jax.jit` with in_shardings/out_shardings.

    `in_axis_resources`/`out_axis_resources` are the old names of `in_shardings`/`out_shardings`
    (same positions, same values: PartitionSpecs resolved against the mesh at the call, None
    for replicated). Today's keywords are accepted too, as JAX's deprecated pjit accepts them.
    """
    for old, new, value in (("in_axis_resources", "in_shardings", in_axis_resources),
                            ("out_axis_resources", "out_shardings", out_axis_resources)):
        if value is _UNSET:
            continue
        if new in options:
            raise TypeError(f"pjit got both {old} and {new}; {old} is the old name of {new}: pass one")
        options[new] = value
    jitted: Any = jax.jit(fun, static_argnums=static_argnums, donate_argnums=donate_argnums, **options)
    return jitted


def with_sharding_constraint(x: Any, axis_resources: Any = _UNSET, **options: Any) -> Any:
    """`jax.experimental.pjit.with_sharding_constraint(x, axis_resources)`: jax.lax's, whose
    keyword is now `shardings`."""
    if axis_resources is not _UNSET:
        if "shardings" in options:
            raise TypeError("with_sharding_constraint got both axis_resources and shardings; "
                            "axis_resources is the old name of shardings: pass one")
        options["shardings"] = axis_resources
    constrain: Callable[..., Any] = jax.lax.with_sharding_constraint  # untyped in jax
    return constrain(x, **options)
