"""`jax.scipy.signal`'s N-d convolutions: `convolve`, `correlate`, `convolve2d`,
`correlate2d` and `fftconvolve`.

Each takes two arrays of one rank and slides one over the other along every axis: `full` is
`n + m - 1` long, `same` keeps `in1`'s length (not the longer one's, as `jnp.convolve` does),
`valid` is `|n - m| + 1`. The direct method (JAX's `_convolve_nd`, which every one but
`method='fft'` runs) demands that one input is at least as large as the other along every
axis, whatever the mode, and refuses empty inputs; the FFT method demands the first only in
`valid` mode. Both compute in floating point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from shapecheck.algebra.outcome import Outcome, Problem, label
from shapecheck.algebra.promotion import inexact, promoted
from shapecheck.codes import Code
from shapecheck.dims import Dim, format_shape
from shapecheck.types import ArrayType

Mode = Literal["full", "same", "valid"]
MODES: Final[tuple[Mode, ...]] = ("full", "same", "valid")


def convolve(in1: ArrayType, in2: ArrayType, mode: Mode, what: str, *, fft: bool = False, rank: int | None = None,
             labels: Sequence[str] | None = None) -> Outcome:
    """The convolution (or correlation: the same shapes) of `in1` with `in2` in `mode`; `rank`
    the one rank the API takes (2 for `convolve2d`), `fft` for the FFT method's rules."""
    dtype = inexact(promoted((in1, in2))).dtype
    unknown = Outcome(ArrayType(dtype, (), ellipsis=0))
    if in1.ellipsis is not None or in2.ellipsis is not None:
        return unknown
    first, second = in1.dims, in2.dims
    if rank is not None and (len(first) != rank or len(second) != rank):
        index = 0 if len(first) != rank else 1
        return Outcome(unknown.type, (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what} takes {rank}-d arrays, but {label(labels, index)} has shape "
            f"{format_shape((first, second)[index])}", operands=(index,)),))
    if len(first) != len(second):
        return Outcome(unknown.type, (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what} takes two arrays of one rank, but {label(labels, 0)} has shape "
            f"{format_shape(first)} and {label(labels, 1)} {format_shape(second)}", operands=(0, 1)),))
    for index, dims in enumerate((first, second)):
        if 0 in dims:
            if fft:
                return unknown  # no check of its own; what slicing an empty transform makes is not followed
            return Outcome(unknown.type, (Problem(
                Code.SIZE_ARGUMENT_MISMATCH, f"{what} takes non-empty arrays, but {label(labels, index)} has "
                f"shape {format_shape(dims)}", sizes=(0,), operands=(index,)),))
    if not fft or mode == "valid":
        known = [(n, m) for n, m in zip(first, second, strict=True) if isinstance(n, int) and isinstance(m, int)]
        if any(n > m for n, m in known) and any(n < m for n, m in known):
            return Outcome(unknown.type, (Problem(
                Code.SIZE_ARGUMENT_MISMATCH, f"{what}: one input must be at least as large as the other along every "
                f"axis, but {label(labels, 0)} has shape {format_shape(first)} and {label(labels, 1)} "
                f"{format_shape(second)}", sizes=(*first, *second), operands=(0, 1)),))
    return Outcome(ArrayType(dtype, tuple(_length(n, m, mode, fft) for n, m in zip(first, second, strict=True))))


def _length(n: Dim, m: Dim, mode: Mode, fft: bool) -> Dim:
    if mode == "same":
        return n
    if isinstance(n, int) and isinstance(m, int):
        return n + m - 1 if mode == "full" else abs(n - m) + 1
    if m == 1 and not fft:
        return n  # a kernel of one along this axis keeps a (non-empty) input's length in either mode
    return None
