"""`reshape` (with one -1) and `squeeze`: element counts must be preserved."""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.outcome import Outcome, Problem, normalize_axis, out_of_range
from shapecheck.codes import Code
from shapecheck.dims import Dim, Sym, format_dim, product
from shapecheck.types import ArrayType


def reshape(value: ArrayType, new: Sequence[Dim]) -> Outcome:
    """`x.reshape(new)`; `-1` in `new` stands for the size that keeps the element count."""
    holes = [i for i, d in enumerate(new) if d == -1]
    if len(holes) > 1:
        return Outcome(
            value.with_dims([None if d == -1 else d for d in new]),
            (Problem(Code.RESHAPE_MISMATCH, "reshape: only one dim may be -1"),),
        )
    if any(isinstance(d, int) and d < -1 for d in new):
        bad = next(d for d in new if isinstance(d, int) and d < -1)
        return Outcome(value.with_dims([None] * len(new)),
                       (Problem(Code.RESHAPE_MISMATCH, f"reshape: size {bad} is negative"),))
    known_new = [d for d in new if d != -1]
    total = product(value.dims) if value.ellipsis is None else None
    partial = product(tuple(known_new))
    dims = list(new)
    problems: list[Problem] = []
    if total is None or partial is None:
        # Rigid symbols: the counts are monomials (`3 * n * k`), equal for every size only if
        # they are the same monomial.
        if holes:
            dims[holes[0]] = None
        counted = _symbolic(value, new, known_new, holes, dims)
        if counted is not None:
            problems.append(counted)
        return Outcome(value.with_dims(dims), tuple(problems))
    if holes:
        fill: Dim = None
        if total is not None and partial is not None:
            if partial == 0 or total % partial:
                problems.append(
                    Problem(Code.RESHAPE_MISMATCH, f"reshape: cannot reshape {value.positional_text()} ({total} "
                            f"elements) into {_text(new)}: {total} is not a multiple of {partial}",
                            sizes=(total, partial))
                )
            else:
                fill = total // partial
        dims[holes[0]] = fill
    elif total is not None and partial is not None and total != partial:
        problems.append(
            Problem(Code.RESHAPE_MISMATCH, f"reshape: cannot reshape {value.positional_text()} ({total} elements) "
                    f"into {_text(new)} ({partial} elements)", sizes=(total, partial))
        )
    return Outcome(value.with_dims(dims), tuple(problems))


Monomial = tuple[int, tuple[str, ...]]
"""An element count: a known factor times rigid symbols (sorted, with repeats)."""


def _monomial(dims: Sequence[Dim]) -> Monomial | None:
    factor = 1
    names: list[str] = []
    for dim in dims:
        if isinstance(dim, int):
            factor *= dim
        elif isinstance(dim, Sym) and dim.rigid:
            names.append(dim.name)
        else:
            return None
    return factor, tuple(sorted(names))


def _symbolic(value: ArrayType, new: Sequence[Dim], known_new: Sequence[Dim], holes: list[int],
              dims: list[Dim]) -> Problem | None:
    """SC105 when rigid-symbol counts certainly differ; fills a -1 where the quotient is a dim."""
    total = _monomial(value.dims) if value.ellipsis is None else None
    partial = _monomial(known_new)
    if total is None or partial is None or 0 in (total[0], partial[0]):
        return None
    if not holes:
        # Known sizes among symbols mark unit axes and splits whose relation to the symbols the
        # annotations cannot state (ejkernel's (b, kv_heads, 1, d) -> (b, q_heads, d) holds
        # wherever a group of q_heads shares one kv head): only all-symbol shapes are compared.
        if any(isinstance(d, int) for d in (*value.dims, *known_new)):
            return None
        if not _certainly_unequal(total, partial):
            return None
        return Problem(Code.RESHAPE_MISMATCH, f"reshape: cannot reshape {value.positional_text()} into {_text(new)}: "
                       f"{_monomial_text(total)} elements against {_monomial_text(partial)}, "
                       "which differ for some sizes of the symbols")
    rest = list(total[1])
    for name in partial[1]:
        if name not in rest:
            return None  # not a multiple for every size: in doubt, no report
        rest.remove(name)
    if total[0] % partial[0]:
        return None
    factor = total[0] // partial[0]
    if not rest:
        dims[holes[0]] = factor
    elif factor == 1 and len(rest) == 1:
        dims[holes[0]] = Sym(rest[0], rigid=True)
    return None


def _certainly_unequal(a: Monomial, b: Monomial) -> bool:
    """Whether two counts differ in a way no unwritten relation between symbols explains.

    Real code reshapes `('heads',)` into `('kv_heads', 'groups')` where heads = kv_heads *
    groups: a relation the annotations cannot state. So after cancelling common symbols only
    one symbol against another (`k` against `n`, as in a swapped annotation) is reported.
    """
    rest_a, rest_b = list(a[1]), list(b[1])
    for name in a[1]:
        if name in rest_b:
            rest_a.remove(name)
            rest_b.remove(name)
    return len(rest_a) == len(rest_b) == 1 and a[0] == b[0]


def _monomial_text(count: Monomial) -> str:
    factor, names = count
    parts = ([str(factor)] if factor != 1 or not names else []) + list(names)
    return " * ".join(parts)


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
            problems.append(Problem(Code.AXIS_OUT_OF_RANGE, f"squeeze: axis {a} is repeated", axes=(a,)))
            continue
        size = value.dims[position]
        if isinstance(size, int) and size != 1:
            problems.append(
                Problem(Code.RESHAPE_MISMATCH, f"squeeze: axis {a} has size {size}; only size-1 dims can be "
                        "squeezed", axes=(a,), sizes=(size,))
            )
        drop.add(position)
    return Outcome(value.with_dims([d for i, d in enumerate(value.dims) if i not in drop]),
                   tuple(problems))


def _text(dims: Sequence[Dim]) -> str:
    inner = ", ".join(format_dim(d) for d in dims)
    return f"({inner},)" if len(dims) == 1 else f"({inner})"
