"""`jnp.linalg`'s matrix functions: inverses, determinants, solves and decompositions of
stacks of matrices (`(..., m, n)`).

Each takes the last two dims as a matrix and the ones before as a batch: an argument of rank
below 2 is SC106 (it has no matrix), a matrix that must be square and is not (inv, det,
cholesky, eigh) SC104, as is a right-hand side of another size than the matrix's in `solve`,
whose batches broadcast (SC101). cholesky, eigh and eigvalsh add each matrix to its transpose
first, so there a `(1, n)` matrix is an `(n, n)` one. Results are floating point: an integer matrix is inverted
in the default float.
"""

from __future__ import annotations

from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.algebra.promotion import default
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim, format_shape
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType


def square(value: ArrayType, what: str) -> Outcome:
    """inv, cholesky (and the matrix of det, eigh): a stack of square matrices, kept."""
    problem = _matrix(value, what) or _square(value, what)
    if problem is not None:
        return Outcome(value.with_dims((), 0), (problem,))
    return Outcome(_inexact(value))


def symmetrized(value: ArrayType, what: str) -> Outcome:
    """cholesky, eigh and eigvalsh symmetrize their input first (`(a + a^H) / 2`): each matrix
    broadcasts with its transpose, so a `(1, n)` one makes an `(n, n)` one."""
    found = _stack(value, what)
    if isinstance(found, Outcome):
        return found
    *rest, rows, columns = found.dims
    if rows == 1 or columns == 1:
        size = columns if rows == 1 else rows
    elif certainly_differ(rows, columns):
        return Outcome(value.with_dims((), 0), (Problem(
            Code.BROADCAST_MISMATCH,
            f"{what} symmetrizes its argument, adding its transpose, and takes square matrices (..., n, n); its "
            f"argument has shape {format_shape(value.dims)}: {format_dim(rows)} rows and {format_dim(columns)} "
            f"columns, which do not broadcast with the transpose's", sizes=(rows, columns), operands=(0,)),))
    else:
        size = rows
    return Outcome(found.with_dims((*rest, size, size)))


def batch(value: ArrayType, what: str, keep: int = 0, *, symmetrize: bool = False) -> Outcome:
    """det and eigvalsh (keep 0 and 1 of the matrix dims): the batch of square matrices."""
    found = symmetrized(value, what) if symmetrize else square(value, what)
    if found.problems or found.type.ellipsis is not None:
        return found
    dims = found.type.dims
    return Outcome(found.type.with_dims(dims[:-2] + dims[-2:][:keep]))


def matrix_power(value: ArrayType, n: int, what: str) -> Outcome:
    """`jnp.linalg.matrix_power(a, n)`: a stack of square matrices, kept; a negative power inverts
    them, in floating point."""
    found = square(value, what)
    if found.problems or n < 0:
        return found
    return Outcome(value)


def eigenvalues(value: ArrayType, what: str, vectors: bool) -> tuple[Outcome, tuple[ArrayType, ...]]:
    """`jnp.linalg.eigvals` (and `eig`, with `vectors`): the eigenvalues `(..., n)` of square
    matrices, complex (and the eigenvectors `(..., n, n)`)."""
    found = square(value, what)
    if found.problems or found.type.ellipsis is not None:
        return found, ()
    matrices = found.type.with_dtype(_complex(found.type.dtype))
    values_ = matrices.with_dims(matrices.dims[:-1])
    return Outcome(values_), ((values_, matrices) if vectors else (values_,))


def lstsq(a: ArrayType, b: ArrayType, what: str) -> tuple[Outcome, ArrayType | None]:
    """`jnp.linalg.lstsq(a, b)`: `a` a matrix (m, n), `b` of its m rows, `(m,)` or `(m, k)`: the
    solution `(n,)` or `(n, k)`, and the singular values `(min(m, n),)`. None where the ranks
    are not these (not read)."""
    if a.ellipsis is not None or b.ellipsis is not None or len(a.dims) != 2 or len(b.dims) not in (1, 2):
        return Outcome(a.with_dims((), 0)), None
    rows, columns = a.dims
    if certainly_differ(rows, b.dims[0]):
        return Outcome(a.with_dims((), 0), (Problem(
            Code.CONTRACTION_MISMATCH, f"{what}: the matrix has shape {format_shape(a.dims)} and the right-hand side "
            f"{format_shape(b.dims)}: both have the m = {format_dim(rows)} rows", sizes=(rows, b.dims[0])),)), None
    dtype = joint_dtype(_inexact(a), _inexact(b))
    solution = ArrayType(dtype, (columns, *b.dims[1:]))
    return Outcome(solution), ArrayType(dtype, (_least(rows, columns),))


def _complex(dtype: str | None) -> str | None:
    """The complex type of a real one's eigenvalues (integers are computed in the default float)."""
    kind = kind_of(dtype)
    if kind is None:
        return None
    if kind == "c":
        return dtype
    return "c128" if dtype == "f64" or kind in "biu" else "c64"


def pinv(value: ArrayType, what: str) -> Outcome:
    """The pseudo-inverse of each `(m, n)` matrix: `(n, m)`."""
    found = _stack(value, what)
    if isinstance(found, Outcome):
        return found
    *rest, rows, columns = found.dims
    return Outcome(found.with_dims((*rest, columns, rows)))


def solve(a: ArrayType, b: ArrayType, what: str) -> Outcome:
    """`solve(a, b)`: `a` a stack of square `(n, n)` matrices; `b` a vector `(n,)` (rank 1
    only), or a stack of `(n, k)` matrices whose batch broadcasts with `a`'s."""
    problem = _matrix(a, what) or _square(a, what)
    if problem is not None:
        return Outcome(a.with_dims((), 0), (problem,))
    if a.ellipsis is not None or b.ellipsis is not None:
        return Outcome(a.with_dims((), 0))
    size = a.dims[-1]
    if len(b.dims) == 0:
        return Outcome(a.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what}: the right-hand side is 0-d; it is a vector (n,) or matrices (..., n, k)",
            operands=(1,)),))
    rows = b.dims[0] if len(b.dims) == 1 else b.dims[-2]
    if certainly_differ(rows, size):
        shown = "vector" if len(b.dims) == 1 else "matrix"
        return Outcome(a.with_dims((), 0), (Problem(
            Code.CONTRACTION_MISMATCH,
            f"{what}: the matrix {format_shape(a.dims)} has {format_dim(size)} rows, but the right-hand "
            f"{shown} {format_shape(b.dims)} has {format_dim(rows)}"
            + (" (a right-hand side of rank 2 or more is matrices (..., n, k); a stack of vectors "
               "is b[..., None])" if len(b.dims) >= 2 and len(a.dims) > 2 else ""),
            sizes=(size, rows), operands=(0, 1)),))
    if len(b.dims) == 1:
        return Outcome(_inexact(ArrayType(joint_dtype(a, b), (*a.dims[:-2], size), a.named, None, a.named_open)))
    batches = broadcast([a.with_dims(a.dims[:-2]), b.with_dims(b.dims[:-2])], ["the matrices' batch",
                                                                             "the right-hand side's batch"])
    if batches.problems:
        return Outcome(a.with_dims((), 0), tuple(
            Problem(p.code, f"{what}: {p.message}", p.axes, p.sizes, p.operands) for p in batches.problems))
    joined = batches.type
    return Outcome(_inexact(ArrayType(joint_dtype(a, b), (*joined.dims, size, b.dims[-1]), joined.named, None,
                                      joined.named_open)))


def svd(value: ArrayType, full: bool, with_vectors: bool, what: str) -> tuple[Outcome, tuple[ArrayType, ...]]:
    """`svd(a, full_matrices, compute_uv)`: U `(m, m or k)`, S `(k,)`, Vh `(n or k, n)` per
    `(m, n)` matrix, k = min(m, n); S alone without the vectors."""
    found = _stack(value, what)
    if isinstance(found, Outcome):
        return found, ()
    *rest, rows, columns = found.dims
    least = _least(rows, columns)
    singular = found.with_dims((*rest, least))
    if not with_vectors:
        return Outcome(singular), (singular,)
    left = found.with_dims((*rest, rows, rows if full else least))
    right = found.with_dims((*rest, columns if full else least, columns))
    return Outcome(singular), (left, singular, right)


def qr(value: ArrayType, mode: str, what: str) -> tuple[Outcome, tuple[ArrayType, ...]]:
    """`qr(a, mode)`: Q `(m, k)` and R `(k, n)` ("reduced"), Q `(m, m)` and R `(m, n)`
    ("complete"), or R alone ("r")."""
    found = _stack(value, what)
    if isinstance(found, Outcome):
        return found, ()
    *rest, rows, columns = found.dims
    inner = rows if mode == "complete" else _least(rows, columns)
    r = found.with_dims((*rest, inner, columns))
    if mode == "r":
        return Outcome(r), (r,)
    return Outcome(r), (found.with_dims((*rest, rows, inner)), r)


def eigh(value: ArrayType, what: str, symmetrize: bool = True) -> tuple[Outcome, tuple[ArrayType, ...]]:
    """`eigh(a)`: the eigenvalues `(n,)` and eigenvectors `(n, n)` of each square matrix."""
    found = symmetrized(value, what) if symmetrize else square(value, what)
    if found.problems or found.type.ellipsis is not None:
        return found, ()
    vectors = found.type
    return found, (vectors.with_dims(vectors.dims[:-1]), vectors)


def _stack(value: ArrayType, what: str) -> ArrayType | Outcome:
    """`value` as floating-point matrices of a known rank; or what to return at once (SC106
    for a rank below 2, an unknown result for a rank not known)."""
    problem = _matrix(value, what)
    if problem is not None:
        return Outcome(value.with_dims((), 0), (problem,))
    found = _inexact(value)
    return Outcome(found) if found.ellipsis is not None else found


def _matrix(value: ArrayType, what: str) -> Problem | None:
    if value.ellipsis is None and len(value.dims) < 2:
        return Problem(Code.AXIS_OUT_OF_RANGE,
                       f"{what} takes matrices (..., m, n), but its argument has shape {format_shape(value.dims)}",
                       operands=(0,))
    return None


def _square(value: ArrayType, what: str) -> Problem | None:
    if value.ellipsis is None and certainly_differ(value.dims[-2], value.dims[-1]):
        return Problem(Code.CONTRACTION_MISMATCH,
                       f"{what} takes square matrices (..., n, n), but its argument has shape "
                       f"{format_shape(value.dims)}: {format_dim(value.dims[-2])} rows and "
                       f"{format_dim(value.dims[-1])} columns",
                       sizes=(value.dims[-2], value.dims[-1]), operands=(0,))
    return None


def _least(first: Dim, second: Dim) -> Dim:
    return min(first, second) if isinstance(first, int) and isinstance(second, int) else None


def _inexact(value: ArrayType) -> ArrayType:
    """`value` as floating point: JAX computes these in the default float for integers."""
    if kind_of(value.dtype) in ("b", "i", "u"):
        return value.with_dtype(default("f").dtype)
    return value


def joint_dtype(a: ArrayType, b: ArrayType) -> str | None:
    """The dtype JAX promotes `a`'s and `b`'s to."""
    return broadcast([a.with_dims(()), b.with_dims(())]).type.dtype


