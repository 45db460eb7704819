"""Where a declared type meets an inferred one: what annotations see, and what wins."""

from __future__ import annotations

from shapecheck.analyzer.context import Context
from shapecheck.types import ArrayType


def visible(value: ArrayType, ctx: Context) -> ArrayType:
    """`value` as annotations see it: vmap's batch axes are invisible to the mapped function."""
    if not ctx.hidden or not any(name in ctx.hidden for name, _ in value.named):
        return value
    return value.with_named((n, s) for n, s in value.named if n not in ctx.hidden)


def prefer(declared: ArrayType, inferred: ArrayType) -> ArrayType:
    """The declared type, with what inference knows filling its unknown parts."""
    if declared.is_anything:
        return inferred if declared.dtype is None else inferred.with_dtype(declared.dtype)
    if declared.ellipsis is None and inferred.ellipsis is None and len(declared.dims) == len(inferred.dims):
        dims = tuple(d if isinstance(d, int) else (i if i is not None else d)
                     for d, i in zip(declared.dims, inferred.dims, strict=True))
        return ArrayType(declared.dtype or inferred.dtype, dims, declared.named, None, declared.named_open)
    return declared

