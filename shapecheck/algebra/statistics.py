"""NumPy's statistics and curve helpers: `trapezoid`, `cov` and `corrcoef`, `histogram`, `polyval`; and
`jax.scipy.stats.multivariate_normal`'s densities.

`trapezoid(y, x)` integrates along an axis, with sample points `x` 1-d of the axis' length or
of y's shape; `cov` and `corrcoef` take variables as the rows of a 1-d or 2-d array (`y`'s
rows join them, over as many observations); `histogram` counts into `bins` bins (or the
intervals of a 1-d array of edges); `polyval(p, x)` evaluates coefficients along p's first dim;
`multivariate_normal.logpdf(x, mean, cov)` reads vectors along the last dim of `x - mean`, with
a matrix `(n, n)` per batch of `cov`.
"""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.outcome import Outcome, Problem, label, normalize_axis, out_of_range
from shapecheck.algebra.promotion import inexact, promoted
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim, total
from shapecheck.types import ArrayType


def trapezoid(y: ArrayType, x: ArrayType | None, axis: int) -> Outcome:
    """The integral along `axis`, in floating point. As JAX computes it, `axis` moves last, and
    the spacings (`diff(x)` along its own last dim, `x` moved alike) broadcast with y's
    intervals: y's other dims and one fewer than its length."""
    dtype = inexact(promoted((y,) if x is None else (y, x)))
    unknown = Outcome(ArrayType(dtype.dtype, (), ellipsis=0))
    if y.ellipsis is not None or (x is not None and x.ellipsis is not None):
        return unknown
    rank = len(y.dims)
    place = normalize_axis(axis, rank)
    if place is None:
        return Outcome(unknown.type, (out_of_range(axis, rank, "jnp.trapezoid's y"),))
    rest = y.dims[:place] + y.dims[place + 1:]
    if x is None:
        return Outcome(ArrayType(dtype.dtype, rest, y.named))
    length = y.dims[place]
    intervals = y.with_dims((*rest, length - 1 if isinstance(length, int) else None))
    if len(x.dims) == 1:
        spacing: tuple[Dim, ...] = x.dims
    else:
        own = normalize_axis(axis, len(x.dims))
        if own is None:
            return Outcome(unknown.type, (out_of_range(axis, len(x.dims), "jnp.trapezoid's x"),))
        spacing = (*x.dims[:own], *x.dims[own + 1:], x.dims[own])
    steps = x.with_dims((*spacing[:-1], spacing[-1] - 1 if isinstance(spacing[-1], int) else None)) if spacing \
        else x
    joint = broadcast([steps, intervals], ["the spacings of x", "the intervals of y"])
    if joint.problems:
        return Outcome(unknown.type, joint.problems)
    return Outcome(ArrayType(dtype.dtype, joint.type.dims[:-1], y.named))


def covariance(m: ArrayType, y: ArrayType | None, rowvar: bool, what: str) -> Outcome:
    """`cov(m, y, rowvar)`, `corrcoef`: one row and column per variable (a 1-d array is one
    variable; `y`'s join m's, over as many observations); 0-d where there is one variable."""
    dtype = inexact(promoted((m,) if y is None else (m, y)))
    unknown = Outcome(ArrayType(dtype.dtype, (), ellipsis=0))
    counts: list[Dim] = []
    observations: list[Dim] = []
    for name, value in (("m", m), ("y", y)):
        if value is None:
            continue
        if value.ellipsis is not None:
            return unknown
        if len(value.dims) > 2:
            return Outcome(unknown.type, (Problem(
                Code.AXIS_OUT_OF_RANGE, f"{what}'s {name} is 1-d or 2-d (variables by observations), but has shape "
                f"{value.positional_text()}"),))
        dims = value.dims if len(value.dims) == 2 else (1, *value.dims) if value.dims else (1, 1)
        # JAX's rule (not NumPy's): m is transposed unless it is 1-d, y unless it has one row.
        if not rowvar and (len(value.dims) != 1 if name == "m" else dims[0] != 1):
            dims = dims[::-1]
        counts.append(dims[0])
        observations.append(dims[1])
    if len(observations) == 2 and certainly_differ(observations[0], observations[1]):
        return Outcome(unknown.type, (Problem(
            Code.BROADCAST_MISMATCH, f"{what}: m has {format_dim(observations[0])} observations of each variable and "
            f"y {format_dim(observations[1])}", sizes=tuple(observations)),))
    variables = total(counts)
    if variables == 1:
        return Outcome(ArrayType(dtype.dtype, ()))
    return Outcome(ArrayType(dtype.dtype, (variables, variables)))


def histogram(a: ArrayType, bins: Dim | ArrayType, weights: ArrayType | None = None) -> tuple[Outcome, ArrayType | None]:
    """`(counts, edges)`: `bins` counts and `bins + 1` edges, or, for an array of edges (1-d),
    one count fewer than edges; `a` is flattened, and `weights`, one per element of `a`, of a's
    very shape (JAX compares the shapes: they do not broadcast)."""
    dtype = inexact(promoted((a,) if weights is None else (a, weights))).dtype
    if weights is not None and a.ellipsis is None and weights.ellipsis is None and (
            len(a.dims) != len(weights.dims) or any(certainly_differ(n, m) for n, m in zip(a.dims, weights.dims, strict=False))):
        return Outcome(ArrayType(dtype, (), ellipsis=0), (Problem(
            Code.BROADCAST_MISMATCH, f"jnp.histogram's weights hold one weight per element of a, of its shape "
            f"{a.positional_text()}, but have shape {weights.positional_text()}", operands=(0, 1)),)), None
    if isinstance(bins, ArrayType):
        if bins.ellipsis is not None:
            return Outcome(ArrayType(dtype, (), ellipsis=0)), None
        if len(bins.dims) != 1:
            return Outcome(ArrayType(dtype, (), ellipsis=0), (Problem(
                Code.AXIS_OUT_OF_RANGE, f"jnp.histogram's bin edges are a 1-d array, but have shape "
                f"{bins.positional_text()}"),)), None
        edges = bins.dims[0]
        return Outcome(ArrayType(dtype, (edges - 1 if isinstance(edges, int) else None,))), \
            ArrayType(dtype, (edges,))
    return Outcome(ArrayType(dtype, (bins,))), ArrayType(dtype, (bins + 1 if isinstance(bins, int) else None,))


def polyval(p: ArrayType, x: ArrayType) -> Outcome:
    """`polyval(p, x)`: the coefficients along p's first dim; each (p's other dims) broadcasts
    with x."""
    dtype = promoted((p, x))
    if p.ellipsis is not None or not p.dims:
        return Outcome(ArrayType(dtype.dtype, (), ellipsis=0))  # 0-d coefficients: not read
    joint = broadcast([p.with_dims(p.dims[1:]), x])
    return Outcome(joint.type.with_dtype(dtype.dtype, dtype.weak), joint.problems)


def multivariate_normal(x: ArrayType, mean: ArrayType, cov: ArrayType, what: str,
                        labels: Sequence[str] | None = None) -> Outcome:
    """`multivariate_normal.logpdf(x, mean, cov)` (and `pdf`), as JAX 0.10.2 computes it: a 0-d
    mean makes it elementwise (x, mean and cov broadcast); else `n = mean.shape[-1]` and the
    vectors `x - mean` (broadcast) are summed over their last dim, against a scalar variance
    (0-d cov) or a stack of `(n, n)` matrices, whose batch dims broadcast with the vectors'."""
    dtype = inexact(promoted((x, mean, cov))).dtype
    unknown = Outcome(ArrayType(dtype, (), ellipsis=0))
    if x.ellipsis is not None or mean.ellipsis is not None or cov.ellipsis is not None:
        return unknown
    if not mean.dims:
        joint = broadcast([x, mean, cov], labels)
        return Outcome(joint.type.with_dtype(dtype), joint.problems)
    n = mean.dims[-1]
    if cov.dims:
        # Checked before anything else is computed: JAX's ValueError "got incompatible shapes".
        if len(cov.dims) < 2:
            return Outcome(unknown.type, (Problem(
                Code.AXIS_OUT_OF_RANGE, f"{what} takes a 0-d variance or a covariance matrix (..., n, n) as cov, "
                f"but {label(labels, 2)} has shape {cov.positional_text()}", operands=(2,)),))
        if certainly_differ(cov.dims[-2], n) or certainly_differ(cov.dims[-1], n):
            return Outcome(unknown.type, (Problem(
                Code.CONTRACTION_MISMATCH, f"{what}: cov must be (..., n, n) for mean's last dim n = {format_dim(n)}, "
                f"but {label(labels, 2)} has shape {cov.positional_text()}", sizes=(n, *cov.dims[-2:]),
                operands=(1, 2)),))
    centred = broadcast([x, mean], labels)
    if centred.problems:
        return Outcome(unknown.type, centred.problems)
    vectors = centred.type.dims
    if not cov.dims:
        return Outcome(ArrayType(dtype, vectors[:-1]))
    if certainly_differ(vectors[-1], n):
        # A mean of one entry broadcasts against longer vectors of x, which cov's (1, 1) cannot solve.
        return Outcome(unknown.type, (Problem(
            Code.CONTRACTION_MISMATCH, f"{what}: x's vectors have {format_dim(vectors[-1])} entries but mean and "
            f"cov {format_dim(n)}", sizes=(vectors[-1], n), operands=(0, 1)),))
    batch = broadcast([cov.with_dims(cov.dims[:-2]), centred.type.with_dims(vectors[:-1])],
                      [f"the batch dims of {label(labels, 2)}", f"those of {label(labels, 0)} - {label(labels, 1)}"])
    if batch.problems:
        return Outcome(unknown.type, batch.problems)
    return Outcome(ArrayType(dtype, batch.type.dims))
