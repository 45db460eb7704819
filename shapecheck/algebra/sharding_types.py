"""Sharding in types: how JAX's explicit mode splits each dim, op by op (DESIGN.md section 3b).

Under Explicit mesh axes every array's type says which mesh axes split each positional dim
(`jax.typeof(a)` prints `float32[8@X,16@Y]`), and JAX checks these types while it traces,
raising `ShardingTypeError`. These are the propagation rules of JAX 0.10's sharding rules
(`broadcasting_sharding_rule`, `_dot_general_sharding_rule`, `_reshape_sharding_rule`, ...),
as pure functions over `ArrayType`s: the result's sharding and the problems found.

A dim whose split is unknown (`None` in `Sharding.dims`) never causes a report, and whatever
depends on it is unknown. Auto axes carry no sharding in types: a spec naming them places a
value on the mesh without splitting its type.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import prod
from typing import Final

from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import Dim, format_dim
from shapecheck.dtypes import KINDS, NUMPY_OF, narrowed
from shapecheck.types import ArrayType, MeshShape, Sharding

Axes = tuple[str, ...]
Entry = Axes | None  # one dim's split; None: unknown

EXPLICIT: Final = "Explicit"
AUTO: Final = "Auto"
MANUAL: Final = "Manual"



@dataclass(frozen=True, slots=True)
class Typed:
    """A propagation's result: the sharding (None: unknown) and the problems JAX raises."""

    sharding: Sharding | None
    problems: tuple[Problem, ...] = ()


UNKNOWN: Final = Typed(None)


# ---------------------------------------------------------------- printing


def typeof(value: ArrayType) -> str:
    """The type as `jax.typeof` prints it: `float32[8@X,16@Y]`, `float32[128@(X,Y)]`."""
    # Shown as JAX prints it in its default mode (64-bit dtypes narrowed, as hover shows them).
    name = narrowed(value.dtype) if value.dtype is not None and value.dtype in KINDS else value.dtype
    dtype = NUMPY_OF.get(name or "", name or "?")
    sharding = value.sharding
    parts: list[str] = []
    for index, dim in enumerate(value.dims):
        size = format_dim(dim)
        entry = sharding.dims[index] if sharding is not None else None
        if entry is None and sharding is not None:
            parts.append(f"{size}@?")
        elif not entry:
            parts.append(size)
        elif len(entry) == 1:
            parts.append(f"{size}@{entry[0]}")
        else:
            parts.append(f"{size}@({','.join(entry)})")
    if value.ellipsis is not None:
        parts.insert(value.ellipsis, "...")
    return f"{dtype}[{','.join(parts)}]"


def spec_text(entries: Iterable[Entry]) -> str:
    """The PartitionSpec for these entries, as a user writes it."""
    return Sharding(tuple(entries)).spec_text()


# ---------------------------------------------------------------- sources


def replicated(rank: int, mesh: MeshShape | None = None) -> Sharding:
    """A value no dim of which is split: a constructor's without `out_sharding=`."""
    return Sharding(((),) * rank, mesh)


def from_spec(spec: Sequence[Axes | None], rank: int, axis_types: Mapping[str, str | None] | None,
              mesh: MeshShape | None) -> Sharding | None:
    """The type's sharding of a value placed by a spec: each dim keeps the Explicit axes of its
    entry (Auto axes split the value but not its type); None for a spec longer than the rank
    (JAX refuses it or ignores trailing Nones: either way not this rule's to say). On a mesh
    of Explicit axes only a size-1 axis is an axis like any other in the type (JAX 0.10.2
    keeps `8@Y` for a Y of size 1 through every op); only jit's in_shardings compare
    placements, where it splits nothing."""
    if axis_types is None:
        return None
    entries = list(spec)
    while len(entries) > rank and entries[-1] == ():
        entries.pop()
    if len(entries) > rank:
        return None
    dims: list[Entry] = []
    for entry in [*entries, *((),) * (rank - len(entries))]:
        if entry is None or any(axis_types.get(axis) is None for axis in entry):
            dims.append(None)
        else:
            # A dim split over Auto and Explicit axes at once keeps its Explicit ones, in order
            # (JAX 0.10.2: P(('X', 'Y', 'Z')) with Y Auto types the dim `16@(X,Z)`).
            dims.append(tuple(axis for axis in entry if axis_types[axis] == EXPLICIT))
    return Sharding(tuple(dims), mesh, volatile=volatile_axes(axis_types, mesh))


def volatile_axes(axis_types: Mapping[str, str | None], mesh: MeshShape | None) -> frozenset[str]:
    """The size-1 Explicit axes of a mesh that also has Auto axes (`Sharding.volatile`)."""
    if all(kind == EXPLICIT for kind in axis_types.values()):
        return frozenset()
    sizes = dict(mesh) if mesh is not None else {}
    # An axis of unknown size may be of size 1.
    return frozenset(axis for axis, kind in axis_types.items()
                     if kind == EXPLICIT and sizes.get(axis, 1) in (1, None))


def settled(result: Sharding, volatile: frozenset[str]) -> Sharding:
    """An eager op's `result` with each dim split over a `volatile` axis unknown: the type JAX
    reads back from the compiled placement may keep that axis or not (`Sharding.volatile`)."""
    if not volatile:
        return result
    dims = tuple(None if entry is not None and not volatile.isdisjoint(entry) else entry
                 for entry in result.dims)
    return Sharding(dims, result.mesh, result.placed, result.volatile | volatile)


def committed(spec: Sequence[Axes | None], rank: int, axis_types: Mapping[str, str | None] | None,
              mesh: MeshShape | None) -> Sharding | None:
    """`from_spec`, for a value committed to the mesh as the spec says (`device_put`, jit's
    out_shardings): on a mesh with Auto axes it also records where the value lies over them."""
    typed = from_spec(spec, rank, axis_types, mesh)
    if typed is None or axis_types is None or all(kind == EXPLICIT for kind in axis_types.values()):
        return typed
    entries = list(spec)[:rank]
    if any(entry is None or any(axis_types.get(axis) not in (EXPLICIT, AUTO) for axis in entry)
           for entry in entries):
        return typed
    whole = tuple(entry or () for entry in entries) + ((),) * (rank - len(entries))
    return Sharding(typed.dims, typed.mesh, whole, typed.volatile)


def misnamed_axes(spec: Iterable[Axes | None], axis_types: Mapping[str, str | None], what: str,
                  allowed: str = EXPLICIT) -> Problem | None:
    """SC209: a spec given to an API that takes only `allowed` axes (reshard, `out_sharding=`:
    Explicit ones; with_sharding_constraint on a mixed mesh: Auto ones)."""
    wrong = [(axis, axis_types[axis]) for entry in spec if entry for axis in entry
             if axis_types.get(axis) not in (None, allowed)]
    if not wrong:
        return None
    named = ", ".join(f"{axis!r} ({kind})" for axis, kind in wrong)
    if allowed == EXPLICIT:
        fix = ("place the value with jax.device_put or jax.lax.with_sharding_constraint instead, "
               "or make the axes Explicit (axis_types=(AxisType.Explicit, ...))")
        return Problem(Code.AXIS_TYPE_MISUSE,
                       f"{what} may name only Explicit mesh axes, but its spec names {named}; {fix}",
                       axes=tuple(axis for axis, _ in wrong))
    fix = "use jax.sharding.reshard for Explicit axes"
    return Problem(Code.AXIS_TYPE_MISUSE,
                   f"{what} may name only Auto mesh axes of this mesh, but its spec names {named}; {fix}",
                   axes=tuple(axis for axis, _ in wrong))


# ---------------------------------------------------------------- checks shared by the rules


def _illegal(result: Sharding, op: str, operands: Sequence[ArrayType], out: ArrayType) -> Problem | None:
    """JAX refuses a result that splits two dims over one mesh axis."""
    seen: dict[str, int] = {}
    for index, entry in enumerate(result.dims):
        for axis in entry or ():
            if axis in seen:
                shown = ", ".join(typeof(o) for o in operands)
                first = seen[axis]
                fix = list(result.dims)
                fix[index] = tuple(a for a in entry or () if a != axis)
                return Problem(
                    Code.SHARDING_TYPE_MISMATCH,
                    f"{op} of {shown} would split dims {first} and {index} of its result "
                    f"{typeof(out.with_sharding(result))} over the same mesh axis {axis!r}; "
                    f"give it out_sharding={spec_text(fix)}, or reshard an operand first "
                    f"(jax.sharding.reshard(x, P(...)))", axes=(axis,))
            seen[axis] = index
    return None


def _mesh_of(operands: Iterable[ArrayType]) -> MeshShape | None:
    for operand in operands:
        if operand.sharding is not None and operand.sharding.mesh is not None:
            return operand.sharding.mesh
    return None


def finish(result: Sharding, op: str, operands: Sequence[ArrayType], out: ArrayType,
           problems: tuple[Problem, ...] = ()) -> Typed:
    """`result` unless JAX refuses it as illegally sharded."""
    illegal = _illegal(result, op, operands, out)
    if illegal is not None:
        return Typed(None, (*problems, illegal))
    return Typed(result, problems)


# ---------------------------------------------------------------- elementwise


def _aligned(operands: Sequence[ArrayType], rank: int) -> list[list[Entry]] | None:
    """Each operand's entries right-aligned to `rank` (missing leading dims are not split)."""
    rows: list[list[Entry]] = []
    for operand in operands:
        if operand.sharding is None or operand.ellipsis is not None or len(operand.dims) > rank:
            return None
        rows.append([(), ] * (rank - len(operand.dims)) + list(operand.sharding.dims))
    return rows


def _broadcast_entries(rows: list[list[Entry]], operands: Sequence[ArrayType], op: str,
                       labels: Sequence[str]) -> tuple[list[Entry], Problem | None]:
    """`broadcasting_sharding_rule`: per dim, the one mesh axes tuple any operand splits it over
    (an unsplit dim takes the other's split); two different splits are refused."""
    result: list[Entry] = []
    for index in range(len(rows[0]) if rows else 0):
        column = [row[index] for row in rows]
        split = [(n, entry) for n, entry in enumerate(column) if entry]
        distinct = {entry for _, entry in split}
        if len(distinct) > 1:
            (first, one), (second, other) = split[0], next(s for s in split if s[1] != split[0][1])
            # The fix: the other operand split as the first is, dim by dim where the first says.
            fixed = [mine if theirs is None or (theirs == () and mine) else theirs
                     for mine, theirs in zip(rows[second], rows[first], strict=True)]
            rank = len(operands[second].dims)
            return [], Problem(
                Code.SHARDING_TYPE_MISMATCH,
                f"{op} got incompatible shardings: {_label(labels, first)} is {typeof(operands[first])} and "
                f"{_label(labels, second)} is {typeof(operands[second])} (dim {index} of the result is split "
                f"over {_axes_text(one)} in one and {_axes_text(other)} in the other); reshard one to match, "
                f"e.g. jax.sharding.reshard({_bare(labels, second)}, {spec_text(fixed[len(fixed) - rank:])})",
                axes=tuple(dict.fromkeys((*one, *other))), operands=(first, second))
        if distinct:
            result.append(next(iter(distinct)))
        elif any(entry is None for entry in column):
            result.append(None)
        else:
            result.append(())
    return result, None


def broadcast(operands: Sequence[ArrayType], out: ArrayType, op: str, labels: Sequence[str] = ()) -> Typed:
    """Elementwise operators and functions: `a + b`, `jnp.maximum`, `lax.add`."""
    if out.ellipsis is not None:
        return UNKNOWN
    shaped = [(n, o) for n, o in enumerate(operands) if o.dims or o.ellipsis is not None]
    rows = _aligned([o for _, o in shaped], len(out.dims))
    if rows is None:
        return UNKNOWN
    entries, problem = _broadcast_entries(rows, [o for _, o in shaped], op, [_label(labels, n) for n, _ in shaped])
    if problem is not None:
        return Typed(None, (problem,))
    return finish(Sharding(tuple(entries), _mesh_of(operands), _common_placement(operands, len(out.dims))),
                  op, operands, out)


def _common_placement(operands: Sequence[ArrayType], rank: int) -> tuple[Axes, ...] | None:
    """Where an elementwise result lies over every mesh axis, Auto ones included: as its
    operands of its own rank all lie, where they lie alike and the others are scalars. XLA
    places an elementwise result as operands placed alike, except (JAX 0.10.2) in a dim where
    an Auto axis splits it more majorly than an Explicit one: `P(('A', 'E'))` comes out as
    `P('E')`. Otherwise it chooses, and the placement is unknown."""
    found: tuple[Axes, ...] | None = None
    for operand in operands:
        if not operand.dims and operand.ellipsis is None:
            continue
        sharding = operand.sharding
        placed = sharding.placed if sharding is not None else None
        if sharding is None or placed is None or len(operand.dims) != rank or operand.ellipsis is not None or \
                (found is not None and placed != found):
            return None
        if not keeps_placement(sharding):
            return None
        found = placed
    return found


def keeps_placement(sharding: Sharding) -> bool:
    """Whether an elementwise op keeps where its operand lies over Auto axes (`placed`): where
    the Explicit axes of each dim (its type's) lead the axes it lies over."""
    placed = sharding.placed
    return placed is not None and all(typed is not None and whole[:len(typed)] == typed
                                      for typed, whole in zip(sharding.dims, placed, strict=False))


def elementwise_result(sharding: Sharding) -> Sharding:
    """An op's result typed as its operand (elementwise ops, `cumsum`, `concatenate`): its
    placement over the Auto axes kept where XLA keeps it."""
    if sharding.placed is None or keeps_placement(sharding):
        return sharding
    return Sharding(sharding.dims, sharding.mesh, None, sharding.volatile)


def select(condition: ArrayType | None, cases: Sequence[ArrayType], out: ArrayType, op: str,
           labels: Sequence[str] = ()) -> Typed:
    """`jnp.where(c, x, y)`: operands of one shape keep their splits and the cases must agree
    (and a non-scalar condition with them); operands of different shapes broadcast together
    first (`_broadcast_arrays`), which makes them all split alike."""
    operands = ([condition] if condition is not None and condition.dims else []) + list(cases)
    if out.ellipsis is not None or any(o.ellipsis is not None or o.sharding is None for o in operands):
        return UNKNOWN
    shapes = {o.dims for o in ([condition] if condition is not None else []) + list(cases)}
    if len(shapes) > 1:
        return broadcast(operands, out, op, labels)
    # `labels` name the condition first where it is given.
    case_labels = labels[1:] if condition is not None and len(labels) == len(cases) + 1 else labels
    meshed = [o for o in cases if (o.sharding is not None and o.sharding.mesh is not None) or _split(o)]
    first = meshed[0] if meshed else None
    for other in meshed[1:]:
        assert first is not None
        if _differ(first, other):
            return Typed(None, (_mismatch(f"{op} needs its cases split alike", first, other, case_labels, cases),))
    if first is None or any(not _same(first, other) for other in meshed[1:]):
        return UNKNOWN  # a split not known where the others' is
    if condition is not None and condition.dims and (_split(condition) or (condition.sharding and condition.sharding.mesh)):
        if _differ(condition, first):
            return Typed(None, (_mismatch(f"{op} needs its condition split as its cases", condition, first, labels,
                                          [condition, *cases]),))
        if not _same(condition, first):
            return UNKNOWN
    return Typed(first.sharding)


def _split(value: ArrayType) -> bool:
    return value.sharding is not None and value.sharding.split


def _same(a: ArrayType, b: ArrayType) -> bool:
    """Certainly split alike (both fully known and equal)."""
    return a.sharding is not None and b.sharding is not None and a.sharding.dims == b.sharding.dims


def _differ(a: ArrayType, b: ArrayType) -> bool:
    """Certainly split differently: a known dim of one differs from the same known dim of the other."""
    if a.sharding is None or b.sharding is None or len(a.sharding.dims) != len(b.sharding.dims):
        return False
    return any(x is not None and y is not None and x != y for x, y in zip(a.sharding.dims, b.sharding.dims, strict=True))


def _mismatch(what: str, first: ArrayType, other: ArrayType, labels: Sequence[str],
              operands: Sequence[ArrayType]) -> Problem:
    i = next((n for n, o in enumerate(operands) if o is first), 0)
    j = next((n for n, o in enumerate(operands) if o is other), 1)
    assert first.sharding is not None
    return Problem(
        Code.SHARDING_TYPE_MISMATCH,
        f"{what}: {_label(labels, i)} is {typeof(first)} but {_label(labels, j)} is {typeof(other)}; "
        f"reshard one to match, e.g. jax.sharding.reshard({_bare(labels, j)}, {first.sharding.spec_text()})",
        operands=(i, j))


# ---------------------------------------------------------------- contractions


def dot_general(lhs: ArrayType, rhs: ArrayType, contracting: tuple[Sequence[int], Sequence[int]],
                batch: tuple[Sequence[int], Sequence[int]], out: ArrayType, op: str,
                labels: Sequence[str] = ()) -> Typed:
    """`_dot_general_sharding_rule`: batch dims and contracted dims must be split alike where both
    are split; contracting two split dims needs `out_sharding=`; the result is the batch dims
    (lhs's split), lhs's free dims, rhs's free dims."""
    if lhs.sharding is None or rhs.sharding is None or lhs.ellipsis is not None or rhs.ellipsis is not None:
        return UNKNOWN
    ls, rs = lhs.sharding.dims, rhs.sharding.dims
    lc, rc = contracting
    lb, rb = batch
    for (li, ri), kind in [*((pair, "batch") for pair in zip(lb, rb, strict=True)),
                           *((pair, "contracted") for pair in zip(lc, rc, strict=True))]:
        x, y = ls[li], rs[ri]
        if x and y and x != y:
            return Typed(None, (Problem(
                Code.SHARDING_TYPE_MISMATCH,
                f"{op} of {_label(labels, 0)} ({typeof(lhs)}) and {_label(labels, 1)} ({typeof(rhs)}) contracts "
                f"dim {li} split over {_axes_text(x)} with dim {ri} split over {_axes_text(y)}; "
                f"the {kind} dims must be split alike: reshard one, e.g. jax.sharding.reshard("
                f"{_bare(labels, 1)}, {spec_text(_with(rs, ri, x))})", axes=(*x, *y), operands=(0, 1)),))
    for li, ri in zip(lc, rc, strict=True):
        x, y = ls[li], rs[ri]
        if x and y:
            free = [ls[i] for i in lb] + [ls[i] for i in range(len(ls)) if i not in (*lc, *lb)] + \
                [rs[i] for i in range(len(rs)) if i not in (*rc, *rb)]
            return Typed(None, (Problem(
                Code.SHARDING_TYPE_MISMATCH,
                f"{op} of {_label(labels, 0)} ({typeof(lhs)}) and {_label(labels, 1)} ({typeof(rhs)}) contracts "
                f"dims that are both split over {_axes_text(x)}: how to split the result is ambiguous; "
                f"give it out_sharding={spec_text(_once(free))} (or reshard an operand)",
                axes=x, operands=(0, 1)),))
    entries: list[Entry] = [ls[i] for i in lb]
    entries += [ls[i] for i in range(len(ls)) if i not in lc and i not in lb]
    entries += [rs[i] for i in range(len(rs)) if i not in rc and i not in rb]
    if len(entries) != len(out.dims) or out.ellipsis is not None:
        return UNKNOWN
    return finish(Sharding(tuple(entries), _mesh_of((lhs, rhs))), op, (lhs, rhs), out)


def _once(entries: Sequence[Entry]) -> list[Axes]:
    """`entries` with each mesh axis kept at its first dim only (a spec names an axis once)."""
    seen: set[str] = set()
    kept: list[Axes] = []
    for entry in entries:
        kept.append(tuple(axis for axis in entry or () if axis not in seen))
        seen.update(entry or ())
    return kept


def _with(entries: Sequence[Entry], index: int, entry: Axes) -> list[Entry]:
    changed = list(entries)
    changed[index] = entry
    return changed


def permute(out_letters: str, letters: Mapping[str, Entry], out: ArrayType, op: str,
            operands: Sequence[ArrayType]) -> Typed:
    """A result whose dims are the letters `out_letters`, each split as `letters` says (einsum's
    output order, after its dot_general)."""
    if out.ellipsis is not None or len(out_letters) != len(out.dims):
        return UNKNOWN
    return finish(Sharding(tuple(letters.get(letter) for letter in out_letters), _mesh_of(operands)),
                  op, operands, out)


# ---------------------------------------------------------------- reductions and scans


def reduce(value: ArrayType, axes: Sequence[int] | None, keepdims: bool, out: ArrayType) -> Typed:
    """Reductions drop the reduced dims' splits (keepdims leaves them unsplit)."""
    if value.sharding is None or value.ellipsis is not None:
        return UNKNOWN
    rank = len(value.dims)
    picked = set(range(rank)) if axes is None else {a % rank for a in axes if -rank <= a < rank}
    entries: list[Entry] = []
    for index, entry in enumerate(value.sharding.dims):
        if index not in picked:
            entries.append(entry)
        elif keepdims:
            entries.append(())
    if len(entries) != len(out.dims):
        return UNKNOWN
    return Typed(Sharding(tuple(entries), value.sharding.mesh))


def along_axis(value: ArrayType, axis: int | None, op: str, label: str) -> Typed:
    """cumsum, sort, argsort: JAX refuses a split scanned dim (and, without an axis, any split)."""
    if value.sharding is None or value.ellipsis is not None:
        return UNKNOWN
    rank = len(value.dims)
    if axis is None:
        split = [(i, e) for i, e in enumerate(value.sharding.dims) if e]
        if split:
            return Typed(None, (Problem(
                Code.SHARDING_TYPE_MISMATCH,
                f"{op} without an axis needs {label} unsplit, but it is {typeof(value)}; reshard it first: "
                f"jax.sharding.reshard({label.strip('`')}, P())", axes=split[0][1]),))
        return Typed(replicated(1, value.sharding.mesh)) if rank != 1 else Typed(value.sharding)
    if not -rank <= axis < rank:
        return UNKNOWN
    entry = value.sharding.dims[axis % rank]
    if entry:
        fixed = _with(value.sharding.dims, axis % rank, ())
        return Typed(None, (Problem(
            Code.SHARDING_TYPE_MISMATCH,
            f"{op} along axis {axis} needs that dim unsplit, but {label} is {typeof(value)}; reshard it first: "
            f"jax.sharding.reshard({label.strip('`')}, {spec_text(fixed)})", axes=entry),))
    return Typed(value.sharding)


def update_mismatch(values: ArrayType, wanted: Sequence[Entry], label: str, op: str) -> Problem | bool | None:
    """`.at[idx].set(values)`: JAX broadcasts the update to the indexed part split as the
    operand is there (`lax.broadcast_to`), and refuses an update dim, right-aligned, split
    otherwise than unsplit or alike (its ValueError, a sharding-type mismatch). None where
    they agree, True where anything is unknown (JAX may refuse it; if not, the result is
    split as the operand)."""
    sharding = values.sharding
    if sharding is None or values.ellipsis is not None or len(values.dims) > len(wanted):
        return True
    tail = list(wanted[len(wanted) - len(values.dims):])
    for index, (mine, theirs) in enumerate(zip(sharding.dims, tail, strict=True)):
        if mine is None or (mine and theirs is None):
            return True
        if mine and mine != theirs:
            fixed = [entry if entry is not None else () for entry in tail]
            return Problem(
                Code.SHARDING_TYPE_MISMATCH,
                f"{op} updates with {label} ({typeof(values)}), whose dim {index} is split over "
                f"{_axes_text(mine)}, but JAX splits the update as the indexed part: "
                f"{spec_text(fixed)}; reshard it: jax.sharding.reshard({label.strip('`')}, {spec_text(fixed)})",
                axes=mine)
    return None


# ---------------------------------------------------------------- layout


def transpose(value: ArrayType, permutation: Sequence[int]) -> Typed:
    if value.sharding is None or value.ellipsis is not None or sorted(permutation) != list(range(len(value.dims))):
        return UNKNOWN
    return Typed(Sharding(tuple(value.sharding.dims[i] for i in permutation), value.sharding.mesh))


def insert_unsplit(value: ArrayType, positions: Sequence[int], out: ArrayType) -> Typed:
    """expand_dims and `x[None]`: the new size-1 dims at `positions` of the result are unsplit."""
    if value.sharding is None or out.ellipsis is not None or len(out.dims) != len(value.dims) + len(positions):
        return UNKNOWN
    rest = iter(value.sharding.dims)
    entries = [() if index in positions else next(rest) for index in range(len(out.dims))]
    return Typed(Sharding(tuple(entries), value.sharding.mesh))


def concatenate(operands: Sequence[ArrayType], out: ArrayType, op: str, labels: Sequence[str] = ()) -> Typed:
    """concatenate/stack (after expand_dims): every operand on a mesh must be split alike."""
    if any(o.sharding is None for o in operands) or not operands:
        return UNKNOWN
    meshed = [o for o in operands if _split(o) or (o.sharding is not None and o.sharding.mesh is not None)]
    for other in meshed[1:]:
        if not _same(meshed[0], other):
            if _differ(meshed[0], other):
                return Typed(None, (_mismatch(f"{op} needs every operand split alike", meshed[0], other, labels,
                                              operands),))
            return UNKNOWN
    first = meshed[0] if meshed else operands[0]
    if first.sharding is None or len(first.sharding.dims) != len(out.dims):
        return UNKNOWN
    return Typed(first.sharding)


def pad(value: ArrayType, out: ArrayType, label: str) -> Typed:
    """jnp.pad keeps each dim's split; a split dim it grows must stay divisible by its axes."""
    sharding = value.sharding
    if sharding is None or value.ellipsis is not None or out.ellipsis is not None or len(out.dims) != len(value.dims):
        return UNKNOWN
    for index, (entry, before, after) in enumerate(zip(sharding.dims, value.dims, out.dims, strict=True)):
        if entry is None or not entry or before == after:
            continue
        count = ways(sharding.mesh, entry)
        if not isinstance(after, int) or count is None:
            return UNKNOWN
        if after % count:
            fixed = _with(sharding.dims, index, ())
            return Typed(None, (Problem(
                Code.SHARDING_TYPE_MISMATCH,
                f"padding {label} ({typeof(value)}) makes dim {index} {after} long, which its mesh axes "
                f"{_axes_text(entry)} ({count} devices) cannot split evenly; reshard it first: "
                f"jax.sharding.reshard({label.strip('`')}, {spec_text(fixed)})", axes=entry),))
    return Typed(sharding)


def ways(mesh: MeshShape | None, entry: Axes) -> int | None:
    """How many ways the mesh axes of one dim's entry split it; None where a size is unknown."""
    sizes = dict(mesh) if mesh is not None else {}
    parts = [sizes.get(axis) for axis in entry]
    return prod(p for p in parts if p is not None) if all(isinstance(p, int) for p in parts) else None


def sliced(value: ArrayType, dim: int, taken: Dim, label: str) -> Typed:
    """A static slice of a split dim under a trace (`lax.slice`): the split is kept where its
    axes divide what the slice takes, refused where they do not (JAX 0.10.2); the value's
    sharding where kept, UNKNOWN where a size is not known."""
    sharding = value.sharding
    if sharding is None or dim >= len(sharding.dims) or not sharding.dims[dim]:
        return UNKNOWN
    entry = sharding.dims[dim]
    assert entry is not None
    count = ways(sharding.mesh, entry)
    if not isinstance(taken, int) or count is None:
        return UNKNOWN
    if taken % count:
        return Typed(None, (Problem(
            Code.SHARDING_TYPE_MISMATCH,
            f"{label} ({typeof(value)}) slices dim {dim}, split over {_axes_text(entry)} ({count} ways), to {taken} "
            f"element{'s' if taken != 1 else ''}, which do not divide evenly over them (JAX: slicing on sharded dims is not implemented "
            f"there); slice a multiple of {count}, or reshard first", axes=entry),))
    return Typed(sharding)


# ---------------------------------------------------------------- reshape


class _Unsupported(Exception):
    """JAX's ReshapeExplicitError: a regrouping of split dims it refuses without out_sharding=."""


def reshape(value: ArrayType, out: ArrayType, label: str) -> Typed:
    """`_reshape_sharding_rule`: unsplit values reshape freely; dims split only by adding or
    removing size-1 dims; one dim split into several (its axes go to the leading new dims, each
    taking axes while its size divides) or several merged into one (their axes, in order, with
    no unsplit dim before a split one); any other regrouping of split dims is refused."""
    sharding = value.sharding
    if sharding is None or value.ellipsis is not None or out.ellipsis is not None or not sharding.known:
        return UNKNOWN
    old = value.dims
    new = out.dims
    if not all(isinstance(d, int) for d in (*old, *new)):
        return UNKNOWN
    old_sizes = [d for d in old if isinstance(d, int)]
    new_sizes = [d for d in new if isinstance(d, int)]
    entries = [e or () for e in sharding.dims]
    if not any(entries):
        return Typed(replicated(len(new), sharding.mesh))
    if prod(old_sizes) != prod(new_sizes):
        return UNKNOWN
    sizes = dict(sharding.mesh) if sharding.mesh is not None else {}
    try:
        result = _reshape(old_sizes, new_sizes, entries, sizes)
    except _Unsupported:
        fix = _suggest_out(entries, old_sizes, new_sizes)
        return Typed(None, (Problem(
            Code.SHARDING_TYPE_MISMATCH,
            f"reshaping {label} ({typeof(value)}) to {tuple(new_sizes)} regroups split dims in a way JAX does not "
            f"infer; say how to split the result: jnp.reshape({label.strip('`')}, {tuple(new_sizes)}, "
            f"out_sharding={fix}), or reshard it first", axes=tuple(a for e in entries for a in e)),))
    except _UnknownSize:
        return UNKNOWN
    return Typed(Sharding(tuple(result), sharding.mesh))


class _UnknownSize(Exception):
    """A mesh axis whose size the rule needs is unknown."""


def _suggest_out(entries: list[Axes], old: list[int], new: list[int]) -> str:
    # Keep the leading dim's split when the leading sizes agree; else replicate.
    first: Axes = entries[0] if old and new and old[0] == new[0] else ()
    return spec_text([first] + [()] * (len(new) - 1))


def _reshape(old: list[int], new: list[int], entries: list[Axes], sizes: Mapping[str, int | None]) -> list[Entry]:
    if [s for s in old if s != 1] == [s for s in new if s != 1]:
        kept = iter(e for s, e in zip(old, entries, strict=True) if s != 1)
        return [() if n == 1 else next(kept) for n in new]
    split = _split_on_one_axis(old, new)
    if split is not None:
        result: list[Entry] = []
        for out, entry in zip(split, entries, strict=True):
            if isinstance(out, list):
                if not entry:
                    result.extend([()] * len(out))
                else:
                    result.extend(_split_partitions(entry, out, sizes))
            else:
                result.append(entry)
        return result
    merge = _split_on_one_axis(new, old) if len(new) < len(old) else None
    if merge is not None:
        result = []
        remaining = iter(entries)
        for size, group in zip(new, merge, strict=True):
            if isinstance(group, list):
                taken = [next(remaining) for _ in group]
                if not any(taken):
                    result.append(())
                    continue
                flat: list[Axes] = [e for e in taken]
                while flat and not flat[-1]:
                    flat.pop()
                if any(not e for e in flat):
                    raise _Unsupported
                axes = tuple(a for e in flat for a in e)
                result.extend(_split_partitions(axes, [size], sizes))
            else:
                result.append(next(remaining))
        return result
    raise _Unsupported


def _split_partitions(axes: Axes, out: list[int], sizes: Mapping[str, int | None]) -> list[Entry]:
    pending = iter(axes)
    partitions: list[Entry] = []
    for size in out:
        taken: list[str] = []
        while size > 1:
            axis = next(pending, None)
            if axis is None:
                break
            axis_size = sizes.get(axis)
            if axis_size is None:
                raise _UnknownSize
            size, remainder = divmod(size, axis_size)
            if remainder:
                raise _Unsupported
            taken.append(axis)
        partitions.append(tuple(taken))
    if next(pending, None) is not None:
        raise _Unsupported
    return partitions


def _split_on_one_axis(op_shape: list[int], new_sizes: list[int]) -> list[int | list[int]] | None:
    """JAX's `_split_on_one_axis`: how one dim of `op_shape` splits into several of `new_sizes`
    (None: not such a split); raises `_Unsupported` where JAX raises."""
    if len(new_sizes) <= len(op_shape):
        return None
    original = op_shape
    ones = 0
    while op_shape and new_sizes and op_shape[-1] == 1 and new_sizes[-1] == 1:
        ones += 1
        op_shape = op_shape[:-1]
        new_sizes = new_sizes[:-1]
    i = j = count = 0
    out: list[int | list[int]] = []
    while j < len(new_sizes):
        if i >= len(op_shape):
            return None
        if op_shape[i] == new_sizes[j]:
            out.append(op_shape[i])
        else:
            count += 1
            if count > 1:
                raise _Unsupported
            temp = [new_sizes[j]]
            next_j = j + 1
            next_i = i + 1
            while prod(temp) != op_shape[i] or (next_j < len(new_sizes) and new_sizes[next_j] == 1):
                if prod(temp) > op_shape[i]:
                    return None
                if (prod(temp) == op_shape[i] and next_i < len(op_shape) and next_j < len(new_sizes)
                        and new_sizes[next_j] == op_shape[next_i]):
                    break
                j += 1
                if j >= len(new_sizes):
                    return None
                temp.append(new_sizes[j])
                next_j += 1
            out.append(temp)
        i += 1
        j += 1
    out.extend([1] * ones)
    if len(original) != len(out):
        return None
    return out


# ---------------------------------------------------------------- placing and checking


def equal_to_spec(value: ArrayType, spec: Sharding) -> bool | None:
    """Whether `value` is typed with exactly this split (None: not known)."""
    if value.sharding is None or not value.sharding.known or not spec.known:
        return None
    return value.sharding.dims == spec.dims


def same_placement(a: Sharding, b: Sharding) -> bool | None:
    """Whether two shardings on one mesh place the value on the devices alike, as jit compares
    a committed argument with its in_shardings (`are_hlo_shardings_equal`): a size-1 mesh axis
    splits nothing, so `8@Y` for a Y of size 1 is placed as `8` (JAX 0.10.2 accepts either and
    keeps the argument's). Where both know their Auto axes (`placed`), those count too. None
    where a split or a needed axis size is unknown."""
    mesh = a.mesh if a.mesh is not None else b.mesh
    if a.placed is not None and b.placed is not None:
        a, b = Sharding(a.placed, mesh), Sharding(b.placed, mesh)
    if not a.known or not b.known or len(a.dims) != len(b.dims):
        return None
    sizes = dict(mesh) if mesh is not None else {}
    left = [_splitting(entry or (), sizes) for entry in a.dims]
    right = [_splitting(entry or (), sizes) for entry in b.dims]
    if None in left or None in right:
        return None
    return left == right


def _splitting(entry: Axes, sizes: Mapping[str, int | None]) -> Axes | None:
    """The axes of `entry` that split a dim on the devices: a size-1 axis splits nothing. None
    where an axis's size is unknown."""
    if any(sizes.get(axis) is None for axis in entry):
        return None
    return tuple(axis for axis in entry if sizes[axis] != 1)


def explicit_axes_differ(a: Sharding, b: Sharding) -> bool:
    """Whether two shardings on one mesh certainly place a value apart on its Explicit axes:
    some dim known in both is split over other axes of size above 1. A value's placement over
    the Auto axes, which its type does not show, cannot bring them together: however XLA lays
    it over those, each Explicit axis still splits the dims its type says."""
    sizes = dict(a.mesh if a.mesh is not None else b.mesh or ())
    for left, right in zip(a.dims, b.dims, strict=False):
        mine = _splitting(left, sizes) if left is not None else None
        theirs = _splitting(right, sizes) if right is not None else None
        if mine is not None and theirs is not None and set(mine) != set(theirs):
            return True
    return False


def described(entries: Iterable[Entry]) -> str:
    return spec_text(entries)


def _axes_text(axes: Axes) -> str:
    return repr(axes[0]) if len(axes) == 1 else "(" + ", ".join(repr(a) for a in axes) + ")"


def _label(labels: Sequence[str], index: int) -> str:
    return labels[index] if index < len(labels) else f"operand {index + 1}"


def _bare(labels: Sequence[str], index: int) -> str:
    return _label(labels, index).strip("`") if index < len(labels) else "x"
