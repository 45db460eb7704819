"""PartitionSpecs and replication: the home of shard_map's and shardings' rules (not built yet).

DESIGN.md section 3a describes them; nothing in the analyzer or the runtime checks them today
(SC202's and SC206's docs say so). They belong here, as pure functions over these types with
problems as values, called by a shard_map/sharding handler and by the runtime alike:

- a spec against a value: longer than the value's rank (SC106), a dim not divisible by the
  product of its mesh axes' sizes (SC205, reusing `resources.divisibility`'s message), a mesh
  axis the mesh lacks (SC206), one mesh axis twice in one spec (SC201);
- the per-device block a shard_map body sees (each dim divided by its mesh axes' product), and
  the global value its out_specs assemble (each dim multiplied back);
- replication (`check_vma=True`): the mesh axes a value varies over, joined through the ops of
  the body and removed by `psum`/`pmean`/`pmax`/`pmin`; an out_spec that omits one is SC207.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class MeshAxes:
    """A device mesh as the algebra sees it: axis names in order, sizes (None where unknown)."""

    axes: tuple[tuple[str, int | None], ...]


@dataclass(frozen=True, slots=True)
class PartitionSpec:
    """`P('data', None, ('x', 'y'))`: per positional dim, the mesh axes it is split over.

    `()` for a dim means it is not split (`None` in the spec); the spec may be shorter than the
    value's rank (the remaining dims are not split).
    """

    dims: tuple[tuple[str, ...], ...]
    text: str = ""  # as written, for messages
    origin: object = field(default=None, compare=False, hash=False)  # the literal node, for reports


@dataclass(frozen=True, slots=True)
class Varying:
    """Replication under `check_vma`: the mesh axes a value may differ over between devices."""

    axes: frozenset[str] = frozenset()
