"""What `jax.scipy.optimize.minimize` and `jax.experimental.ode.odeint` demand of the arrays and
functions they are given, as JAX 0.10.2 runs them.

`minimize(fun, x0, method=...)` runs BFGS (or the experimental L-BFGS) on a vector: x0 is 1-d
(JAX reads `x0.shape[0]` and builds a `(d, d)` inverse Hessian), of a floating dtype (it is
differentiated), and `fun` returns a scalar (`jax.value_and_grad` of it). `odeint(func, y0, t)`
integrates a pytree `y0` over the times `t`, a non-empty 1-d float array: JAX ravels y0 and
func's output each into one vector, so func's output may have any structure of as many elements
as y0; the solution stacks y0's leaves over `len(t)`.
"""

from __future__ import annotations

from collections.abc import Sequence

from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import Dim, format_dim, format_shape, product
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType

MINIMIZE = "jax.scipy.optimize.minimize"
ODEINT = "jax.experimental.ode.odeint"


def minimize_start(x0: ArrayType, label: str) -> Problem | None:
    """x0 that minimize refuses before calling fun: 0-d (JAX's IndexError at `x0.shape[0]`),
    or of no floating dtype (grad's TypeError)."""
    if x0.ellipsis is None and not x0.dims:
        return _vector(x0, label)
    kind = kind_of(x0.dtype)
    if kind is not None and kind in "biu" and not x0.weak:
        return Problem(Code.DTYPE_MISMATCH, f"{MINIMIZE} differentiates fun at x0, so x0 must be floating point, but "
                       f"{label} is of dtype {x0.dtype}", operands=(1,))
    return None


def minimize_rank(x0: ArrayType, label: str) -> Problem | None:
    """x0 of 2 dims or more: its steps (a Hessian by a gradient) no longer line up (JAX fails
    in a dot_general, a broadcast or a norm, after calling fun)."""
    return _vector(x0, label) if x0.ellipsis is None and len(x0.dims) != 1 else None


def _vector(x0: ArrayType, label: str) -> Problem:
    return Problem(Code.AXIS_OUT_OF_RANGE, f"{MINIMIZE} optimizes a 1-d x0, but {label} has shape "
                   f"{format_shape(x0.dims)}; pass x0.ravel() and reshape it inside fun "
                   "(jax.flatten_util.ravel_pytree does it for a pytree)", axes=(0,), operands=(1,))


def objective_problem(value: ArrayType) -> Problem | None:
    """fun's value is differentiated: it must be 0-d, a shape of one element too."""
    if value.dims:
        return Problem(Code.ANNOTATION_MISMATCH, f"{MINIMIZE}'s fun must return a scalar (it is differentiated), but "
                       f"returns shape {format_shape(value.dims)}; reduce it (jnp.sum) or take [0]")
    return None


def times_problem(t: ArrayType, label: str) -> Problem | None:
    """odeint's t: a float array (JAX's TypeError), 1-d (each time a scalar), non-empty
    (t[0] is the start)."""
    kind = kind_of(t.dtype)
    if kind is not None and kind != "f":
        return Problem(Code.DTYPE_MISMATCH, f"{ODEINT} takes an array of floats as t, but {label} is of dtype "
                       f"{t.dtype}", operands=(2,))
    if t.ellipsis is None and len(t.dims) != 1:
        return Problem(Code.AXIS_OUT_OF_RANGE, f"{ODEINT} takes a 1-d array of times as t, but {label} has shape "
                       f"{format_shape(t.dims)}", operands=(2,))
    if t.ellipsis is None and t.dims[0] == 0:
        return Problem(Code.SIZE_ARGUMENT_MISMATCH, f"{ODEINT} starts at t[0], but {label} is empty",
                       sizes=(0,), operands=(2,))
    return None


def state_problem(leaves: Sequence[ArrayType], label: str) -> Problem | None:
    """A y0 of integers only: its raveled state is, and the solver's steps are not (JAX's
    TypeError of the while_loop carry)."""
    kinds = [kind_of(leaf.dtype) for leaf in leaves]
    if leaves and all(kind is not None and kind in "biu" and not leaf.weak for kind, leaf in zip(kinds, leaves,
                                                                                                 strict=True)):
        return Problem(Code.DTYPE_MISMATCH, f"{ODEINT} integrates a floating-point state, but {label} is of dtype "
                       f"{leaves[0].dtype}", operands=(1,))
    return None


def derivative_problem(state: Sequence[ArrayType], derivative: Sequence[ArrayType], shown: str) -> Problem | None:
    """func's output, raveled, must have as many elements as y0 raveled (JAX fails in its
    arithmetic on the two vectors: a broadcast, a concatenation, a split); None where either
    count is not known."""
    have, want = _elements(derivative), _elements(state)
    if have is None or want is None or have == want:
        return None
    return Problem(Code.ANNOTATION_MISMATCH, f"{ODEINT}'s func returns the derivative of y0, with as many elements "
                   f"({format_dim(want)}), but returns {shown} ({format_dim(have)} elements)", sizes=(have, want))


def _elements(leaves: Sequence[ArrayType]) -> int | None:
    counts = [product(leaf.dims) if leaf.ellipsis is None else None for leaf in leaves]
    return None if None in counts else sum(count for count in counts if count is not None)


def trajectory(leaf: ArrayType, length: Dim) -> ArrayType:
    """A leaf of the solution: y0's leaf at each of `length` times, in its own dtype (JAX
    unravels the solution into y0's dtypes)."""
    ellipsis = None if leaf.ellipsis is None else leaf.ellipsis + 1
    return ArrayType(leaf.dtype, (length, *leaf.dims), leaf.named, ellipsis, leaf.named_open)
