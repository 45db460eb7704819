"""`jnp.linalg`'s matrix functions (inv, pinv, det, slogdet, cholesky, eigh, eigvalsh, solve, svd,
qr, matrix_power, eig, eigvals, svdvals, lstsq, multi_dot, outer) and `jnp.outer` and `jnp.diff`:
shapes by `algebra.decompositions` (multi_dot's by `algebra.linalg`). A decomposition's parts are a tuple (`u, s, vh = jnp.linalg.svd(a)`); their names (`.U`, `.S`) are not followed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import decompositions, linalg
from shapecheck.algebra.outcome import Outcome, Problem, normalize_axis, out_of_range
from shapecheck.algebra.promotion import promoted
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    array,
    element_labels,
    finish,
    finished,
    passed,
    refused,
)
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Seq, Value, as_int, as_str
from shapecheck.codes import Code
from shapecheck.dims import product, total
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

LINALG: Final = f"{JNP}.linalg"


@REGISTRY.handles(f"{LINALG}.inv", signature="a")
def square(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("a"))
    return None if value is None else finished(interp, call, decompositions.square(value, _name(call)))


@REGISTRY.handles(f"{LINALG}.cholesky", signature="a, *, upper=False, symmetrize_input=True")
def cholesky(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, symmetrize = array(call.arg("a")), _flag(call, "symmetrize_input")
    if value is None or symmetrize is None:
        return None
    rule = decompositions.symmetrized if symmetrize else decompositions.square
    return finished(interp, call, rule(value, _name(call)))


@REGISTRY.handles(f"{LINALG}.det", signature="a")
@REGISTRY.handles(f"{LINALG}.eigvalsh", signature="a, UPLO='L', *, symmetrize_input=True")
def batch(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("a"))
    eigenvalues = call.short_name == "eigvalsh"
    symmetrize = _flag(call, "symmetrize_input") if eigenvalues else False
    if value is None or symmetrize is None:
        return None
    return finished(interp, call, decompositions.batch(value, _name(call), 1 if eigenvalues else 0,
                                                      symmetrize=symmetrize))


@REGISTRY.handles(f"{LINALG}.slogdet", signature="a, *, method=None")
def slogdet(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("a"))
    if value is None:
        return None
    found = finished(interp, call, decompositions.batch(value, _name(call)))
    return Seq((found, found)) if isinstance(found, ArrayType) else None  # (sign, logabsdet)


@REGISTRY.handles(f"{LINALG}.matrix_power", signature="a, n")
def matrix_power(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, n = array(call.arg("a")), as_int(call.arg("n"))
    if value is None or n is None:
        return None
    return finished(interp, call, decompositions.matrix_power(value, n, _name(call)))


@REGISTRY.handles(f"{LINALG}.pinv", signature="a, rtol=None, hermitian=False, *, rcond=None")
def pinv(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("a"))
    return None if value is None else finished(interp, call, decompositions.pinv(value, _name(call)))


@REGISTRY.handles(f"{LINALG}.solve", signature="a, b")
def solve(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    a, b = array(call.arg("a")), array(call.arg("b"))
    if a is None or b is None:
        return None
    return finished(interp, call, decompositions.solve(a, b, _name(call)))


@REGISTRY.handles(f"{LINALG}.eigh", signature="a, UPLO=None, symmetrize_input=True")
def eigh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, symmetrize = array(call.arg("a")), _flag(call, "symmetrize_input")
    if value is None or symmetrize is None:
        return None
    return _parts(interp, call, *decompositions.eigh(value, _name(call), symmetrize))


@REGISTRY.handles(f"{LINALG}.svd", signature="a, full_matrices=True, compute_uv=True, hermitian=False, "
                                             "subset_by_index=None")
def svd(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("a"))
    full, vectors = _flag(call, "full_matrices"), _flag(call, "compute_uv")
    if value is None or full is None or vectors is None or (
            passed(call, "subset_by_index")):
        return None
    outcome, parts = decompositions.svd(value, full, vectors, _name(call))
    if not vectors:
        return finished(interp, call, outcome)
    return _parts(interp, call, outcome, parts)


@REGISTRY.handles(f"{LINALG}.qr", signature="a, mode='reduced'")
def qr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("a"))
    mode = as_str(call.arg("mode")) if call.given("mode") else "reduced"
    if value is None or mode not in ("reduced", "complete", "r"):
        return None  # another mode ("raw") or one not known: not followed
    outcome, parts = decompositions.qr(value, mode, _name(call))
    if mode == "r":
        return finished(interp, call, outcome)
    return _parts(interp, call, outcome, parts)


# jax.scipy.linalg's functions of the same shapes as jnp.linalg's (their extra parameters only
# choose a triangle or skip checks); expm keeps each square matrix.
SCIPY_LINALG: Final = "jax.scipy.linalg"


@REGISTRY.handles(f"{SCIPY_LINALG}.inv", signature="a, overwrite_a=False, check_finite=True")
@REGISTRY.handles(f"{SCIPY_LINALG}.cholesky", signature="a, lower=False, overwrite_a=False, check_finite=True")
@REGISTRY.handles(f"{SCIPY_LINALG}.expm", signature="A, *, upper_triangular=False, max_squarings=16")
def scipy_square(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("A" if call.short_name == "expm" else "a"))
    what = f"jax.scipy.linalg.{call.short_name}"
    return None if value is None else finished(interp, call, decompositions.square(value, what))


@REGISTRY.handles(f"{SCIPY_LINALG}.det", signature="a, overwrite_a=False, check_finite=True")
def scipy_det(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("a"))
    return None if value is None else finished(interp, call, decompositions.batch(value, "jax.scipy.linalg.det"))


@REGISTRY.handles(f"{SCIPY_LINALG}.cho_factor", signature="a, lower=False, overwrite_a=False, check_finite=True")
def cho_factor(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`(c, lower)`: the factor of each square matrix, and the triangle it is in."""
    value = array(call.arg("a"))
    if value is None:
        return None
    found = finished(interp, call, decompositions.square(value, "jax.scipy.linalg.cho_factor"))
    return Seq((found, ArrayType("bool_", ()))) if isinstance(found, ArrayType) else None


@REGISTRY.handles(f"{SCIPY_LINALG}.solve_triangular",
                  signature="a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, debug=None, "
                            "check_finite=True")
@REGISTRY.handles(f"{SCIPY_LINALG}.cho_solve", signature="c_and_lower, b, overwrite_b=False, check_finite=True")
def triangular_solve(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A square `(n, n)` matrix (a factor) and a right-hand side of its n rows, `(n,)` or `(n, k)`:
    the solution has the right-hand side's shape. Batches are not followed."""
    if call.short_name == "cho_solve":
        pair = call.arg("c_and_lower")
        a = array(pair.items[0]) if isinstance(pair, Seq) and len(pair.items) == 2 else None
    else:
        a = array(call.arg("a"))
    b = array(call.arg("b"))
    if a is None or b is None or a.ellipsis is not None or b.ellipsis is not None or len(a.dims) != 2 or \
            len(b.dims) not in (1, 2):
        return None
    what = f"jax.scipy.linalg.{call.short_name}"
    found = finished(interp, call, decompositions.square(a, what))
    if not isinstance(found, ArrayType):
        return None
    result = finished(interp, call, decompositions.solve(a, b, what))
    return result if isinstance(result, ArrayType) else None


@REGISTRY.handles(f"{SCIPY_LINALG}.block_diag", signature="*arrs")
def block_diag(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The arrays (each raised to a matrix, as atleast_2d) on the diagonal of one matrix."""
    values = [array(value) for value in call.rest()]
    if not values or None in values or call.opaque:
        return None
    known = [value for value in values if value is not None]
    if any(value.ellipsis is not None or len(value.dims) > 2 for value in known):
        return None  # of rank 3 or more: JAX refuses; not read
    matrices = [value.dims if len(value.dims) == 2 else (1, *value.dims) if value.dims else (1, 1)
                for value in known]
    rows, columns = (total(dims[i] for dims in matrices) for i in (0, 1))
    return ArrayType(promoted(known).dtype, (rows, columns))


@REGISTRY.handles(f"{LINALG}.eigvals", signature="a")
@REGISTRY.handles(f"{LINALG}.eig", signature="a")
def eig(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Complex eigenvalues `(..., n)` (and, eig, eigenvectors `(..., n, n)`) of square matrices."""
    value = array(call.arg("a"))
    if value is None:
        return None
    vectors = call.short_name == "eig"
    outcome, parts = decompositions.eigenvalues(value, _name(call), vectors)
    if not vectors:
        return finished(interp, call, outcome)
    return _parts(interp, call, outcome, parts)


@REGISTRY.handles(f"{LINALG}.svdvals", signature="x, /")
def svdvals(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("x"))
    return None if value is None else finished(interp, call, decompositions.svd(value, False, False, _name(call))[0])


@REGISTRY.handles(f"{LINALG}.lstsq", signature="a, b, rcond=None, *, numpy_resid=False")
def lstsq(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`(solution, residuals, rank, singular values)`; the residuals' and rank's shapes are not followed."""
    a, b = array(call.arg("a")), array(call.arg("b"))
    if a is None or b is None:
        return None
    outcome, singular = decompositions.lstsq(a, b, _name(call))
    found = finished(interp, call, outcome)
    return Seq((found, None, None, singular)) if isinstance(found, ArrayType) else None


@REGISTRY.handles(f"{LINALG}.multi_dot", signature="arrays, *, precision=None")
def multi_dot(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    given = call.arg("arrays")
    if not isinstance(given, Seq):
        return None
    values = [array(item) for item in given.items]
    arrays = [value for value in values if value is not None]
    if len(arrays) != len(values):
        return None
    found = linalg.multi_dot(arrays, element_labels(call, "arrays"))
    return None if found is None else finished(interp, call, found)


@REGISTRY.handles(f"{LINALG}.outer", signature="x1, x2, /")
def linalg_outer(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """jnp.outer of two 1-d arrays only."""
    a, b = array(call.arg("x1")), array(call.arg("x2"))
    if a is None or b is None or a.ellipsis is not None or b.ellipsis is not None:
        return None
    for index, value in enumerate((a, b)):
        if len(value.dims) != 1:
            return refused(interp, call, Problem(
                Code.AXIS_OUT_OF_RANGE, f"jnp.linalg.outer takes 1-d arrays, but its argument {index + 1} has shape "
                f"{value.positional_text()} (jnp.outer flattens)", operands=(index,)))
    return ArrayType(decompositions.joint_dtype(a, b), (a.dims[0], b.dims[0]))


@REGISTRY.handles(f"{JNP}.outer", signature="a, b, out=None")
def outer(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Both arrays flattened: `(a.size, b.size)`, their dtypes promoted."""
    a, b = array(call.arg("a")), array(call.arg("b"))
    if a is None or b is None or a.ellipsis is not None or b.ellipsis is not None:
        return None
    dtype = decompositions.joint_dtype(a, b)
    return ArrayType(dtype, (product(a.dims), product(b.dims)))


@REGISTRY.handles(f"{JNP}.diff", signature="a, n=1, axis=-1, prepend=None, append=None")
def diff(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`n` differences along `axis`: it shrinks by `n` (to 0 at least); what `prepend` and
    `append` add is not followed."""
    value = array(call.arg("a"))
    n = as_int(call.arg("n")) if call.given("n") else 1
    axis = as_int(call.arg("axis")) if call.given("axis") else -1
    extended = any(call.given(name) and call.arg(name) != Const(None) for name in ("prepend", "append"))
    if value is None or n is None or axis is None or value.ellipsis is not None or n < 0:
        return None
    if n == 0:
        return value  # JAX returns the array as it is, reading neither the axis nor the rank
    rank = len(value.dims)
    place = normalize_axis(axis, rank) if rank else None
    if place is None:
        what = "jnp.diff's argument" + (" (diff needs at least one dim)" if not rank else "")
        return refused(interp, call, out_of_range(axis, rank, what))
    if extended:
        return None
    size = value.dims[place]
    shrunk = max(size - n, 0) if isinstance(size, int) else None
    return value.with_dims((*value.dims[:place], shrunk, *value.dims[place + 1:]))


def _flag(call: CallArgs, name: str) -> bool | None:
    if not call.given(name):
        return True
    value = call.arg(name)
    return bool(value.value) if isinstance(value, Const) and isinstance(value.value, bool | int) else None


def _name(call: CallArgs) -> str:
    return f"jnp.linalg.{call.short_name}"


def _parts(interp: Interpreter, call: CallArgs, outcome: Outcome, parts: tuple[ArrayType, ...]) -> Value:
    finish(interp, outcome, call)
    return Seq(tuple(parts)) if parts and not outcome.problems else None


