"""Searching, counting and selecting: `searchsorted`, `digitize`, `interp`, `select`, and what
`nonzero`, `argwhere`, `unique` and `bincount` give for a static `size=` or `length=`.

The sorted sequences (`searchsorted`'s `a`, `digitize`'s bins, `interp`'s `xp` and `fp`) are 1-d;
the results have the queries' shape. Without a static size, how many elements `nonzero` and its
kin find depends on the values: a dim the checker leaves unknown.
"""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.outcome import Outcome, Problem, label
from shapecheck.algebra.promotion import inexact, promoted
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim
from shapecheck.types import ArrayType


def one_dimensional(value: ArrayType, what: str, operand: int = 0) -> Problem | None:
    """SC106 where `value` (a sorted sequence, bins) is not 1-d."""
    if value.ellipsis is None and len(value.dims) != 1:
        return Problem(Code.AXIS_OUT_OF_RANGE, f"{what} is a 1-d array, but it has shape {value.positional_text()}",
                       operands=(operand,))
    return None


def queried(queries: ArrayType, sequence: ArrayType, what: str, index_dtype: str | None,
            labels: Sequence[str] | None = None) -> Outcome:
    """`searchsorted(a, v)`, `digitize(x, bins)`: an index per query, into a 1-d sequence."""
    result = queries.with_dtype(index_dtype)
    problem = one_dimensional(sequence, f"{what}'s {label(labels, 1)}", 1)
    return Outcome(result, (problem,) if problem is not None else ())


def interp(x: ArrayType, xp: ArrayType, fp: ArrayType, labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.interp(x, xp, fp)`: `xp` and `fp` 1-d of one length; floating point, of x's shape."""
    dtype = inexact(promoted((x, xp, fp)))
    result = x.with_dtype(dtype.dtype)
    for index, value in ((1, xp), (2, fp)):
        problem = one_dimensional(value, f"jnp.interp's {label(labels, index)}", index)
        if problem is not None:
            return Outcome(result, (problem,))
    if xp.ellipsis is None and fp.ellipsis is None and certainly_differ(xp.dims[0], fp.dims[0]):
        return Outcome(result, (Problem(
            Code.SIZE_ARGUMENT_MISMATCH, f"jnp.interp's {label(labels, 1)} and {label(labels, 2)} are of one length, "
            f"but have {format_dim(xp.dims[0])} and {format_dim(fp.dims[0])} elements",
            sizes=(xp.dims[0], fp.dims[0]), operands=(1, 2)),))
    return Outcome(result)


def select(conditions: Sequence[ArrayType], choices: Sequence[ArrayType], default: ArrayType,
           labels: Sequence[str] | None = None) -> Outcome:
    """`jnp.select(condlist, choicelist, default)`: as many conditions as choices, one at least,
    all of them and the default broadcast together; the choices' and default's dtype."""
    dtype = promoted((*choices, default))
    if not conditions:
        return Outcome(ArrayType(dtype.dtype, (), ellipsis=0), (Problem(
            Code.SIZE_ARGUMENT_MISMATCH, "jnp.select takes one condition at least (and a choice for each); it is "
            "given none", sizes=(0,)),))
    if len(conditions) != len(choices):
        return Outcome(ArrayType(dtype.dtype, (), ellipsis=0), (Problem(
            Code.SIZE_ARGUMENT_MISMATCH, f"jnp.select takes a choice per condition, but is given {len(conditions)} "
            f"conditions and {len(choices)} choices", sizes=(len(conditions), len(choices))),))
    joint = broadcast([*conditions, default, *choices], labels)
    return Outcome(joint.type.with_dtype(dtype.dtype, dtype.weak), joint.problems)


def found(value: ArrayType, size: Dim, how: str, index_dtype: str | None) -> Outcome | tuple[ArrayType, ...] | None:
    """What `nonzero` (`how`), `argwhere` and `flatnonzero` find in `value`: `size` of them
    (None: as many as the values make, unknown); nonzero of a 0-d array is refused."""
    if value.ellipsis is not None:
        return None
    rank = len(value.dims)
    if how == "nonzero":
        if not rank:
            return Outcome(value.with_dims((), 0), (Problem(
                Code.AXIS_OUT_OF_RANGE, "jnp.nonzero takes an array of rank 1 at least (one index array per dim); "
                "this one is 0-d (jnp.atleast_1d first)"),))
        return tuple(ArrayType(index_dtype, (size,)) for _ in range(rank))
    if how == "argwhere":
        return (ArrayType(index_dtype, (size, rank)),)
    return (ArrayType(index_dtype, (size,)),)
