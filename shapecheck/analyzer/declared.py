"""Where a declared type meets an inferred one: what annotations see, and what wins."""

from __future__ import annotations

import ast

from shapecheck.algebra.declared_sharding import AxisTypes, typed
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.walk import code
from shapecheck.dtypes import KINDS, admitted
from shapecheck.types import ArrayType


def source_of(node: ast.AST) -> str:
    """The expression that computed a checked value, as SC301's message names it."""
    return f"`{code(node, 40)}`"


def visible(value: ArrayType, ctx: Context) -> ArrayType:
    """`value` as annotations see it: vmap's batch axes are invisible to the mapped function."""
    if not ctx.hidden or not any(name in ctx.hidden for name, _ in value.named):
        return value
    return value.with_named((n, s) for n, s in value.named if n not in ctx.hidden)


def prefer(declared: ArrayType, inferred: ArrayType, axis_types: AxisTypes | None = None) -> ArrayType:
    """The declared type, with what inference knows filling its unknown parts. A declared
    sharding is the value's (its Explicit axes, where `axis_types` tells them)."""
    dtype = _dtype(declared, inferred)
    if declared.is_anything:
        return inferred if dtype == inferred.dtype else inferred.with_dtype(dtype)
    sharding = typed(declared.sharding, axis_types) if declared.sharding is not None and declared.dims else None
    if declared.ellipsis is None and inferred.ellipsis is None and len(declared.dims) == len(inferred.dims):
        dims = tuple(d if isinstance(d, int) else (i if i is not None else d)
                     for d, i in zip(declared.dims, inferred.dims, strict=True))
        return ArrayType(dtype, dims, declared.named, None, declared.named_open, sharding=sharding)
    return declared if dtype == declared.dtype else declared.with_dtype(dtype)


def axis_types(ctx: Context) -> AxisTypes | None:
    """The axis types of the mesh in context, which a declared sharding's axes are read on."""
    return ctx.mesh.axis_types if ctx.mesh is not None else None


def _dtype(declared: ArrayType, inferred: ArrayType) -> str | None:
    """The declared dtype, or the inferred one where the declaration is looser: none, or a
    jaxtyping category (`Float`) that the inferred dtype belongs to."""
    allowed = admitted(declared.dtype)
    if allowed is None or (declared.dtype not in KINDS and inferred.dtype in allowed):
        return inferred.dtype
    return declared.dtype

