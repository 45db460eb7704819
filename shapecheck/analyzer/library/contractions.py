"""Contractions: dot, matmul, vdot, inner, vecdot, matvec, vecmat, tensordot, einsum, lax.dot_general and
lax.batch_matmul; and kron."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import einsum as algebra_einsum
from shapecheck.algebra import linalg
from shapecheck.algebra.promotion import Typed
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    array,
    check_bound,
    code_of,
    dimension_numbers,
    dtype_or,
    finish,
    finished,
    labels,
    passed,
    requested_dtype,
    shape,
)
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Seq,
    Value,
    as_int,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


_CONTRACTIONS = {
    f"{JNP}.dot": linalg.dot, "method:dot": linalg.dot, "jax.lax.dot": linalg.dot,
    f"{JNP}.matmul": linalg.matmul, f"{JNP}.linalg.matmul": linalg.matmul, f"{JNP}.vdot": linalg.vdot,
}


_PLAIN_OPTIONS = frozenset({"precision", "preferred_element_type", "out", "dtype", "out_sharding"})


@REGISTRY.handles(*_CONTRACTIONS, signature="a, b, *, precision=None, preferred_element_type=None")
def contraction(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if set(call.kwargs) - _PLAIN_OPTIONS - {"a", "b"}:
        return None  # np.matmul(a, b, axes=[...]) moves the contracted axes: not modelled
    a, b = array(call.arg("a")), array(call.arg("b"))  # a Python number is a 0-d operand
    if a is not None and b is not None:
        return _preferred(call, finish(interp, _CONTRACTIONS[call.name](a, b, labels(call, 2)), call))
    return None


@REGISTRY.handles(f"{JNP}.inner", f"{JNP}.kron", signature="a, b")
def products(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    a, b = array(call.arg("a")), array(call.arg("b"))
    if a is None or b is None:
        return None
    rule = linalg.inner if call.short_name == "inner" else linalg.kron
    return finished(interp, call, rule(a, b, labels(call, 2)))


@REGISTRY.handles(f"{JNP}.matvec", f"{JNP}.vecmat", signature="x1, x2, /")
def matvec(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    a, b = array(call.arg("x1")), array(call.arg("x2"))
    if a is None or b is None:
        return None
    return finished(interp, call, linalg.matvec(a, b, labels(call, 2), vector_first=call.short_name == "vecmat"))


@REGISTRY.handles(f"{JNP}.vecdot", f"{JNP}.linalg.vecdot",
                  signature="x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None")
def vecdot(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    a, b = array(call.arg("x1")), array(call.arg("x2"))
    axis = as_int(call.arg("axis")) if call.given("axis") else -1
    if a is None or b is None or axis is None or (
            passed(call, "preferred_element_type")):
        return None
    return finished(interp, call, linalg.vecdot(a, b, axis, labels(call, 2)))


def _preferred(call: CallArgs, result: ArrayType) -> ArrayType:
    """The result's dtype: `preferred_element_type` when given, else the operands' promotion
    (NumPy's own rules for plain NumPy calls: unknown)."""
    if requested_dtype(call, "preferred_element_type") is False and not call.plain_numpy:
        return result
    return result.with_dtype(dtype_or(call, Typed(result.dtype, result.weak), "preferred_element_type"))


@REGISTRY.handles(f"{JNP}.tensordot", signature="a, b, axes=2, *, precision=None, preferred_element_type=None")
def tensordot(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    a, b = call.arg("a"), call.arg("b")
    if not (isinstance(a, ArrayType) and isinstance(b, ArrayType)):
        return None
    raw = call.arg("axes") if call.given("axes") else Const(2)
    count = as_int(raw)
    if count is not None:
        return _preferred(call, finish(interp, linalg.tensordot(a, b, count, labels(call, 2)), call))
    if isinstance(raw, Seq) and len(raw.items) == 2:
        sides = [shape(item) for item in raw.items]
        if all(side is not None and all(isinstance(x, int) for x in side) for side in sides):
            left = [int(x) for x in sides[0] or () if isinstance(x, int)]
            right = [int(x) for x in sides[1] or () if isinstance(x, int)]
            return _preferred(call, finish(interp, linalg.tensordot(a, b, (left, right), labels(call, 2)), call))
    return None


@REGISTRY.handles("jax.lax.dot_general", signature="lhs, rhs, dimension_numbers, precision=None, "
                  "preferred_element_type=None, *, out_sharding=None")
def dot_general(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The batch dims, then lhs's free dims, then rhs's: unknown unless every dim number is
    read, distinct, in range, and the paired dims agree in size (JAX refuses the others)."""
    lhs, rhs = call.arg("lhs"), call.arg("rhs")
    numbers = dimension_numbers(call.arg("dimension_numbers"))
    if not isinstance(lhs, ArrayType) or not isinstance(rhs, ArrayType) or numbers is None \
            or lhs.rank is None or rhs.rank is None or lhs.named or rhs.named:
        return None
    (lc, rc), (lb, rb) = numbers
    if len(lc) != len(rc) or len(lb) != len(rb) or len({*lc, *lb}) != len(lc) + len(lb) \
            or len({*rc, *rb}) != len(rc) + len(rb) or any(not 0 <= d < lhs.rank for d in (*lc, *lb)) \
            or any(not 0 <= d < rhs.rank for d in (*rc, *rb)):
        return None
    if any(lhs.dims[i] != rhs.dims[j] or not isinstance(lhs.dims[i], int) for i, j in zip((*lc, *lb), (*rc, *rb),
                                                                                        strict=True)):
        return None
    dims = [lhs.dims[i] for i in lb] + [d for i, d in enumerate(lhs.dims) if i not in (*lc, *lb)] + \
        [d for i, d in enumerate(rhs.dims) if i not in (*rc, *rb)]
    dtype = lhs.dtype if lhs.dtype == rhs.dtype else None
    return _preferred(call, ArrayType(dtype, tuple(dims)))


@REGISTRY.handles("jax.lax.batch_matmul", signature="lhs, rhs, precision=None")
def batch_matmul(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Stacks of matrices of one rank and equal batch dims (`linalg.batch_matmul`). It takes no
    `preferred_element_type` (a TypeError, left to JAX: unknown here), and no Python number
    (which has no `.ndim`)."""
    lhs, rhs = call.arg("lhs"), call.arg("rhs")
    if not isinstance(lhs, ArrayType) or not isinstance(rhs, ArrayType) or set(call.kwargs) - {"lhs", "rhs",
                                                                                                 "precision"}:
        return None
    return finished(interp, call, linalg.batch_matmul(lhs, rhs, labels(call, 2)))


@REGISTRY.handles(f"{JNP}.einsum",
                  signature="subscripts, /, *operands, out=None, optimize='auto', precision=None, "
                            "preferred_element_type=None")
def einsum(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    spec_text = as_str(call.arg("subscripts"))
    if spec_text is None or call.opaque:
        return None
    spec_node = call.arg_node("subscripts")
    parsed = algebra_einsum.parse_einsum(spec_text)
    if not isinstance(parsed, algebra_einsum.EinsumSpec):
        interp.reporter.add(spec_node, parsed.code, parsed.message)
        return None
    operands = call.rest()
    if not all(isinstance(o, ArrayType) for o in operands):
        miscount = algebra_einsum.operand_count(parsed, len(operands))
        if miscount is not None:
            interp.reporter.add(spec_node, miscount.code, miscount.message)
        return None
    arrays = [o for o in operands if isinstance(o, ArrayType)]
    names = sorted({n for term in parsed.inputs for n in term.names or ()})
    check_bound(interp, names, call, ctx, spec_node, "einsum")
    outcome = algebra_einsum.einsum(parsed, arrays, [f"`{code_of(n)}`" for n in call.arg_nodes[1:]])
    for problem in outcome.problems:
        target = spec_node if problem.code in (Code.INVALID_EINSUM_SPEC, Code.EINSUM_NAMED_AXIS_SKIPPED) else call.node
        interp.reporter.add(target, problem.code, problem.message)
    return _preferred(call, outcome.type)
