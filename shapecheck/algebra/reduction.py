"""Reductions and collectives over positional ints, axis names, or a tuple mixing both."""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.outcome import Outcome, Problem, normalize_axis, out_of_range
from shapecheck.codes import Code
from shapecheck.types import ArrayType

Axis = int | str
"""One reduction axis: a positional index or an axis name."""


def reduce(
    value: ArrayType,
    axis: Axis | Sequence[Axis] | None,
    *,
    keepdims: bool = False,
    what: str = "the reduced value",
    dtype: str | None = None,
    keep_dtype: bool = True,
) -> Outcome:
    """`sum/max/mean/...`, `logsumexp`, `psum/pmean/...`: names leave the named shape, ints the positional.

    `axis=None` reduces every positional dim and no named one, as jnp.sum does inside xmap.
    """
    axes: tuple[Axis, ...]
    if axis is None:
        if value.ellipsis is not None:
            # Every positional dim goes: none are left, or (keepdims) an unknown number of 1s.
            reduced = value.with_dims((), 0 if keepdims else None)
            return Outcome(_dtype(reduced, dtype, keep_dtype))
        axes = tuple(range(len(value.dims)))
    elif isinstance(axis, int | str):
        axes = (axis,)
    else:
        axes = tuple(axis)
    names = {a for a in axes if isinstance(a, str)}
    ints = [a for a in axes if isinstance(a, int)]
    problems: list[Problem] = []
    named = tuple((n, s) for n, s in value.named if n not in names)
    if value.ellipsis is not None:
        # Without a known rank, positional reductions leave an unknown positional shape.
        dims_result = value.with_dims((), 0) if ints else value
        return Outcome(_dtype(dims_result.with_named(named), dtype, keep_dtype))
    rank = len(value.dims)
    drop: set[int] = set()
    for a in ints:
        position = normalize_axis(a, rank)
        if position is None:
            problems.append(out_of_range(a, rank, what))
            continue
        if position in drop:
            problems.append(Problem(Code.AXIS_OUT_OF_RANGE, f"axis {a} is repeated in the reduction", axes=(a,)))
        drop.add(position)
    if keepdims:
        dims = tuple(1 if i in drop else d for i, d in enumerate(value.dims))
    else:
        dims = tuple(d for i, d in enumerate(value.dims) if i not in drop)
    result = value.with_dims(dims).with_named(named)
    if problems:
        # An axis that is not there: which dims the program meant to reduce is not known, so
        # the result's positional shape is not either (nothing built from it reports again).
        result = result.with_dims((), 0)
    return Outcome(_dtype(result, dtype, keep_dtype), tuple(problems))


def _dtype(value: ArrayType, dtype: str | None, keep: bool) -> ArrayType:
    if dtype is not None:
        return value.with_dtype(dtype)
    return value if keep else value.with_dtype(None)
