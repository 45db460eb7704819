"""Replication inside `shard_map` (`check_vma=True`): which mesh axes a value varies over.

A value inside a shard_map body may differ between the devices along a mesh axis (it
"varies" over it) or be the same on all of them. JAX 0.10 tracks this statically: a value
varies over the mesh axes its arguments' in_specs split, and over `axis_index`'s axis; psum,
pmean, pmax and pmin over an axis make it the same along it; `all_gather`'s result varies over
the gathered axis even when its argument did not (`gathered`); other ops keep what their
inputs vary over. An out_spec must name every mesh axis its value varies over, since the
value it does not name is taken from one device as if all held it (SC207).

The body is analysed with each varying mesh axis as a named axis of the value (sized by the
mesh), hidden from annotations like vmap's axes: the named-axis algebra then carries the rule
(broadcasting joins names, named reductions such as `lax.psum(x, 'data')` remove them), and
these functions put the axes on at the arguments and take them off at the results.
"""

from __future__ import annotations

from collections.abc import Mapping

from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.partition_spec import PartitionSpec, Varying
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.types import ArrayType


def vary(block: ArrayType, spec: PartitionSpec, manual: Mapping[str, int | None]) -> ArrayType:
    """The per-device block of an argument split as `spec` says, varying over the manual mesh
    axes (`manual`: name -> size) the spec splits it over."""
    axes = sorted(axis for axis in spec.axes() if axis in manual)
    if not axes:
        return block
    named = dict(block.named)
    named.update((axis, manual[axis]) for axis in axes)
    return block.with_named(named)


def gathered(value: ArrayType, axis: str, size: Dim) -> ArrayType:
    """`lax.all_gather`'s result over the manual mesh axis `axis` (of `size`): varying over it.

    Every device then holds the same data, yet JAX 0.10.2 types the result as varying over the
    gathered axis even when the argument was invariant (`float32[4]` gathers to
    `float32[2,4]{V:x}`), so `out_specs=P()` is refused (SC207), unlike after `psum`.
    """
    return value.with_named((*((n, s) for n, s in value.named if n != axis), (axis, size)))


def settle(value: ArrayType, manual: Mapping[str, int | None]) -> tuple[ArrayType, Varying]:
    """A body result without the mesh axes it varies over, and those axes.

    Only the axes certainly present count: an open named shape may vary over more, which is
    never reported.
    """
    varying = frozenset(name for name, _ in value.named if name in manual)
    if not varying:
        return value, Varying()
    return value.with_named((n, s) for n, s in value.named if n not in manual), Varying(varying)


def unreplicated(spec: PartitionSpec, varying: Varying, what: str) -> list[Problem]:
    """SC207: the mesh axes `varying` names that the out_spec `spec` does not.

    An out_spec with an entry the front end could not read may name any axis: nothing is
    reported for it.
    """
    if not spec.fully_known:
        return []
    missing = sorted(varying.axes - spec.axes())
    if not missing:
        return []
    listed = ", ".join(repr(axis) for axis in missing)
    axes_word = "mesh axis" if len(missing) == 1 else "mesh axes"
    reducer = f"lax.psum(..., {missing[0]!r})" if len(missing) == 1 else f"lax.psum(..., ({listed}))"
    return [Problem(
        Code.UNREPLICATED_OUTPUT,
        f"{what} varies over {axes_word} {listed}, but out_specs {spec.shown} does not name "
        f"{'it' if len(missing) == 1 else 'them'}: reduce it first ({reducer} or pmean/pmax/pmin), "
        f"or name {'it' if len(missing) == 1 else 'them'} in out_specs",
        axes=tuple(missing), origin=spec.origin)]
