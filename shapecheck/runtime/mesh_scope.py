"""axis_resources against the mesh of the enclosing `with Mesh(...)` or `jax.set_mesh(...)`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import jax
from jax.sharding import AbstractMesh, AxisType, Mesh, NamedSharding, PartitionSpec

from shapecheck.algebra.resources import Resources, divisibility, unknown_resources
from shapecheck.runtime.errors import raise_problems


@dataclass(frozen=True, slots=True)
class Scope:
    """The mesh in scope, and the concrete mesh to name in shardings (None: the one in scope)."""

    mesh: AbstractMesh
    concrete: Mesh | None = None

    def sharding(self, spec: PartitionSpec) -> PartitionSpec | NamedSharding:
        return spec if self.concrete is None else NamedSharding(self.concrete, spec)


def current_mesh() -> Scope | None:
    """The mesh in scope: `jax.set_mesh` first, then the legacy `with Mesh(...)`.

    Under `jax.set_mesh` the mesh is read abstractly (all that `jax.jit` allows) and shardings
    name only a PartitionSpec, which JAX resolves against it. The legacy context belongs to
    the world of the removed xmap, where every mesh axis was automatic: its mesh is used with
    Auto axis types, so that a `jax.make_mesh` mesh (Explicit by default) works there too.
    """
    mesh = jax.sharding.get_abstract_mesh()
    if not mesh.empty:
        return Scope(mesh)
    from jax._src import mesh as mesh_lib  # the legacy context has no public getter

    legacy = mesh_lib.thread_resources.env.physical_mesh
    if legacy.empty:
        return None
    auto = auto_mesh(legacy)
    return Scope(auto.abstract_mesh, auto)


def auto_mesh(mesh: Mesh) -> Mesh:
    """`mesh` with every axis Auto, as all axes were in the world of the removed xmap.

    A mesh that a legacy program enters (`with Mesh(...)`, `maps.mesh`, `thread_resources`)
    is used this way, so that a `jax.make_mesh` mesh (Explicit by default) works there too.
    """
    return Mesh(mesh.devices, mesh.axis_names, axis_types=(AxisType.Auto,) * len(mesh.axis_names))


def mesh_sizes(scope: Scope | None) -> dict[str, int]:
    return {} if scope is None else {str(name): int(size) for name, size in scope.mesh.shape.items()}


def check_known(resources: Resources, mesh: Scope | None) -> None:
    """SC206: every resource must be an axis of the mesh in scope (and a mesh must be in scope)."""
    if not resources:
        return
    context = "" if mesh is not None else (
        "no mesh is in scope; call the xmapped function inside `with jax.set_mesh(mesh):`")
    raise_problems(unknown_resources(resources, mesh_sizes(mesh)), context)


def check_divisible(sizes: Mapping[str, int], resources: Resources, mesh: Scope | None) -> None:
    """SC205: each resourced axis must split evenly over its mesh axes."""
    raise_problems(divisibility(dict(sizes), resources, mesh_sizes(mesh)))
