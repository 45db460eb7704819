"""PartitionSpecs against values and meshes: shard_map's and shardings' positional rules.

DESIGN.md section 3a. Pure functions over these types with problems as values, called by the
shard_map and sharding handlers of the analyzer (and by the runtime alike):

- a spec against a value (`spec_problems`): longer than the value's rank (SC106), a mesh axis
  the mesh lacks (SC206), one mesh axis twice in one spec (SC201), a dim not divisible by the
  product of its mesh axes' sizes (SC205);
- the per-device block a shard_map body sees (`block`: each dim divided by its mesh axes'
  product), and the global value its out_specs assemble (`assemble`: each dim multiplied back);
  `out_spec_problems` checks an out_spec against the block it assembles.

Replication (`check_vma`) is `replication.py`'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final, TypeAlias

from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import Conflict, Dim, format_dim
from shapecheck.types import ArrayType


@dataclass(frozen=True, slots=True)
class MeshAxes:
    """A device mesh as the algebra sees it: axis names in order, sizes (None where unknown).

    `names_known` is False for a mesh whose axis names the front end could not read in full
    (only the listed ones are certain): then no name is reported as missing from it.
    """

    axes: tuple[tuple[str, int | None], ...]
    names_known: bool = True

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.axes)

    def size(self, name: str) -> int | None:
        for axis, size in self.axes:
            if axis == name:
                return size
        return None

    def lacks(self, name: str) -> bool:
        """True only when the mesh certainly has no axis `name`."""
        return self.names_known and name not in self.names

    def describe(self) -> str:
        """`'data' (4), 'model' (2)` for messages; an unknown size is shown as `?`."""
        if not self.axes:
            return "no axes"
        return ", ".join(f"{name!r} ({'?' if size is None else size})" for name, size in self.axes)


@dataclass(frozen=True, slots=True)
class UnknownEntry:
    """A spec entry the front end could not read (a variable, a call): nothing is known of it,
    so it is never reported on and the dim it stands for has an unknown block size."""

    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN_ENTRY: Final = UnknownEntry()

SpecEntry: TypeAlias = tuple[str, ...] | UnknownEntry
"""One dim of a spec: the mesh axes it is split over (`()` for `None`: not split), or unknown."""


@dataclass(frozen=True, slots=True)
class PartitionSpec:
    """`P('data', None, ('x', 'y'))`: per positional dim, the mesh axes it is split over.

    `()` for a dim means it is not split (`None` in the spec); the spec may be shorter than the
    value's rank (the remaining dims are not split).
    """

    dims: tuple[SpecEntry, ...]
    text: str = ""  # as written, for messages
    origin: object = field(default=None, compare=False, hash=False)  # the literal node, for reports

    @property
    def shown(self) -> str:
        """The spec as messages show it: the text as written, else rebuilt from the entries."""
        if self.text:
            return self.text
        return "P(" + ", ".join(_entry_text(entry) for entry in self.dims) + ")"

    def axes(self) -> frozenset[str]:
        """Every mesh axis the spec certainly names."""
        return frozenset(axis for entry in self.dims if isinstance(entry, tuple) for axis in entry)

    @property
    def fully_known(self) -> bool:
        return not any(isinstance(entry, UnknownEntry) for entry in self.dims)


@dataclass(frozen=True, slots=True)
class Varying:
    """Replication under `check_vma`: the mesh axes a value may differ over between devices."""

    axes: frozenset[str] = frozenset()


def _entry_text(entry: SpecEntry) -> str:
    if isinstance(entry, UnknownEntry):
        return "..."
    if not entry:
        return "None"
    if len(entry) == 1:
        return repr(entry[0])
    return "(" + ", ".join(repr(axis) for axis in entry) + ")"


def _placed(spec: PartitionSpec, value: ArrayType) -> Iterator[tuple[int, SpecEntry, Dim]]:
    """(dim index, entry, size) for each spec entry whose dim is certain: before `...`."""
    limit = len(value.dims) if value.ellipsis is None else value.ellipsis
    for index, entry in enumerate(spec.dims[:limit]):
        yield index, entry, value.dims[index]


def _too_long(spec: PartitionSpec, value: ArrayType, what: str) -> list[Problem]:
    rank = value.rank
    if rank is None or len(spec.dims) <= rank:
        return []
    return [Problem(
        Code.AXIS_OUT_OF_RANGE,
        f"PartitionSpec {spec.shown} has {len(spec.dims)} entries, but {what} has rank {rank}; a spec "
        f"may have at most one entry per positional dim", sizes=(len(spec.dims), rank),
        origin=spec.origin)]


def _names_problems(spec: PartitionSpec, mesh: MeshAxes, what: str) -> tuple[list[Problem], set[int]]:
    """SC206 and SC201, and the entries whose divisibility is not worth checking after them."""
    problems: list[Problem] = []
    skip: set[int] = set()
    first: dict[str, int] = {}
    for index, entry in enumerate(spec.dims):
        if isinstance(entry, UnknownEntry):
            continue
        for axis in entry:
            if mesh.lacks(axis):
                known = ", ".join(repr(name) for name in mesh.names) or "none"
                problems.append(Problem(
                    Code.UNKNOWN_RESOURCE,
                    f"PartitionSpec {spec.shown} of {what} names mesh axis {axis!r} (dim {index}), but the "
                    f"mesh has axes {known}", axes=(axis,), origin=spec.origin))
                skip.add(index)
            elif axis in first:
                where = f"dim {index}" if first[axis] == index else f"dims {first[axis]} and {index}"
                problems.append(Problem(
                    Code.RESOURCE_COOCCURRENCE,
                    f"PartitionSpec {spec.shown} of {what} maps mesh axis {axis!r} twice ({where}); a mesh "
                    f"axis can split at most one dim, once", axes=(axis,), origin=spec.origin))
                skip.add(index)
            else:
                first[axis] = index
    return problems, skip


def _known_devices(entry: tuple[str, ...], mesh: MeshAxes) -> tuple[int, tuple[str, ...]]:
    """The product of the known sizes among `entry`'s mesh axes, and those axes.

    A dim not divisible by the known part of the product is not divisible by the whole (the
    whole is a multiple of it), so the known part is enough to report on."""
    devices = 1
    known: list[str] = []
    for axis in entry:
        size = mesh.size(axis)
        if size is not None:
            devices *= size
            known.append(axis)
    return devices, tuple(known)


def _divisibility(spec: PartitionSpec, value: ArrayType, mesh: MeshAxes, what: str,
                  skip: set[int]) -> list[Problem]:
    problems = []
    for index, entry, size in _placed(spec, value):
        if index in skip or isinstance(entry, UnknownEntry) or not isinstance(size, int):
            continue
        devices, known = _known_devices(entry, mesh)
        if devices > 1 and size % devices:
            spread = " x ".join(f"{axis!r} ({mesh.size(axis)})" for axis in known)
            axes_word = "mesh axis" if len(known) == 1 else "mesh axes"
            problems.append(Problem(
                Code.MESH_INDIVISIBLE,
                f"dim {index} of {what} has size {format_dim(size)}, which {axes_word} {spread} cannot "
                f"split evenly ({size} is not divisible by {devices}; PartitionSpec {spec.shown})",
                axes=known, sizes=(size, devices), origin=spec.origin))
    return problems


def spec_problems(spec: PartitionSpec, value: ArrayType, mesh: MeshAxes, what: str) -> list[Problem]:
    """Everything certainly wrong with splitting `value` over `mesh` as `spec` says.

    SC106 for a spec longer than the value's rank, SC206 for a mesh axis the mesh lacks, SC201
    for a mesh axis used twice, SC205 for a dim its mesh axes cannot split evenly. `what` names
    the value in messages (`argument 'x' of shard_map (in_specs[0])`). Unknown dims, sizes and
    entries never report.
    """
    names, skip = _names_problems(spec, mesh, what)
    return _too_long(spec, value, what) + names + _divisibility(spec, value, mesh, what, skip)


def unmanaged_problems(spec: PartitionSpec, manual: frozenset[str], mesh: MeshAxes, what: str) -> list[Problem]:
    """SC206 for each mesh axis `spec` names that a shard_map with `axis_names=manual` leaves
    to the compiler: its in_specs and out_specs may name only its manual axes (JAX's ValueError
    "must refer to an axis marked as manual")."""
    problems: list[Problem] = []
    for index, entry in enumerate(spec.dims):
        if isinstance(entry, UnknownEntry):
            continue
        for axis in entry:
            if axis not in manual and not mesh.lacks(axis):  # an axis the mesh lacks is SC206 already
                listed = ", ".join(repr(name) for name in sorted(manual))
                problems.append(Problem(
                    Code.UNKNOWN_RESOURCE,
                    f"PartitionSpec {spec.shown} of {what} names mesh axis {axis!r} (dim {index}), but the "
                    f"shard_map is manual only over {listed} (axis_names): its specs may name only those",
                    axes=(axis,), origin=spec.origin))
    return problems


SPEC_FAULTS: Final = frozenset({Code.UNKNOWN_RESOURCE, Code.RESOURCE_COOCCURRENCE})
"""The codes of a spec's own faults against its mesh (`spec_faults`): they hold whatever value it splits."""


def spec_faults(spec: PartitionSpec, mesh: MeshAxes, what: str) -> list[Problem]:
    """What is wrong with `spec` on `mesh` whatever value it splits: SC206 and SC201 (JAX raises
    them when a NamedSharding or a shard_map is built, before any value is seen)."""
    return _names_problems(spec, mesh, what)[0]


def out_spec_problems(spec: PartitionSpec, block: ArrayType, mesh: MeshAxes, what: str) -> list[Problem]:
    """An out_spec against the per-device block it assembles: SC106, SC206, SC201.

    Assembly multiplies dims, so there is nothing to divide: no SC205.
    """
    names, _ = _names_problems(spec, mesh, what)
    return _too_long(spec, block, what) + names


def _devices(entry: SpecEntry, mesh: MeshAxes) -> int | None:
    """The number of blocks `entry` splits its dim into, or None when not certain."""
    if isinstance(entry, UnknownEntry):
        return None
    devices = 1
    for axis in entry:
        size = mesh.size(axis)
        if size is None:
            return None
        devices *= size
    return devices


def _rescaled(spec: PartitionSpec, value: ArrayType, mesh: MeshAxes, divide: bool) -> ArrayType:
    dims = list(value.dims)
    for index, entry, size in _placed(spec, value):
        devices = _devices(entry, mesh)
        if devices == 1:
            continue
        if isinstance(size, Conflict):
            continue  # reported where it arose; None here would let it meet a size again
        if devices is None or devices < 1 or not isinstance(size, int):
            dims[index] = None  # `devices < 1`: an empty mesh, which JAX refuses to map over
        elif divide:
            dims[index] = size // devices if size % devices == 0 else None
        else:
            dims[index] = size * devices
    if value.ellipsis is not None:
        # Entries past `...` split dims whose places are unknown: every dim after it may be one.
        beyond = spec.dims[value.ellipsis:]
        if any(_devices(entry, mesh) != 1 for entry in beyond):
            dims[value.ellipsis:] = [None] * (len(dims) - value.ellipsis)
    return value.with_dims(dims, value.ellipsis)


def block(spec: PartitionSpec, value: ArrayType, mesh: MeshAxes) -> ArrayType:
    """The per-device block of `value` split as `spec` says: each dim divided by the product of
    its mesh axes' sizes; unknown where that is not certain (or not whole: SC205's case)."""
    return _rescaled(spec, value, mesh, divide=True)


def assemble(spec: PartitionSpec, block: ArrayType, mesh: MeshAxes) -> ArrayType:
    """The global value that per-device `block`s assemble into as `spec` says: each dim
    multiplied by the product of its mesh axes' sizes; unknown where that is not certain."""
    return _rescaled(spec, block, mesh, divide=False)
