"""Window functions: `jnp.hanning(M)`, `hamming`, `blackman`, `bartlett` and `kaiser(M, beta)`.

Each gives `M` samples of the default float type (float32, or float64 with x64 on), whatever
its arguments' dtypes. JAX reads `M` as `int(M)` (a float is truncated, a bool is 0 or 1); 0 and
1 give `(0,)` and `(1,)` (ones, computed from nothing else); a negative `M` is refused (its
TypeError "broadcast_in_dim shape must have every element be nonnegative"). `kaiser` scales the
`M` samples by `beta`, which broadcasts with them (an array `beta` of another size is refused)
and must be real (`jnp.i0` refuses complex numbers); for `M` of 0 or 1 `beta` is not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.outcome import Outcome, Problem, label
from shapecheck.codes import Code
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType


def window(what: str, size: int, dtype: str | None, beta: ArrayType | None = None,
           labels: Sequence[str] | None = None) -> Outcome:
    """The window of `size` samples of `dtype` (the default float type) that `what` makes;
    `beta` is kaiser's shape parameter (None for the other windows; not read for 0 or 1
    samples), `labels` name M and beta."""
    result = ArrayType(dtype, (max(size, 0),))
    if size < 0:
        return Outcome(ArrayType(dtype, (None,)), (Problem(
            Code.SIZE_ARGUMENT_MISMATCH, f"{what}: the window size M is {size}; it must not be negative (JAX: "
            "'broadcast_in_dim shape must have every element be nonnegative')", sizes=(size,), operands=(0,)),))
    if beta is None or size <= 1:
        return Outcome(result)
    if kind_of(beta.dtype) == "c":
        return Outcome(result, (Problem(
            Code.DTYPE_MISMATCH, f"{what}: beta {label(labels, 1)} is complex; the Kaiser window's shape parameter "
            "is real (JAX: 'Unsupported input type to jax.numpy.i0')", operands=(1,)),))
    # `beta * sqrt(1 - ((n - alpha) / alpha) ** 2)` over the samples `n`: beta's dims broadcast
    # with the window's, and the window's dtype wins (the samples are of the default float type).
    outcome = broadcast([beta, result], [label(labels, 1), f"the window of {size} samples"])
    problems = tuple(replace(problem, message=f"{what} scales each sample by beta: {problem.message}")
                     for problem in outcome.problems)
    return Outcome(outcome.type.with_dtype(dtype), problems)
