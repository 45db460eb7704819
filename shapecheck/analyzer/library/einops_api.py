"""einops: `rearrange`, `repeat`, `reduce`, `einsum`, `pack` and `unpack` on JAX arrays.

Each handler reads the pattern and the axis lengths given by keyword and hands them to the
algebra (`einops_patterns`, `einops_packing`); a pattern or a length that cannot be read leaves
the result unknown.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Final

from shapecheck.algebra import einops_packing, einops_patterns
from shapecheck.algebra import einsum as algebra_einsum
from shapecheck.algebra.einops_patterns import Operation
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import code_of, finish, labels, shape
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Seq, Value, as_dim, as_str, dim_value
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

EINOPS: Final = "einops"


@REGISTRY.handles(f"{EINOPS}.rearrange", f"{EINOPS}.repeat", signature="tensor, pattern, **axes_lengths")
def rearrange_or_repeat(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    operation: Operation = "rearrange" if call.short_name == "rearrange" else "repeat"
    return _transform(interp, call, operation, None)


@REGISTRY.handles(f"{EINOPS}.reduce", signature="tensor, pattern, reduction, **axes_lengths")
def reduce(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    raw = call.arg("reduction")
    name = as_str(raw)
    if name is None and isinstance(raw, Const):
        return None  # a number or None where einops wants a reduction: not modelled
    return _transform(interp, call, "reduce", name)


def _transform(interp: Interpreter, call: CallArgs, operation: Operation, reduction: str | None) -> Value:
    value = call.arg("tensor")
    text = as_str(call.arg("pattern"))
    if text is None:
        return None
    pattern = einops_patterns.parse(text, f"einops.{operation}")
    if not isinstance(pattern, einops_patterns.Pattern):
        return _failed(interp, call, value, pattern)
    lengths = None if call.opaque else {name: as_dim(size) for name, size in call.keywords().items()}
    problem = einops_patterns.fit(operation, pattern, lengths)
    if problem is None and operation == "reduce" and reduction is not None and \
            reduction not in einops_patterns.REDUCTIONS:
        problem = einops_patterns.unknown_reduction(reduction, text)
    if problem is not None:
        return _failed(interp, call, value, problem)
    if not isinstance(value, ArrayType) or lengths is None:
        return None
    outcome = einops_patterns.transform(operation, pattern, value, lengths)
    result = finish(interp, outcome, call)
    if operation == "reduce":
        # A function given as the reduction (`reduction` None): its dtype is its own.
        return result.with_dtype(einops_patterns.reduced_dtype(reduction, value.dtype))
    return result


def _failed(interp: Interpreter, call: CallArgs, value: Value, problem: Problem) -> Value:
    """Report `problem`; einops raises there, so what follows is unknown."""
    dtype = value.dtype if isinstance(value, ArrayType) else None
    return finish(interp, Outcome(ArrayType(dtype, (), (), 0, True), (problem,)), call)


@REGISTRY.handles(f"{EINOPS}.einsum", signature="*tensors_and_pattern")
def einsum(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`einops.einsum(x, w, 'batch d, d k -> batch k')`: the pattern comes last."""
    if call.opaque or not call.args:
        return None
    *operands, last = call.args
    text = as_str(last)
    if text is None:
        return None
    spec = einops_patterns.einsum_spec(text)
    if spec is None:
        return None
    if not isinstance(spec, str):
        return finish(interp, Outcome(ArrayType(None, (), (), 0, True), (spec,)), call)
    parsed = algebra_einsum.parse_einsum(spec)
    if not isinstance(parsed, algebra_einsum.EinsumSpec) or not all(isinstance(o, ArrayType) for o in operands):
        return None
    arrays = [o for o in operands if isinstance(o, ArrayType)]
    return finish(interp, algebra_einsum.einsum(parsed, arrays, labels(call, len(arrays))), call)


@REGISTRY.handles(f"{EINOPS}.pack", signature="tensors, pattern")
def pack(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`packed, ps = einops.pack([x, y], 'b * d')`: the array and each input's packed dims."""
    tensors, text = call.arg("tensors"), as_str(call.arg("pattern"))
    if text is None:
        return None
    pattern = einops_packing.parse_star(text, "einops.pack")
    if not isinstance(pattern, einops_packing.StarPattern):
        return _failed(interp, call, None, pattern)
    if not isinstance(tensors, Seq) or not tensors.items or not all(isinstance(t, ArrayType) for t in tensors.items):
        return None
    arrays = [t for t in tensors.items if isinstance(t, ArrayType)]
    node = call.arg_node("tensors")
    # The arrays' own nodes where the list is written in the call (`pack([x, y], ...)`).
    items = node.elts if isinstance(node, ast.List | ast.Tuple) and len(node.elts) == len(arrays) else None
    names = [f"`{code_of(item)}`" for item in items] if items else None
    packed = einops_packing.pack(pattern, arrays, names)
    interp.reporter.problems(packed.problems, call.node, items or [node] * len(arrays))
    shapes = tuple(Seq(tuple(dim_value(d) for d in dims)) if dims is not None else None for dims in packed.shapes)
    return Seq((packed.type, Seq(shapes, is_list=True)))


@REGISTRY.handles(f"{EINOPS}.unpack", signature="tensor, packed_shapes, pattern")
def unpack(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`x, y = einops.unpack(packed, ps, 'b * d')`: one array per shape."""
    value, text = call.arg("tensor"), as_str(call.arg("pattern"))
    if text is None:
        return None
    pattern = einops_packing.parse_star(text, "einops.unpack")
    if not isinstance(pattern, einops_packing.StarPattern):
        return _failed(interp, call, None, pattern)
    shapes = call.arg("packed_shapes")
    if not isinstance(value, ArrayType) or not isinstance(shapes, Seq):
        return None
    pieces = einops_packing.unpack(pattern, value, [shape(item) for item in shapes.items])
    interp.reporter.problems(pieces.problems, call.node, call.arg_nodes)
    return Seq(pieces.types, is_list=True) if pieces.types is not None else None
