"""`einops.pack` and `einops.unpack`: the `*` of a pattern (`'b * d'`) packs the dims between the
named ones into one, and unpacks them again from the shapes `pack` returned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shapecheck.algebra.einops_patterns import group_size, malformed
from shapecheck.algebra.outcome import Pieces, Problem, label
from shapecheck.algebra.promotion import promoted
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim, unify
from shapecheck.types import ArrayType


@dataclass(frozen=True, slots=True)
class StarPattern:
    """`'b * d'`: `before` names before the `*`, `after` after it."""

    text: str
    before: int
    after: int

    @property
    def names(self) -> list[str]:
        """The named axes, in order, without the `*`."""
        return [name for name in self.text.split() if name != "*"]


def parse_star(pattern: str, what: str) -> StarPattern | Problem:
    names = pattern.split()
    if names.count("*") != 1:
        return malformed(what, pattern, "needs exactly one `*` (where the packed dims go)"
                         if "*" not in names else "has more than one `*`")
    for name in names:
        if name != "*" and (not name.isidentifier() or name.startswith("_") or name.endswith("_")):
            return malformed(what, pattern, f"has {name!r}, which is not an axis name (a Python identifier; "
                             "no groups or `...`)")
    if len(set(names)) != len(names):
        return malformed(what, pattern, "repeats an axis name")
    star = names.index("*")
    return StarPattern(pattern, star, len(names) - star - 1)


@dataclass(frozen=True, slots=True)
class Packed:
    """What `pack` returns: the packed array and each input's packed dims (None: not known)."""

    type: ArrayType
    shapes: tuple[tuple[Dim, ...] | None, ...]
    problems: tuple[Problem, ...] = ()


def pack(pattern: StarPattern, values: Sequence[ArrayType], labels: Sequence[str] | None = None) -> Packed:
    """`einops.pack(values, pattern)`: the named dims must agree (they are concatenated along `*`)."""
    dtype = promoted(values).dtype
    outer: list[Dim] | None = None
    source: list[int] = []
    total: Dim = 0
    shapes: list[tuple[Dim, ...] | None] = []
    problems: list[Problem] = []
    for index, value in enumerate(values):
        if value.ellipsis is not None:
            shapes.append(None)
            total = None
            continue
        rank = len(value.dims)
        if rank < pattern.before + pattern.after:
            problems.append(Problem(
                Code.INVALID_EINSUM_SPEC, f"einops.pack: pattern {pattern.text!r} needs at least "
                f"{pattern.before + pattern.after} dims, but {label(labels, index)} is {value.positional_text()}",
                operands=(index,)))
            shapes.append(None)
            continue
        named = [*value.dims[:pattern.before], *value.dims[rank - pattern.after:]]
        inner = value.dims[pattern.before:rank - pattern.after]
        shapes.append(tuple(inner))
        size = group_size(inner)
        total = total + size if isinstance(total, int) and isinstance(size, int) else None
        if outer is None:
            outer, source = named, [index] * len(named)
            continue
        for position, (have, new) in enumerate(zip(outer, named, strict=True)):
            if certainly_differ(have, new):
                problems.append(Problem(
                    Code.BROADCAST_MISMATCH, f"einops.pack: axis {pattern.names[position]!r} of pattern "
                    f"{pattern.text!r} has size {format_dim(have)} in {label(labels, source[position])} but "
                    f"{format_dim(new)} in {label(labels, index)}; only the dims at `*` may differ",
                    axes=(pattern.names[position],), sizes=(have, new),
                    operands=(source[position], index)))
            else:
                outer[position] = unify(have, new)
    if outer is None or problems:
        return Packed(ArrayType(dtype, (), (), 0, True), tuple(shapes), tuple(problems))
    dims = [*outer[:pattern.before], total, *outer[pattern.before:]]
    return Packed(ArrayType(dtype, tuple(dims)), tuple(shapes))


def unpack(pattern: StarPattern, value: ArrayType, shapes: Sequence[Sequence[Dim] | None]) -> Pieces:
    """`einops.unpack(value, shapes, pattern)`: one array per shape; one `-1` may stand for the rest."""
    if value.ellipsis is not None:
        return Pieces(None)
    rank = len(value.dims)
    if rank != pattern.before + pattern.after + 1:
        return Pieces(None, (Problem(
            Code.INVALID_EINSUM_SPEC, f"einops.unpack: pattern {pattern.text!r} needs "
            f"{pattern.before + pattern.after + 1} dims, but the packed array is {value.positional_text()}"),))
    holes = sum(1 for shape in shapes if shape is not None for d in shape if d == -1)
    if holes > 1:
        return Pieces(None, (malformed("einops.unpack", pattern.text, "is given shapes with more than one -1; "
                                       "only one size can be inferred"),))
    packed = value.dims[pattern.before]
    known = [group_size(shape) if shape is not None and -1 not in shape else None for shape in shapes]
    pieces = [list(shape) if shape is not None else None for shape in shapes]
    if isinstance(packed, int) and all(isinstance(size, int) for size in known if size is not None) and \
            all(shape is not None for shape in shapes) and all(isinstance(d, int) for s in shapes if s for d in s):
        total = sum(size for size in known if isinstance(size, int))
        fault = None
        if holes:
            index = next(i for i, shape in enumerate(pieces) if shape is not None and -1 in shape)
            piece = pieces[index]
            assert piece is not None
            rest = group_size([d for d in piece if d != -1])
            left = packed - total
            if isinstance(rest, int) and rest > 0:
                if left < 0 or left % rest:
                    fault = f"the rest, {left}, is not a multiple of {rest}"
                else:
                    piece[piece.index(-1)] = left // rest
        elif total != packed:
            fault = f"they hold {total}"
        if fault is not None:
            requested = ", ".join(str(tuple(shape)) for shape in shapes if shape is not None)
            return Pieces(None, (Problem(
                Code.RESHAPE_MISMATCH, f"einops.unpack: dim {pattern.before} of the packed array has size {packed}, "
                f"which shapes [{requested}] cannot split: {fault}", sizes=(packed,)),))
    before, after = value.dims[:pattern.before], value.dims[pattern.before + 1:]
    types = tuple(
        ArrayType(value.dtype, (*before, *(None if d == -1 else d for d in piece), *after)) if piece is not None
        else ArrayType(value.dtype, (), (), 0, True) for piece in pieces)
    return Pieces(types)
