"""axis_resources against the mesh of the enclosing `with Mesh(...)` or `jax.set_mesh(...)`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
from jax.sharding import AbstractMesh

from shapecheck.algebra.resources import Resources, divisibility, unknown_resources
from shapecheck.runtime.errors import NamedAxisError, raise_problems


def normalize(axis_resources: Mapping[Any, Any] | None) -> dict[str, tuple[str, ...]]:
    """`{'batch': 'x', 'hidden': ('x', 'y')}` with every value a tuple of mesh axis names."""
    resources: dict[str, tuple[str, ...]] = {}
    for name, value in (axis_resources or {}).items():
        axes = value if isinstance(value, tuple | list) else (value,)
        if not all(isinstance(axis, str) for axis in axes):
            raise NamedAxisError(
                "SC002", f"axis_resources[{name!r}] = {value!r}: resources must be mesh axis names "
                "(serial loops are not supported by this runtime)")
        resources[str(name)] = tuple(axes)
    return resources


def current_mesh() -> AbstractMesh | None:
    """The mesh in scope: `jax.set_mesh` first, then the legacy `with Mesh(...)`.

    Abstract, because that is what can be read inside `jax.jit`; the sharding constraints
    name only a PartitionSpec and JAX resolves it against the same mesh in scope.
    """
    mesh = jax.sharding.get_abstract_mesh()
    if not mesh.empty:
        return mesh
    from jax._src import mesh as mesh_lib  # the legacy context has no public getter

    legacy = mesh_lib.thread_resources.env.physical_mesh
    return None if legacy.empty else legacy.abstract_mesh


def mesh_sizes(mesh: AbstractMesh | None) -> dict[str, int]:
    return {} if mesh is None else {str(name): int(size) for name, size in mesh.shape.items()}


def check_known(resources: Resources, mesh: AbstractMesh | None) -> None:
    """SC206: every resource must be an axis of the mesh in scope (and a mesh must be in scope)."""
    if not resources:
        return
    context = "" if mesh is not None else (
        "no mesh is in scope; call the xmapped function inside `with Mesh(devices, names):` or "
        "`with jax.set_mesh(mesh):`")
    raise_problems(unknown_resources(resources, mesh_sizes(mesh)), context)


def check_divisible(sizes: Mapping[str, int], resources: Resources, mesh: AbstractMesh | None) -> None:
    """SC205: each resourced axis must split evenly over its mesh axes."""
    raise_problems(divisibility(dict(sizes), resources, mesh_sizes(mesh)))
