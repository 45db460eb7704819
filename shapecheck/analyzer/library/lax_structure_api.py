"""lax's structural operators: broadcast_in_dim, broadcast, reshape, transpose, concatenate, pad, the
reductions, expand_dims, squeeze, rev, collapse, tile, split, iota, full, the cumulative
reductions, argmax/argmin, sort and select_n; their rules in `algebra.lax_structure` (and
`lax_rules` for dtypes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import lax_rules, lax_structure, layout, reduction
from shapecheck.algebra.outcome import Problem, normalize_axis, out_of_range
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    array,
    dtype_arg,
    element_labels,
    finished,
    labels,
    passed,
    refused,
    reported,
    shape,
)
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import LAX
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Seq, Value, as_dim, as_int
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


def _ints(value: Value) -> tuple[int, ...] | None:
    """A sequence of ints as lax takes dims (a tuple or list; a bare int is not one)."""
    if not isinstance(value, Seq):
        return None
    found = tuple(as_int(item) for item in value.items)
    return None if None in found else tuple(n for n in found if n is not None)


@REGISTRY.handles(f"{LAX}.broadcast_in_dim", signature="operand, shape, broadcast_dimensions, *, out_sharding=None")
def broadcast_in_dim(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, dims, places = array(call.arg("operand")), shape(call.arg("shape")), _ints(call.arg("broadcast_dimensions"))
    if value is None or dims is None or places is None:
        return None
    return finished(interp, call, lax_structure.broadcast_in_dim(value, dims, places))


@REGISTRY.handles(f"{LAX}.broadcast", signature="operand, sizes, *, out_sharding=None")
def broadcast(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, sizes = array(call.arg("operand")), shape(call.arg("sizes"))
    if value is None or sizes is None or value.ellipsis is not None:
        return None
    return value.with_dims((*sizes, *value.dims))


@REGISTRY.handles(f"{LAX}.reshape", signature="operand, new_sizes, dimensions=None, *, out_sharding=None")
def reshape(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, sizes = array(call.arg("operand")), shape(call.arg("new_sizes"))
    given = passed(call, "dimensions")
    order = _ints(call.arg("dimensions")) if given else None
    if value is None or sizes is None or (given and order is None):
        return None
    return finished(interp, call, lax_structure.reshape(value, sizes, order))


@REGISTRY.handles(f"{LAX}.transpose", signature="operand, permutation")
def transpose(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, permutation = array(call.arg("operand")), _ints(call.arg("permutation"))
    if value is None or permutation is None:
        return None
    return finished(interp, call, lax_structure.transpose(value, permutation))


@REGISTRY.handles(f"{LAX}.concatenate", signature="operands, dimension")
def concatenate(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    operands, dimension = call.arg("operands"), as_int(call.arg("dimension"))
    if not isinstance(operands, Seq) or not operands.items or dimension is None:
        return None
    values = [array(item) for item in operands.items]
    arrays = [value for value in values if value is not None]
    if len(arrays) != len(values):
        return None
    names = element_labels(call, "operands")
    problem = lax_structure.positions(arrays[0], (dimension,), "lax.concatenate's dimension")
    if reported(interp, call, problem) or reported(interp, call, lax_rules.dtypes(arrays, "lax.concatenate", names)):
        return None
    return finished(interp, call, layout.concatenate(arrays, dimension, names))


@REGISTRY.handles(f"{LAX}.pad", signature="operand, padding_value, padding_config")
def pad(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, filler, config = array(call.arg("operand")), array(call.arg("padding_value")), call.arg("padding_config")
    if value is None or not isinstance(config, Seq):
        return None
    entries: list[tuple[Dim, Dim, Dim]] = []
    for entry in config.items:
        if not isinstance(entry, Seq) or len(entry.items) != 3:
            return None
        low, high, interior = (as_dim(part) for part in entry.items)
        entries.append((low, high, interior))
    if filler is not None:
        if filler.ellipsis is None and filler.dims:
            return refused(interp, call, Problem(
                Code.SIZE_ARGUMENT_MISMATCH, f"lax.pad's padding_value has shape {filler.positional_text()}: it is a "
                "scalar", operands=(1,)))
        if reported(interp, call, lax_rules.dtypes([value, filler], "lax.pad", labels(call, 2))):
            return None
    return finished(interp, call, lax_structure.pad(value, entries))


# The kinds of dtype each reduction takes (as `lax_rules.ACCEPTS`).
_REDUCTIONS = {"reduce_sum": "iufc", "reduce_prod": "iufc", "reduce_max": "biufc", "reduce_min": "biufc",
               "reduce_and": "biu", "reduce_or": "biu", "reduce_xor": "biu"}


@REGISTRY.handles(*(f"{LAX}.{name}" for name in _REDUCTIONS), signature="operand, axes")
def reduce(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, axes = array(call.arg("operand")), _ints(call.arg("axes"))
    if value is None or axes is None:
        return None
    what = f"lax.{call.short_name}"
    kinds = _REDUCTIONS[call.short_name]
    if call.short_name in _LOGICAL and value.ellipsis is None:
        # JAX 0.10.2 reads these axes as jax.numpy does: from the end too, and once each.
        places = {normalize_axis(axis, len(value.dims)) for axis in axes}
        wrong = next((axis for axis in axes if normalize_axis(axis, len(value.dims)) is None), None)
        problem = out_of_range(wrong, len(value.dims), f"{what}'s operand") if wrong is not None else None
        axes = tuple(sorted(place for place in places if place is not None))
    else:
        problem = lax_structure.positions(value, axes, what)
    if reported(interp, call, problem or lax_rules.of_kinds(value, kinds, what, labels(call, 1))):
        return None
    return finished(interp, call, reduction.reduce(value, axes, what=what))


_LOGICAL = frozenset({"reduce_and", "reduce_or", "reduce_xor"})


@REGISTRY.handles(f"{LAX}.expand_dims", signature="array, dimensions")
def expand_dims(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, dims = array(call.arg("array")), _ints(call.arg("dimensions"))
    if value is None or dims is None:
        return None
    return finished(interp, call, layout.expand_dims(value, dims))


@REGISTRY.handles(f"{LAX}.squeeze", signature="array, dimensions")
def squeeze(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, dims = array(call.arg("array")), _ints(call.arg("dimensions"))
    if value is None or dims is None:
        return None
    return finished(interp, call, lax_structure.squeeze(value, dims))


@REGISTRY.handles(f"{LAX}.rev", signature="operand, dimensions")
def rev(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, dims = array(call.arg("operand")), _ints(call.arg("dimensions"))
    if value is None or dims is None:
        return None
    if reported(interp, call, lax_structure.positions(value, dims, "lax.rev")):
        return None
    return value


@REGISTRY.handles(f"{LAX}.collapse", signature="operand, start_dimension, stop_dimension=None")
def collapse(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, start = array(call.arg("operand")), as_int(call.arg("start_dimension"))
    given = passed(call, "stop_dimension")
    stop = as_int(call.arg("stop_dimension")) if given else None
    if value is None or start is None or (given and stop is None):
        return None
    return finished(interp, call, lax_structure.collapse(value, start, stop))


@REGISTRY.handles(f"{LAX}.tile", signature="operand, multiples")
def tile(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, multiples = array(call.arg("operand")), shape(call.arg("multiples"))
    if value is None or multiples is None or not isinstance(call.arg("multiples"), Seq):
        return None
    return finished(interp, call, lax_structure.tile(value, multiples))


@REGISTRY.handles(f"{LAX}.split", signature="operand, sizes, axis=0")
def split(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, sizes = array(call.arg("operand")), shape(call.arg("sizes"))
    axis = as_int(call.arg("axis")) if call.given("axis") else 0
    if value is None or sizes is None or axis is None or not isinstance(call.arg("sizes"), Seq):
        return None
    pieces = lax_structure.split(value, sizes, axis)
    interp.reporter.problems(pieces.problems, call.node, call.arg_nodes)
    return Seq(pieces.types, True) if pieces.types is not None else None


@REGISTRY.handles(f"{LAX}.iota", signature="dtype, size, dimension=0, sharding=None")
def iota(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    size = as_dim(call.arg("size"))
    return ArrayType(dtype_arg(call.arg("dtype")), (size,)) if size is not None else None


@REGISTRY.handles(f"{LAX}.broadcasted_iota", signature="dtype, shape, dimension, sharding=None")
def broadcasted_iota(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dims, dimension = shape(call.arg("shape")), as_int(call.arg("dimension"))
    if dims is None or dimension is None or not isinstance(call.arg("shape"), Seq):
        return None
    if not 0 <= dimension < len(dims):
        return refused(interp, call, out_of_range(dimension, len(dims), "lax.broadcasted_iota's shape"))
    return ArrayType(dtype_arg(call.arg("dtype")), dims)


@REGISTRY.handles(f"{LAX}.full", signature="shape, fill_value, dtype=None, *, sharding=None")
def full(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dims, filler = shape(call.arg("shape")), array(call.arg("fill_value"))
    if dims is None:
        return None
    if passed(call, "dtype"):
        return ArrayType(dtype_arg(call.arg("dtype")), dims)
    return ArrayType(filler.dtype, dims, weak=filler.weak) if filler is not None and not filler.dims else None


@REGISTRY.handles(*(f"{LAX}.{name}" for name in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp")),
                  signature="operand, axis=0, reverse=False")
@REGISTRY.handles(f"{LAX}.sort", signature="operand, dimension=-1, is_stable=True, num_keys=1")
def along_axis(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The operand's own type, along an axis of it (sort's counted from the end too)."""
    value = call.arg("operand")
    name = "dimension" if call.short_name == "sort" else "axis"
    axis = as_int(call.arg(name)) if call.given(name) else (-1 if call.short_name == "sort" else 0)
    if not isinstance(value, ArrayType) or axis is None or value.ellipsis is not None:
        return None
    what = f"lax.{call.short_name}"
    if call.short_name != "sort":  # the cumulative reductions count no axis from the end
        return None if reported(interp, call, lax_structure.positions(value, (axis,), what)) else value
    if normalize_axis(axis, len(value.dims)) is None:
        return refused(interp, call, out_of_range(axis, len(value.dims), f"{what}'s operand"))
    return value


@REGISTRY.handles(f"{LAX}.argmax", f"{LAX}.argmin", signature="operand, axis, index_dtype")
def argmax(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value, axis = array(call.arg("operand")), as_int(call.arg("axis"))
    if value is None or axis is None or value.ellipsis is not None or axis < 0:
        return None  # a negative axis: not followed
    if axis >= len(value.dims):
        return refused(interp, call, out_of_range(axis, len(value.dims), f"lax.{call.short_name}'s operand"))
    found = value.with_dims(size for index, size in enumerate(value.dims) if index != axis)
    return found.with_dtype(dtype_arg(call.arg("index_dtype")))


@REGISTRY.handles(f"{LAX}.select_n", signature="which, *cases")
def select_n(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    which, cases = array(call.arg("which")), [array(case) for case in call.rest()]
    if which is None or not cases or None in cases or call.opaque:
        return None
    known = [case for case in cases if case is not None]
    if reported(interp, call, lax_rules.select_n(which, known, labels(call))):
        return None
    return known[0] if known[0].ellipsis is None else None
