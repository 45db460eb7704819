"""NumPy's statistics and curve helpers: trapezoid, cov, corrcoef, histogram, polyval; and the
index generators: indices, diag_indices, tril_indices, triu_indices, unravel_index, resize.
Their rules are `algebra.statistics`'s; the index generators' sizes are counted here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import statistics
from shapecheck.algebra.outcome import Outcome, out_of_range
from shapecheck.algebra.promotion import Typed, default, inexact
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, dtype_or, finished, flag, passed, shape
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Seq, Value, as_dim, as_int
from shapecheck.dims import Dim
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_INDEX = default("i").dtype


@REGISTRY.handles(f"{JNP}.trapezoid", signature="y, x=None, dx=1.0, axis=-1")
def trapezoid(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    y = array(call.arg("y"))
    x = array(call.arg("x")) if passed(call, "x") else None
    axis = as_int(call.arg("axis")) if call.given("axis") else -1
    if y is None or axis is None or (passed(call, "x") and x is None):
        return None
    return finished(interp, call, statistics.trapezoid(y, x, axis))


@REGISTRY.handles(f"{JNP}.cov", signature="m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, "
                                          "aweights=None, dtype=None")
@REGISTRY.handles(f"{JNP}.corrcoef", signature="x, y=None, rowvar=True, dtype=None")
def covariance(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    m = array(call.arg("m" if call.short_name == "cov" else "x"))
    y = array(call.arg("y")) if passed(call, "y") else None
    rowvar = flag(call.arg("rowvar"), True) if call.given("rowvar") else True
    weighted = any(passed(call, name) for name in ("fweights", "aweights", "dtype") if call.signature is not None
                   and call.signature.accepts(name))
    if m is None or rowvar is None or weighted or (passed(call, "y") and y is None) or (y is not None and not rowvar):
        return None  # y's variables by columns: JAX's transposes are not followed
    return finished(interp, call, statistics.covariance(m, y, rowvar, f"jnp.{call.short_name}"))


@REGISTRY.handles(f"{JNP}.histogram", signature="a, bins=10, range=None, weights=None, density=None")
def histogram(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`(counts, edges)`; `weights` of a's shape (SC101)."""
    a = array(call.arg("a"))
    given = call.arg("bins") if call.given("bins") else Const(10)
    bins: Dim | ArrayType = given if isinstance(given, ArrayType) else as_dim(given)
    weights = array(call.arg("weights")) if passed(call, "weights") else None
    if a is None or bins is None or (passed(call, "weights") and weights is None):
        return None
    counts, edges = statistics.histogram(a, bins, weights)
    found = finished(interp, call, counts, [call.arg_node("a"), call.arg_node("weights")])
    return Seq((found, edges)) if isinstance(found, ArrayType) and edges is not None else None


@REGISTRY.handles(f"{JNP}.polyval", signature="p, x, *, unroll=16")
def polyval(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    p, x = array(call.arg("p")), array(call.arg("x"))
    if p is None or x is None:
        return None
    return finished(interp, call, statistics.polyval(p, x))


@REGISTRY.handles(f"{JNP}.indices", signature="dimensions, dtype=None, sparse=False")
def indices(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A grid of indices: `(len(dims), *dims)`, or, `sparse`, one array per dim, 1 elsewhere."""
    dims = shape(call.arg("dimensions"))
    sparse = flag(call.arg("sparse")) if call.given("sparse") else False
    if dims is None or sparse is None or not isinstance(call.arg("dimensions"), Seq):
        return None
    dtype = dtype_or(call, default("i"))
    if not sparse:
        return ArrayType(dtype, (len(dims), *dims))
    return Seq(tuple(ArrayType(dtype, tuple(size if axis == own else 1 for axis, size in enumerate(dims)))
                     for own in range(len(dims))))


@REGISTRY.handles(f"{JNP}.diag_indices", signature="n, ndim=2")
def diag_indices(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    n, rank = as_dim(call.arg("n")), as_int(call.arg("ndim")) if call.given("ndim") else 2
    if rank is None or rank < 0:
        return None
    return Seq(tuple(ArrayType(_INDEX, (n,)) for _ in range(rank)))


@REGISTRY.handles(f"{JNP}.tril_indices", f"{JNP}.triu_indices", signature="n, k=0, m=None")
def triangle_indices(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The row and column indices of a triangle of an `(n, m)` matrix: as many as it has entries."""
    n = as_int(call.arg("n"))
    k = as_int(call.arg("k")) if call.given("k") else 0
    m = as_int(call.arg("m")) if passed(call, "m") else n
    count: Dim = None
    if n is not None and k is not None and m is not None and n >= 0 and m >= 0:
        lower = call.short_name == "tril_indices"
        count = sum(sum(1 for j in range(m) if (j - i <= k if lower else j - i >= k)) for i in range(n)) \
            if n * m <= 1_000_000 else None
    return Seq((ArrayType(_INDEX, (count,)), ArrayType(_INDEX, (count,))))


@REGISTRY.handles(f"{JNP}.unravel_index", signature="indices, shape")
def unravel_index(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """One array of the indices' shape (and dtype) per dim of `shape`."""
    flat, dims = array(call.arg("indices")), shape(call.arg("shape"))
    if flat is None or dims is None:
        return None
    return Seq(tuple(flat for _ in dims))


@REGISTRY.handles(f"{JNP}.resize", signature="a, new_shape")
def resize(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The elements repeated or cut to `new_shape`: any shape."""
    a, dims = array(call.arg("a")), shape(call.arg("new_shape"))
    return ArrayType(a.dtype, dims) if a is not None and dims is not None else None


@REGISTRY.handles(f"{JNP}.gradient", signature="f, *varargs, axis=None, edge_order=None")
def gradient(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`jnp.gradient(f)`: the derivative along each axis (or those of `axis`), each of f's
    shape in an inexact dtype: one array for one axis, else a list; an axis beyond f's rank is
    SC106."""
    f = array(call.arg("f"))
    if f is None or f.ellipsis is not None:
        return None
    rank = len(f.dims)
    given = call.arg("axis") if call.given("axis") else Const(None)
    chosen: list[int] | None
    if given == Const(None):
        chosen, single = list(range(rank)), rank == 1
    elif as_int(given) is not None:
        chosen, single = [as_int(given) or 0], True
    elif isinstance(given, Seq) and all(as_int(item) is not None for item in given.items):
        chosen, single = [as_int(item) or 0 for item in given.items], False
    else:
        return None
    for axis in chosen:
        if not -rank <= axis < rank:
            return finished(interp, call, Outcome(f, (out_of_range(axis, rank, "the argument of jnp.gradient"),)))
    derivative = f.with_dtype(inexact(Typed(f.dtype, f.weak)).dtype, False)
    return derivative if single else Seq(tuple(derivative for _ in chosen), True)
