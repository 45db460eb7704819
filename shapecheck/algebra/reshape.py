"""`reshape` (with one -1) and `squeeze`: element counts must be preserved."""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.outcome import Outcome, Problem, normalize_axis, out_of_range
from shapecheck.dims import Dim, format_dim, product
from shapecheck.types import ArrayType


def reshape(value: ArrayType, new: Sequence[Dim]) -> Outcome:
    """`x.reshape(new)`; `-1` in `new` stands for the size that keeps the element count."""
    holes = [i for i, d in enumerate(new) if d == -1]
    if len(holes) > 1:
        return Outcome(
            value.with_dims([None if d == -1 else d for d in new]),
            (Problem("SC105", "reshape: only one dim may be -1"),),
        )
    if any(isinstance(d, int) and d < -1 for d in new):
        bad = next(d for d in new if isinstance(d, int) and d < -1)
        return Outcome(value.with_dims([None] * len(new)),
                       (Problem("SC105", f"reshape: size {bad} is negative"),))
    known_new = [d for d in new if d != -1]
    total = product(value.dims) if value.ellipsis is None else None
    partial = product(tuple(known_new))
    dims = list(new)
    problems: list[Problem] = []
    if holes:
        fill: Dim = None
        if total is not None and partial is not None:
            if partial == 0 or total % partial:
                problems.append(
                    Problem("SC105", f"reshape: cannot reshape {value.positional_text()} ({total} "
                            f"elements) into {_text(new)}: {total} is not a multiple of {partial}",
                            sizes=(total, partial))
                )
            else:
                fill = total // partial
        dims[holes[0]] = fill
    elif total is not None and partial is not None and total != partial:
        problems.append(
            Problem("SC105", f"reshape: cannot reshape {value.positional_text()} ({total} elements) "
                    f"into {_text(new)} ({partial} elements)", sizes=(total, partial))
        )
    return Outcome(value.with_dims(dims), tuple(problems))


def squeeze(value: ArrayType, axis: int | Sequence[int] | None = None) -> Outcome:
    """`jnp.squeeze`: drop size-1 dims (all of them, or those named by `axis`)."""
    if value.ellipsis is not None:
        return Outcome(value.with_dims((), 0))
    rank = len(value.dims)
    if axis is None:
        if any(not isinstance(d, int) for d in value.dims):
            return Outcome(value.with_dims((), 0))
        return Outcome(value.with_dims([d for d in value.dims if d != 1]))
    axes = [axis] if isinstance(axis, int) else list(axis)
    problems: list[Problem] = []
    drop: set[int] = set()
    for a in axes:
        position = normalize_axis(a, rank)
        if position is None:
            problems.append(out_of_range(a, rank, "squeeze"))
            continue
        if position in drop:
            # JAX refuses an axis named twice (0 and -rank too), as reductions do.
            problems.append(Problem("SC106", f"squeeze: axis {a} is repeated", axes=(a,)))
            continue
        size = value.dims[position]
        if isinstance(size, int) and size != 1:
            problems.append(
                Problem("SC105", f"squeeze: axis {a} has size {size}; only size-1 dims can be "
                        "squeezed", axes=(a,), sizes=(size,))
            )
        drop.add(position)
    return Outcome(value.with_dims([d for i, d in enumerate(value.dims) if i not in drop]),
                   tuple(problems))


def _text(dims: Sequence[Dim]) -> str:
    inner = ", ".join(format_dim(d) for d in dims)
    return f"({inner},)" if len(dims) == 1 else f"({inner})"
