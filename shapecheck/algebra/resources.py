"""axis_resources against values and meshes: co-occurrence (SC201), divisibility (SC205), names (SC206)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import Dim, format_dim

Resources = Mapping[str, tuple[str, ...]]
"""Named axis -> the mesh axes it is partitioned over."""


def cooccurrence(names: Iterable[str], resources: Resources) -> list[Problem]:
    """SC201: two named axes of one value mapped to one mesh axis."""
    present = sorted(set(names))
    by_mesh: dict[str, list[str]] = {}
    for name in present:
        for mesh_axis in resources.get(name, ()):
            by_mesh.setdefault(mesh_axis, []).append(name)
    problems = []
    for mesh_axis, sharing in sorted(by_mesh.items()):
        if len(sharing) > 1:
            listed = " and ".join(repr(n) for n in sharing)
            problems.append(Problem(
                Code.RESOURCE_COOCCURRENCE, f"named axes {listed} are both mapped to mesh axis {mesh_axis!r} and appear "
                "together in this value; reduce one of them first or map them to different mesh axes",
                axes=tuple(sharing)))
    return problems


def divisibility(sizes: Mapping[str, Dim], resources: Resources, mesh: Mapping[str, int]) -> list[Problem]:
    """SC205: each named axis size must be divisible by the product of its mesh axes' sizes."""
    problems = []
    for name, mesh_axes in resources.items():
        size = sizes.get(name)
        if not isinstance(size, int) or any(axis not in mesh for axis in mesh_axes):
            continue
        devices = 1
        for axis in mesh_axes:
            devices *= mesh[axis]
        if devices and size % devices:
            spread = " x ".join(f"{axis!r} ({mesh[axis]})" for axis in mesh_axes)
            problems.append(Problem(
                Code.MESH_INDIVISIBLE, f"named axis {name!r} has size {format_dim(size)}, which mesh axes {spread} "
                f"cannot split evenly ({size} is not divisible by {devices})",
                axes=(name, *mesh_axes), sizes=(size, devices)))
    return problems


def unknown_resources(resources: Resources, mesh: Mapping[str, int]) -> list[Problem]:
    """SC206: resource names the known mesh lacks."""
    problems = []
    for name, mesh_axes in resources.items():
        for axis in mesh_axes:
            if axis not in mesh:
                known = ", ".join(repr(a) for a in mesh) or "none"
                problems.append(Problem(
                    Code.UNKNOWN_RESOURCE, f"axis_resources maps {name!r} to mesh axis {axis!r}, but the mesh has "
                    f"axes {known}", axes=(name, axis)))
    return problems
