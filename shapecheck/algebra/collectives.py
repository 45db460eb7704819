"""Collectives whose result shape is more than a reduction: `lax.pdot`, `all_gather`,
`psum_scatter` and `all_to_all`, with the checks JAX makes of their parameters (verified on JAX
0.10.2): an axis out of range is SC106; an untiled scatter or split dim that is not the axis's
size is SC102, a tiled one not divisible by it SC205.

A negative `split_axis` or `concat_axis` of `all_to_all` is left unread: JAX does not normalize
them alike (`all_to_all(x, n, 0, -1)` fails where `(-2, -1)` runs on the same rank-2 `x`).
"""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra import replication
from shapecheck.algebra.broadcast import union_named
from shapecheck.algebra.outcome import Outcome, Problem, normalize_axis, out_of_range
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


def all_gather_problems(value: ArrayType, axis: int | None, tiled: bool | None) -> list[Problem]:
    """SC106: `axis` beyond `-(r+1)..r` untiled (a new dim) or `-r..r-1` tiled, for rank r."""
    if value.ellipsis is not None or axis is None or tiled is None:
        return []
    rank = len(value.dims) + (0 if tiled else 1)
    if -rank <= axis < rank:
        return []
    return [out_of_range(axis, rank, "the result of lax.all_gather" if not tiled else "the argument of lax.all_gather")]


def _gather(value: ArrayType, name: str, size: Dim, axis: int | None, tiled: bool | None) -> ArrayType:
    named = tuple((n, s) for n, s in value.named if n != name)
    unknown = ArrayType(value.dtype, (), named, 0, value.named_open)
    if value.ellipsis is not None or axis is None or tiled is None:
        return unknown
    dims = list(value.dims)
    position = normalize_axis(axis, len(dims) + (0 if tiled else 1))
    if position is None:
        return unknown
    axis = position
    if tiled:
        current = dims[axis]
        dims[axis] = current * size if isinstance(current, int) and isinstance(size, int) else None
    else:
        dims.insert(axis, size)
    return ArrayType(value.dtype, tuple(dims), named, None, value.named_open)


def psum_scatter(value: ArrayType, name: str, size: Dim, dimension: int | None, tiled: bool | None) -> Outcome:
    """`lax.psum_scatter(x, name, scatter_dimension=, tiled=)`: dim `dimension` (of `-r..r-1`)
    is scattered over the `size` members of `name`: untiled it must be `size` and goes; tiled it
    must be divisible by `size` and is divided."""
    named = value.named
    unknown = ArrayType(value.dtype, (), named, 0, value.named_open)
    if value.ellipsis is not None or dimension is None or tiled is None:
        return Outcome(unknown)
    dims = list(value.dims)
    position = normalize_axis(dimension, len(dims))
    if position is None:
        return Outcome(unknown, (out_of_range(dimension, len(dims), "the argument of lax.psum_scatter"),))
    problem = _split_problem("lax.psum_scatter", "scatter_dimension", dims[position], position, name, size, tiled)
    if problem is not None:
        return Outcome(unknown, (problem,))
    if tiled:
        dims[position] = _divided(dims[position], size)
    else:
        del dims[position]
    return Outcome(ArrayType(value.dtype, tuple(dims), named, None, value.named_open))


def all_to_all(value: ArrayType, name: str, size: Dim, split: int | None, concat: int | None,
               tiled: bool | None) -> Outcome:
    """`lax.all_to_all(x, name, split_axis, concat_axis, tiled=)`: dim `split` is cut into `size`
    pieces sent to the members of `name`, and what arrives is joined along `concat`. Untiled,
    dim `split` must be `size` and becomes a new dim at `concat`; tiled, it must be divisible by
    `size`, is divided, and dim `concat` multiplied."""
    unknown = ArrayType(value.dtype, (), value.named, 0, value.named_open)
    if value.ellipsis is not None or split is None or tiled is None:
        return Outcome(unknown)
    dims = list(value.dims)
    rank = len(dims)
    problems = [out_of_range(axis, rank, f"the argument of lax.all_to_all ({which})")
                for axis, which in ((split, "split_axis"), (concat, "concat_axis"))
                if axis is not None and (axis >= rank or axis < -rank)]
    if problems:
        return Outcome(unknown, tuple(problems[:1]))  # JAX raises for the first
    position = split % rank
    problem = _split_problem("lax.all_to_all", "split_axis", dims[position], position, name, size, tiled)
    if problem is not None:
        return Outcome(unknown, (problem,))
    if concat is None or split < 0 or concat < 0:
        return Outcome(unknown)
    if tiled:
        dims[split] = _divided(dims[split], size)
        joined = dims[concat]
        dims[concat] = joined * size if isinstance(joined, int) and isinstance(size, int) else None
    else:
        del dims[split]
        dims.insert(concat, size)
    return Outcome(ArrayType(value.dtype, tuple(dims), value.named, None, value.named_open))


def _split_problem(api: str, parameter: str, dim: Dim, position: int, name: str, size: Dim,
                   tiled: bool) -> Problem | None:
    """SC102 for an untiled dim that is not the axis's size; SC205 for a tiled one it does not divide."""
    if not (isinstance(dim, int) and isinstance(size, int)):
        return None
    if tiled and dim % size:
        return Problem(Code.MESH_INDIVISIBLE, f"{api}: dim {position} ({parameter}) has size {dim}, which axis "
                       f"{name!r} of size {size} does not divide (tiled=True splits it in {size} pieces)",
                       axes=(name,), sizes=(dim, size))
    if not tiled and dim != size:
        return Problem(Code.NAMED_SIZE_MISMATCH, f"{api}: dim {position} ({parameter}) has size {dim}, but axis "
                       f"{name!r} has size {size}: untiled, that dim must be the axis's size (or pass tiled=True "
                       "to split it in pieces)", axes=(name,), sizes=(dim, size))
    return None


def _divided(dim: Dim, size: Dim) -> Dim:
    return dim // size if isinstance(dim, int) and isinstance(size, int) and size else None


def ppermute_problems(perm: Sequence[tuple[int, int]], name: str, size: Dim) -> list[Problem]:
    """SC106: a `lax.ppermute` pair naming a member of `name` beyond its `size` (JAX's
    IndexError when the program is lowered), or a member sent from, or to, twice (JAX's
    ValueError: "ppermute sources and destinations must be unique"); the first such pair."""
    for side, position in (("source", 0), ("destination", 1)):
        seen: set[int] = set()
        for pair in perm:
            if pair[position] in seen:
                return [Problem(Code.AXIS_OUT_OF_RANGE, f"lax.ppermute: perm pair {tuple(pair)!r} has {side} "
                                f"{pair[position]} again; each member of axis {name!r} is a {side} at most once "
                                f"(the sources and the destinations must be unique)", axes=(name,))]
            seen.add(pair[position])
    if not isinstance(size, int):
        return []
    for pair in perm:
        for index in pair:
            if not 0 <= index < size:
                return [Problem(Code.AXIS_OUT_OF_RANGE, f"lax.ppermute: perm pair {tuple(pair)!r} names index "
                                f"{index} of axis {name!r}, which has {size} members (0..{size - 1})",
                                axes=(name,), sizes=(index, size))]
    return []
