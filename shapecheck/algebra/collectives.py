"""Collectives whose result shape is more than a reduction: `lax.pdot` and `lax.all_gather`."""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra import replication
from shapecheck.algebra.broadcast import union_named
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.codes import Code
from shapecheck.dims import CONFLICT, Dim, certainly_differ, format_dim
from shapecheck.types import ArrayType

Pairs = tuple[Sequence[int], Sequence[int]]
"""`pos_contract` or `pos_batch`: the lhs axes and the rhs axes, paired in order."""


def pdot(x: ArrayType, y: ArrayType, names: Sequence[int | str], contract: Pairs | None, batch: Pairs | None,
         labels: Sequence[str] | None = None) -> Outcome:
    """`lax.pdot(x, y, names, pos_contract, pos_batch)`: result dims are batch, lhs free, rhs free.

    The named axes in `names` are contracted (they must agree in size, SC102, as in any
    broadcast); paired positional axes must be in range (SC106) and equal (SC104). `contract`
    or `batch` None: not known, so only the named shape of the result is.
    """
    problems: list[Problem] = []
    named = dict(union_named([x.named, y.named], labels, problems))
    for name in names:
        if isinstance(name, str):
            named.pop(name, None)
    if x.ellipsis is not None or y.ellipsis is not None or contract is None or batch is None:
        return Outcome(ArrayType(None, (), tuple(named.items()), 0, x.named_open or y.named_open), tuple(problems))
    conflicted: set[int] = set()  # batch dims of x reported here: unknown in the result
    for (left, right), kind in [(p, "contracted") for p in zip(*contract, strict=True)] + \
            [(p, "batch") for p in zip(*batch, strict=True)]:
        if left >= len(x.dims) or right >= len(y.dims):
            problems.append(Problem(Code.AXIS_OUT_OF_RANGE, f"lax.pdot: {kind} axes ({left}, {right}) are out of range"))
            continue
        if certainly_differ(x.dims[left], y.dims[right]):
            problems.append(Problem(
                Code.CONTRACTION_MISMATCH, f"lax.pdot: {kind} dims differ: {format_dim(x.dims[left])} vs "
                f"{format_dim(y.dims[right])}", sizes=(x.dims[left], y.dims[right])))
            conflicted.add(left)
    used_x = set(contract[0]) | set(batch[0])
    used_y = set(contract[1]) | set(batch[1])
    dims: list[Dim] = [CONFLICT if i in conflicted else x.dims[i] for i in batch[0] if i < len(x.dims)]
    dims += [d for i, d in enumerate(x.dims) if i not in used_x]
    dims += [d for i, d in enumerate(y.dims) if i not in used_y]
    return Outcome(ArrayType(x.dtype if x.dtype == y.dtype else None, tuple(dims), tuple(named.items()),
                             None, x.named_open or y.named_open), tuple(problems))


def all_gather(value: ArrayType, name: str, size: Dim, axis: int | None, tiled: bool | None, *,
               manual: bool = False) -> ArrayType:
    """`lax.all_gather(x, name, axis=, tiled=)`: the named axis `name` (of `size`) becomes positional.

    Untiled, it is a new dim at `axis`; tiled, dim `axis` grows `size` times. An axis out of
    range, or an unknown `axis` or `tiled`, leaves the positional dims unknown. `manual`:
    `name` is a manual mesh axis of a shard_map body, where the result varies over it
    (`replication.gathered`).
    """
    gathered = _gather(value, name, size, axis, tiled)
    return replication.gathered(gathered, name, size) if manual else gathered


def _gather(value: ArrayType, name: str, size: Dim, axis: int | None, tiled: bool | None) -> ArrayType:
    named = tuple((n, s) for n, s in value.named if n != name)
    unknown = ArrayType(value.dtype, (), named, 0, value.named_open)
    if value.ellipsis is not None or axis is None or tiled is None:
        return unknown
    dims = list(value.dims)
    if tiled:
        if not 0 <= axis < len(dims):
            return unknown
        current = dims[axis]
        dims[axis] = current * size if isinstance(current, int) and isinstance(size, int) else None
    else:
        if not 0 <= axis <= len(dims):
            return unknown
        dims.insert(axis, size)
    return ArrayType(value.dtype, tuple(dims), named, None, value.named_open)
