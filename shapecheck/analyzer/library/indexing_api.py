"""Picking elements: `jnp.take`, `take_along_axis`, `where`, `lax.top_k`, `jax.ops.segment_*`; writing
them (`put_along_axis`, `fill_diagonal`, `piecewise`) and mapping over an axis (`apply_along_axis`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from shapecheck.algebra import gather
from shapecheck.algebra.broadcast import broadcast, broadcasts_to
from shapecheck.algebra.outcome import Problem, normalize_axis, out_of_range
from shapecheck.algebra.promotion import Typed, default, result_type
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, finish, labels, refused
from shapecheck.analyzer.library.elementwise import elementwise
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import JNP, LAX, OPS
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Seq, Value, as_dim, as_int
from shapecheck.codes import Code
from shapecheck.dims import format_shape
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_TAKE = "a, indices, axis=None, out=None, mode=None, unique_indices=False, indices_are_sorted=False, fill_value=None"


@REGISTRY.handles(f"{JNP}.take", "method:take", signature=_TAKE)
def take(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    a, indices = call.arg("a"), array(call.arg("indices"))
    axis = call.arg("axis") if call.given("axis") else Const(None)
    if not isinstance(a, ArrayType) or indices is None or (as_int(axis) is None and axis != Const(None)):
        return None
    return finish(interp, gather.take(a, indices, as_int(axis), labels(call, 2)), call)


@REGISTRY.handles(f"{JNP}.take_along_axis",
                  signature="arr, indices, axis=-1, mode=None, fill_value=None, *, wrap_negative_indices=None")
def take_along_axis(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    arr, indices = call.arg("arr"), call.arg("indices")
    axis = call.arg("axis") if call.given("axis") else Const(-1)
    if not isinstance(arr, ArrayType) or not isinstance(indices, ArrayType) or (
            as_int(axis) is None and axis != Const(None)):
        return None
    return finish(interp, gather.take_along_axis(arr, indices, as_int(axis), labels(call, 2)), call)


@REGISTRY.handles(f"{JNP}.where", signature="condition, x=None, y=None, /, *, size=None, fill_value=None")
def where(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    condition = call.arg("condition")
    if not call.given("x") and not call.given("y"):
        return _nonzero(call, array(condition))
    if not (call.given("x") and call.given("y")) or call.given("size") or call.given("fill_value"):
        return None  # JAX refuses these forms (TypeError, ValueError): not a shape question
    x, y = call.arg("x"), call.arg("y")
    result = elementwise(interp, call, [condition, x, y])
    if not isinstance(result, ArrayType):
        return result
    # The condition only selects: the dtype is x's and y's, promoted (not the condition's).
    branches = [array(x), array(y)]
    if call.plain_numpy or None in branches:
        return replace(result, dtype=None, weak=False)
    dtype = result_type(*(Typed(b.dtype, b.weak) for b in branches if b is not None))
    return replace(result, dtype=dtype.dtype, weak=dtype.weak)


def _nonzero(call: CallArgs, condition: ArrayType | None) -> Value:
    """`jnp.where(condition)`: one index array per dim, of the number of true elements, or `size`."""
    if condition is None or not condition.rank or condition.named:
        return None
    size = as_dim(call.arg("size")) if call.given("size") else None
    indices = ArrayType(None if call.plain_numpy else default("i").dtype, (size,))
    return Seq((indices,) * condition.rank)


@REGISTRY.handles(f"{LAX}.top_k", signature="operand, k, *, axis=-1")
def top_k(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    operand = call.arg("operand")
    axis = as_int(call.arg("axis")) if call.given("axis") else -1
    if not isinstance(operand, ArrayType) or axis is None:
        return None
    pieces = gather.top_k(operand, as_dim(call.arg("k")), axis)
    interp.reporter.problems(pieces.problems, call.node, call.arg_nodes)
    return Seq(pieces.types, True) if pieces.types is not None else None


_SEGMENT = ("data, segment_ids, num_segments=None, indices_are_sorted=False, unique_indices=False, "
            "bucket_size=None, mode=None, out_sharding=None")


@REGISTRY.handles(*each(OPS, "segment_sum", "segment_max", "segment_min", "segment_prod"), signature=_SEGMENT)
def segment(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    data, segment_ids = array(call.arg("data")), array(call.arg("segment_ids"))
    if data is None or segment_ids is None:
        return None
    outcome = gather.segment(data, segment_ids, as_dim(call.arg("num_segments")), call.short_name, labels(call, 2))
    return replace(finish(interp, outcome, call), weak=False)


# -- writing elements and mapping over an axis

@REGISTRY.handles(f"{JNP}.put_along_axis", signature="arr, indices, values, axis, inplace=True, *, mode=None")
def put_along_axis(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The array, written at `indices` (of its rank) with `values` that broadcast to them; JAX
    takes `inplace=False` only (what it refuses otherwise is not a shape's to report)."""
    arr, indices, values = (array(call.arg(name)) for name in ("arr", "indices", "values"))
    axis = call.arg("axis")
    if arr is None or indices is None or values is None or call.arg("inplace") != Const(False) or \
            axis == Const(None) or arr.ellipsis is not None or indices.ellipsis is not None:
        return None
    number = as_int(axis)
    if number is None:
        return None
    place = normalize_axis(number, len(arr.dims))
    if place is None:
        return refused(interp, call, out_of_range(number, len(arr.dims), "jnp.put_along_axis's arr"))
    if len(indices.dims) != len(arr.dims):
        return refused(interp, call, Problem(
            Code.AXIS_OUT_OF_RANGE, f"jnp.put_along_axis takes indices of the array's rank: "
            f"{indices.positional_text()} for {arr.positional_text()}", operands=(1,)))
    others = broadcast([arr.with_dims(arr.dims[:place] + arr.dims[place + 1:]),
                        indices.with_dims(indices.dims[:place] + indices.dims[place + 1:])], labels(call, 2))
    if others.problems:
        return refused(interp, call, others.problems[0])
    if not broadcasts_to(values.dims, indices.dims) and values.ellipsis is None:
        return refused(interp, call, Problem(
            Code.BROADCAST_MISMATCH, f"jnp.put_along_axis's values {values.positional_text()} must broadcast to its "
            f"indices {indices.positional_text()}", operands=(2,)))
    return arr


@REGISTRY.handles(f"{JNP}.fill_diagonal", signature="a, val, wrap=False, *, inplace=True")
def fill_diagonal(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The array with its diagonal written: rank 2 at least, and above 2 of equal dims."""
    a = array(call.arg("a"))
    if a is None or call.arg("inplace") != Const(False) or a.ellipsis is not None:
        return None
    if len(a.dims) < 2:
        return refused(interp, call, Problem(
            Code.AXIS_OUT_OF_RANGE, f"jnp.fill_diagonal takes an array of rank 2 at least, but it has shape "
            f"{a.positional_text()}"))
    known = {size for size in a.dims if isinstance(size, int)}
    if len(a.dims) > 2 and len(known) > 1:
        return refused(interp, call, Problem(
            Code.CONTRACTION_MISMATCH, f"jnp.fill_diagonal of an array of rank above 2 takes dims of one size, but it "
            f"has shape {a.positional_text()}"))
    return a


@REGISTRY.handles(f"{JNP}.piecewise", signature="x, condlist, funclist, *args, **kw")
def piecewise(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """x's shape: a function (or value) per condition, and one more for the rest at most."""
    x, conditions, functions = array(call.arg("x")), call.arg("condlist"), call.arg("funclist")
    if x is None or not isinstance(functions, Seq):
        return None
    count = len(conditions.items) if isinstance(conditions, Seq) else 1 if isinstance(conditions, ArrayType) else None
    stacked = [array(item) for item in conditions.items] if isinstance(conditions, Seq) else []
    shapes = {value.dims for value in stacked if value is not None and value.ellipsis is None
              and all(isinstance(size, int) for size in value.dims)}
    if len(shapes) > 1:
        return refused(interp, call, Problem(
            Code.BROADCAST_MISMATCH, f"jnp.piecewise stacks its conditions, which have one shape, but they have "
            f"shapes {', '.join(map(format_shape, sorted(shapes, key=len)))}"))
    if count is not None and len(functions.items) not in (count, count + 1):
        return refused(interp, call, Problem(
            Code.SIZE_ARGUMENT_MISMATCH, f"jnp.piecewise takes a function per condition and one more at most: "
            f"{count} condition(s), {len(functions.items)} functions", sizes=(count, len(functions.items))))
    return x


@REGISTRY.handles(f"{JNP}.apply_along_axis", takes_functions=True, signature="func1d, axis, arr, *args, **kwargs")
def apply_along_axis(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`func1d` of each 1-d slice along `axis`: its result's dims take the axis' place."""
    arr, axis = array(call.arg("arr")), as_int(call.arg("axis"))
    if arr is None or axis is None or arr.ellipsis is not None or call.opaque or call.rest() or call.keywords():
        return None
    place = normalize_axis(axis, len(arr.dims))
    if place is None:
        return refused(interp, call, out_of_range(axis, len(arr.dims), "jnp.apply_along_axis's arr"))
    row = arr.with_dims((arr.dims[place],))
    result = array(interp.call(call.arg("func1d"), CallArgs(call.node, [row], [call.arg_node("arr")]), ctx, scope))
    if result is None or result.ellipsis is not None:
        return None
    return result.with_dims((*arr.dims[:place], *result.dims, *arr.dims[place + 1:]))
