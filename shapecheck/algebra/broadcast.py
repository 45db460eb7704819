"""Elementwise broadcasting: positional dims right-aligned, named dims by name."""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.outcome import Outcome, Pieces, Problem, label
from shapecheck.algebra.promotion import promoted
from shapecheck.codes import Code
from shapecheck.dims import (
    CONFLICT,
    Dim,
    broadcast_dim,
    certainly_differ,
    format_dim,
    format_shape,
    unify,
)
from shapecheck.types import ArrayType, NamedShape, named_shape


def broadcast(types: Sequence[ArrayType], labels: Sequence[str] | None = None) -> Outcome:
    """The result of an elementwise op over `types` (arithmetic, comparisons, where, ...)."""
    problems: list[Problem] = []
    dims, ellipsis = _positional(types, labels, problems)
    named = union_named([t.named for t in types], labels, problems)
    dtype = promoted(types)
    return Outcome(
        ArrayType(dtype.dtype, dims, named, ellipsis, any(t.named_open for t in types), dtype.weak),
        tuple(problems),
    )


def broadcast_arrays(types: Sequence[ArrayType], labels: Sequence[str] | None = None) -> Pieces:
    """`jnp.broadcast_arrays(*args)`: each argument broadcast to their common shape, keeping its
    dtype."""
    joint = broadcast(types, labels)
    if joint.problems or joint.type.ellipsis is not None:
        return Pieces(None, joint.problems)
    shape = joint.type
    return Pieces(tuple(ArrayType(t.dtype, shape.dims, shape.named, None, shape.named_open, t.weak) for t in types))


def broadcasts_to(dims: tuple[Dim, ...], target: tuple[Dim, ...]) -> bool:
    """False only where `dims` certainly cannot broadcast to `target` (NumPy's broadcast_to:
    no more dims than the target, each equal to its target dim or 1)."""
    if len(dims) > len(target):
        return False
    return not any(size != 1 and certainly_differ(size, wanted)
                   for size, wanted in zip(reversed(dims), reversed(target), strict=False))


def broadcast_to(value: ArrayType, dims: tuple[Dim, ...], labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.broadcast_to(value, dims)`: one way only, unlike an elementwise op's broadcasting:
    `value` has no more dims than `dims`, and each is its target dim or 1."""
    result = ArrayType(value.dtype, dims, value.named, None, value.named_open)
    if value.ellipsis is not None or broadcasts_to(value.dims, dims):
        return Outcome(result)
    why = (f"it has {len(value.dims)} dims, more than the shape's {len(dims)}" if len(value.dims) > len(dims)
           else "each of its dims, aligned from the right, must equal the shape's or be 1")
    return Outcome(result, (Problem(
        Code.BROADCAST_MISMATCH, f"{label(labels, 0)} of shape {value.positional_text()} cannot be broadcast to "
        f"shape {format_shape(dims)}: {why}", sizes=(), operands=(0,)),))


def update(target: ArrayType, values: ArrayType, labels: Sequence[str] | None = None) -> Outcome:
    """`x.at[idx].set(values)` (and `.add`, `.multiply`, ...): `values` must broadcast to the
    indexed part `target`; the result is `x` itself, so only the problems matter here."""
    if target.ellipsis is not None or values.ellipsis is not None or broadcasts_to(values.dims, target.dims):
        return Outcome(target)
    return Outcome(target, (Problem(
        Code.BROADCAST_MISMATCH, f"{label(labels, 1)} of shape {values.positional_text()} cannot be written into "
        f"{label(labels, 0)}, of shape {target.positional_text()}: it must broadcast to that shape",
        sizes=(), operands=(1,)),))


def _positional(
    types: Sequence[ArrayType], labels: Sequence[str] | None, problems: list[Problem]
) -> tuple[tuple[Dim, ...], int | None]:
    open_rank = any(t.ellipsis is not None for t in types)
    if open_rank:
        # Only the dims after each `...` are right-aligned with certainty.
        tails = [t.dims[t.ellipsis :] if t.ellipsis is not None else t.dims for t in types]
        depth = min(len(tail) for t, tail in zip(types, tails, strict=True) if t.ellipsis is not None)
    else:
        tails = [t.dims for t in types]
        depth = max((len(tail) for tail in tails), default=0)
    result: list[Dim] = []
    for back in range(1, depth + 1):
        size: Dim = 1
        first = -1
        for index, tail in enumerate(tails):
            if len(tail) < back:
                continue
            dim = tail[-back]
            merged, ok = broadcast_dim(size, dim)
            if not ok:
                problems.append(
                    Problem(
                        Code.BROADCAST_MISMATCH,
                        f"cannot broadcast {label(labels, first)} of shape {types[first].positional_text()} "
                        f"with {label(labels, index)} of shape {types[index].positional_text()}: "
                        f"sizes {format_dim(size)} and {format_dim(dim)} meet at axis {-back} "
                        "(dims align from the right; each pair must be equal or 1)",
                        axes=(-back,),
                        sizes=(size, dim),
                        operands=(first, index),
                    )
                )
                size = CONFLICT  # reported here: unknown in all that is built from it
                continue
            if size == 1 or first < 0:
                first = index
            size = merged
        result.append(size)
    result.reverse()
    return tuple(result), (0 if open_rank else None)


def union_named(
    shapes: Sequence[NamedShape],
    labels: Sequence[str] | None = None,
    problems: list[Problem] | None = None,
) -> NamedShape:
    """Broadcasting by name: the union of names, equal names needing equal sizes (SC102).

    A name whose sizes conflict has an unknown size in the result: the conflict is reported
    here, once, and what is built from the result must not echo it with a size picked at random.
    """
    merged: dict[str, Dim] = {}
    source: dict[str, int] = {}
    for index, shape in enumerate(shapes):
        for name, size in shape:
            if name not in merged:
                merged[name], source[name] = size, index
                continue
            if certainly_differ(merged[name], size):
                if problems is not None:
                    problems.append(named_conflict(name, merged[name], size, labels, source[name], index))
                merged[name] = CONFLICT
                continue
            merged[name] = unify(merged[name], size)
    return named_shape(merged)


def named_conflict(
    name: str, first: Dim, second: Dim, labels: Sequence[str] | None, a: int, b: int
) -> Problem:
    return Problem(
        Code.NAMED_SIZE_MISMATCH,
        f"named axis {name!r} has size {format_dim(first)} in {label(labels, a)} "
        f"but {format_dim(second)} in {label(labels, b)}",
        axes=(name,),
        sizes=(first, second),
        operands=(a, b),
    )
