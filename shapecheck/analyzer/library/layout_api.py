"""Layout: reshape, ravel, transposes, moving and adding axes, concatenate, append, stack, split,
pad, tril, diag, diagonal and trace, broadcast_to and broadcast_arrays, atleast_1d/2d/3d,
meshgrid."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import broadcast as algebra_broadcast
from shapecheck.algebra import layout, padding, reshape, split
from shapecheck.algebra.outcome import Pieces
from shapecheck.algebra.promotion import Typed, reduction
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    array,
    axes,
    code_of,
    element_nodes,
    finish,
    finished,
    flag,
    labels,
    requested_dtype,
    shape,
)
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import JNP, LAX
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    AxisSize,
    Const,
    Seq,
    SymSize,
    Value,
    as_dim,
    as_int,
    as_str,
)
from shapecheck.dims import Dim, product
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


@REGISTRY.handles(f"{JNP}.reshape", signature="a, shape=None, order='C', *, newshape=None, copy=None")
@REGISTRY.handles("method:reshape", signature="a, *shape, order='C'")
def reshape_handler(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    if not isinstance(value, ArrayType):
        return None
    spread = call.signature is not None and call.signature.variadic == "shape"
    target = _spread(call, "shape") if spread or call.given("shape") else call.arg("newshape")
    dims = shape(target)
    if dims is None:
        return value.with_dims((), 0)
    return finish(interp, reshape.reshape(value, dims), call)


@REGISTRY.handles(f"{JNP}.ravel", "method:ravel", "method:flatten", signature="a, order='C'")
def ravel(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    if not isinstance(value, ArrayType):
        return None
    return value.with_dims((product(value.dims) if value.ellipsis is None else None,))


@REGISTRY.handles(f"{JNP}.transpose", signature="a, axes=None")
@REGISTRY.handles(f"{JNP}.permute_dims", signature="a, /, axes")
@REGISTRY.handles("method:transpose", signature="a, *axes")
def transpose(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    if not isinstance(value, ArrayType):
        return None
    order = _spread(call, "axes")
    if order is None or order == Const(None):
        return finish(interp, layout.transpose(value), call)
    dims = shape(order)
    if dims is None or not all(isinstance(d, int) for d in dims):
        return value.with_dims((), 0)
    return finish(interp, layout.transpose(value, [int(d) for d in dims if isinstance(d, int)]), call)


@REGISTRY.handles("attr:T", signature="a")
def transpose_attr(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    return finish(interp, layout.transpose(value), call) if isinstance(value, ArrayType) else None


@REGISTRY.handles("attr:mT", signature="a")
@REGISTRY.handles(f"{JNP}.matrix_transpose", f"{JNP}.linalg.matrix_transpose", signature="x, /")
def matrix_transpose(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    attribute = call.signature is not None and call.signature.accepts("a")  # `x.mT`
    value = call.arg("a" if attribute else "x")
    if not isinstance(value, ArrayType):
        return None
    what = "`.mT`" if attribute else f"jnp.{call.short_name}"
    return finished(interp, call, layout.matrix_transpose(value, what))


@REGISTRY.handles(f"{JNP}.swapaxes", "method:swapaxes", signature="a, axis1, axis2")
def swapaxes(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    first, second = as_int(call.arg("axis1")), as_int(call.arg("axis2"))
    if not isinstance(value, ArrayType) or first is None or second is None:
        return None
    return finish(interp, layout.swapaxes(value, first, second), call)


@REGISTRY.handles(f"{JNP}.moveaxis", signature="a, source, destination")
def moveaxis(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    source, destination = as_int(call.arg("source")), as_int(call.arg("destination"))
    if not isinstance(value, ArrayType) or source is None or destination is None:
        return None
    return finish(interp, layout.moveaxis(value, source, destination), call)


@REGISTRY.handles(f"{JNP}.repeat", "method:repeat",
                  signature="a, repeats, axis=None, *, total_repeat_length=None, out_sharding=None")
def repeat(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("a"))
    given = call.arg("axis") if call.given("axis") else Const(None)
    axis = None if given == Const(None) else as_int(given)
    total_given = call.arg("total_repeat_length") if call.given("total_repeat_length") else Const(None)
    total = None if total_given == Const(None) else as_int(total_given)
    if value is None or (axis is None and given != Const(None)) or (total is None and total_given != Const(None)):
        return None
    # A count for all elements (an int, a 0-d array), or one per element (an array; JAX
    # refuses a list).
    repeats, counts = call.arg("repeats"), None
    if isinstance(repeats, Seq):
        return None
    count: Dim = as_int(repeats)
    if isinstance(repeats, ArrayType) and repeats.ellipsis is None and repeats.dims:
        counts = product(repeats.dims)
    return finish(interp, layout.repeat(value, count, axis, counts=counts, total=total), call)


@REGISTRY.handles(f"{JNP}.tile", signature="A, reps")
def tile(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("A"))
    reps = shape(call.arg("reps"))
    if value is None or reps is None or any(isinstance(count, int) and count < 0 for count in reps):
        return None  # a negative count fails in XLA, not in a shape rule
    return finish(interp, layout.tile(value, reps), call)


@REGISTRY.handles(f"{JNP}.expand_dims", signature="a, axis")
def expand_dims(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    axis = axes(call.arg("axis"))
    if not isinstance(value, ArrayType) or axis is False or axis is None or isinstance(axis, bool | str):
        return None
    if isinstance(axis, tuple) and not all(isinstance(a, int) for a in axis):
        return None
    as_ints: int | list[int] = axis if isinstance(axis, int) else [a for a in axis if isinstance(a, int)]
    return finish(interp, layout.expand_dims(value, as_ints), call)


@REGISTRY.handles(f"{JNP}.squeeze", "method:squeeze", signature="a, axis=None")
def squeeze(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("a")
    if not isinstance(value, ArrayType):
        return None
    if not call.given("axis") or call.arg("axis") == Const(None):
        return finish(interp, reshape.squeeze(value), call)
    axis = axes(call.arg("axis"))
    if isinstance(axis, int) and not isinstance(axis, bool):
        return finish(interp, reshape.squeeze(value, axis), call)
    if isinstance(axis, tuple) and all(isinstance(a, int) for a in axis):
        return finish(interp, reshape.squeeze(value, [a for a in axis if isinstance(a, int)]), call)
    return None


def _spread(call: CallArgs, name: str) -> Value:
    """A shape or axes argument that the method form spreads (`x.reshape(2, 3)`, `x.transpose(1, 0)`)
    and the function form takes whole (`jnp.reshape(x, (2, 3))`)."""
    if call.signature is None or call.signature.variadic != name:
        return call.arg(name)
    spread = call.rest()
    if len(spread) == 1:
        return spread[0]
    return Seq(tuple(spread)) if spread else call.kwargs.get(name)


def _sequence_of_arrays(value: Value) -> list[ArrayType] | None:
    """A list or tuple of arrays (Python numbers among them are 0-d arrays), as `jnp.stack` takes."""
    if not isinstance(value, Seq) or not value.items or not any(isinstance(v, ArrayType) for v in value.items):
        return None
    arrays = [array(v) for v in value.items]
    return [a for a in arrays if a is not None] if None not in arrays else None


@REGISTRY.handles(f"{JNP}.concatenate", signature="arrays, axis=0, dtype=None")
@REGISTRY.handles(f"{JNP}.concat", signature="arrays, /, *, axis=0")
def concatenate(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    values = _sequence_of_arrays(call.arg("arrays"))
    if values is None:
        return None
    axis_value = call.arg("axis") if call.given("axis") else Const(0)
    axis = as_int(axis_value)
    if axis is None and axis_value != Const(None):
        return None
    nodes = element_nodes(call, "arrays")
    outcome = layout.concatenate(values, axis, [f"`{code_of(n)}`" for n in nodes])
    return finish(interp, outcome, call, nodes)


@REGISTRY.handles(f"{JNP}.stack", signature="arrays, axis=0, out=None, dtype=None")
def stack(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    values = _sequence_of_arrays(call.arg("arrays"))
    if values is None:
        return None
    axis = as_int(call.arg("axis")) if call.given("axis") else 0
    if axis is None:
        return None
    nodes = element_nodes(call, "arrays")
    outcome = layout.stack(values, axis, [f"`{code_of(n)}`" for n in nodes])
    return finish(interp, outcome, call, nodes)


@REGISTRY.handles(f"{JNP}.broadcast_to", signature="array, shape")
def broadcast_to(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("array")
    dims = shape(call.arg("shape"))
    if not isinstance(value, ArrayType) or dims is None:
        return None
    outcome = algebra_broadcast.broadcast_to(value, dims, [f"`{code_of(call.arg_node('array'))}`"])
    interp.reporter.problems(outcome.problems, call.node)
    return None if outcome.problems else outcome.type


_AT_LEAST = {"atleast_1d": "hstack", "atleast_2d": "vstack", "atleast_3d": "dstack"}


@REGISTRY.handles(*(f"{JNP}.{name}" for name in _AT_LEAST), signature="*arys")
def at_least(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """One array raised to the rank; several give a list of them."""
    values = [array(value) for value in call.rest()]
    if not values or any(value is None or value.ellipsis is not None for value in values):
        return None
    lifted = tuple(layout.lifted(value, _AT_LEAST[call.short_name]) for value in values if value is not None)
    return lifted[0] if len(lifted) == 1 else Seq(lifted, True)


@REGISTRY.handles(f"{JNP}.meshgrid", signature="*xi, copy=True, sparse=False, indexing='xy'")
def meshgrid(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    values = [array(value) for value in call.rest()]
    indexing = as_str(call.arg("indexing")) if call.given("indexing") else "xy"
    sparse = flag(call.arg("sparse")) if call.given("sparse") else False
    if any(value is None for value in values) or indexing not in ("xy", "ij") or sparse is None:
        return None  # an unknown argument, or an indexing JAX refuses (not followed)
    arrays = [value for value in values if value is not None]
    return _pieces(interp, layout.meshgrid(arrays, indexing == "ij", sparse, labels(call, len(arrays))), call,
                   is_list=True)


@REGISTRY.handles(f"{JNP}.broadcast_arrays", signature="*args")
def broadcast_arrays(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    values = [array(value) for value in call.rest()]
    if any(value is None for value in values):
        return None
    arrays = [value for value in values if value is not None]
    return _pieces(interp, algebra_broadcast.broadcast_arrays(arrays, labels(call, len(arrays))), call,
                   is_list=True)


@REGISTRY.handles(f"{JNP}.broadcast_shapes", f"{LAX}.broadcast_shapes", signature="*shapes")
def broadcast_shapes(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The shape the given shapes broadcast to, a tuple of ints; SC101 where they do not."""
    given = call.rest()
    if call.opaque or (not given and call.name.startswith(LAX)):
        return None  # lax's refuses no shape at all (an AssertionError)
    shapes = [shape(value) for value in given]
    if any(dims is None for dims in shapes):
        return None
    outcome = algebra_broadcast.broadcast([ArrayType(None, dims) for dims in shapes if dims is not None],
                                          [f"`{code_of(node)}`" for node in call.arg_nodes])
    interp.reporter.problems(outcome.problems, call.node)
    if outcome.problems or outcome.type.ellipsis is not None:
        return None
    return Seq(tuple(Const(dim) if isinstance(dim, int) else None for dim in outcome.type.dims))


@REGISTRY.handles(f"{JNP}.hstack", f"{JNP}.vstack", f"{JNP}.dstack", signature="tup, dtype=None")
@REGISTRY.handles(f"{JNP}.column_stack", signature="tup")
def joined(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    values = _sequence_of_arrays(call.arg("tup"))
    if values is None:
        return None
    nodes = element_nodes(call, "tup")
    outcome = layout.joined(values, call.short_name, [f"`{code_of(n)}`" for n in nodes])
    return finish(interp, outcome, call, nodes)


# -- splitting: the pieces are a list (`q, k, v = jnp.split(qkv, 3, axis=-1)` unpacks them)

@REGISTRY.handles(f"{JNP}.split", f"{JNP}.array_split", signature="ary, indices_or_sections, axis=0")
@REGISTRY.handles(f"{JNP}.hsplit", f"{JNP}.vsplit", f"{JNP}.dsplit", signature="ary, indices_or_sections")
def split_handler(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("ary")
    sections = _sections(call.arg("indices_or_sections"))
    if not isinstance(value, ArrayType) or sections is None:
        return None
    name = call.short_name
    if name == "hsplit":
        axis = split.hsplit_axis(value.rank)
    elif name in ("vsplit", "dsplit"):
        axis = 0 if name == "vsplit" else 2
    else:
        axis = as_int(call.arg("axis")) if call.given("axis") else 0
    if axis is None:
        return None
    pieces = split.split(value, sections, axis, equal=name != "array_split", what=name)
    return _pieces(interp, pieces, call, is_list=True)


def _sections(value: Value) -> int | tuple[Dim, ...] | None:
    """`indices_or_sections`: a count, or the indices to cut at (None where one is not known)."""
    count = as_int(value)
    if count is not None:
        return count
    if isinstance(value, Seq):
        return tuple(as_dim(item) for item in value.items)
    if isinstance(value, ArrayType) and value.rank == 1 and isinstance(value.dims[0], int):
        return (None,) * value.dims[0]  # an array of indices: how many is all that is known
    return None


def _pieces(interp: Interpreter, pieces: Pieces, call: CallArgs, *, is_list: bool) -> Value:
    interp.reporter.problems(pieces.problems, call.node, call.arg_nodes)
    return Seq(pieces.types, is_list) if pieces.types is not None else None


@REGISTRY.handles(f"{JNP}.unstack", signature="x, /, *, axis=0")
def unstack(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("x")
    axis = as_int(call.arg("axis")) if call.given("axis") else 0
    if not isinstance(value, ArrayType) or axis is None:
        return None
    return _pieces(interp, split.unstack(value, axis), call, is_list=False)


# -- shape-keeping masks and padding

@REGISTRY.handles(f"{JNP}.tril", f"{JNP}.triu", signature="m, k=0")
def triangle(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("m")
    return finish(interp, layout.triangle(value, f"jnp.{call.short_name}"), call) if isinstance(value, ArrayType) else None


@REGISTRY.handles(f"{JNP}.diag", f"{JNP}.diagflat", signature="v, k=0")
def diag(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("v")
    if not isinstance(value, ArrayType):
        return None
    k = as_int(call.arg("k")) if call.given("k") else 0
    return finish(interp, layout.diagonal_matrix(value, k, flat=call.short_name == "diagflat"), call)


@REGISTRY.handles(f"{JNP}.diagonal", "method:diagonal", signature="a, offset=0, axis1=0, axis2=1")
@REGISTRY.handles(f"{JNP}.trace", "method:trace", signature="a, offset=0, axis1=0, axis2=1, dtype=None, out=None")
@REGISTRY.handles(f"{JNP}.linalg.diagonal", signature="a, /, *, offset=0")
@REGISTRY.handles(f"{JNP}.linalg.trace", signature="a, /, *, offset=0, dtype=None")
def diagonal(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`jnp.diagonal` (the diagonal last) and `jnp.trace` (its sum); jnp.linalg's take each
    matrix's, of the last two dims."""
    value = array(call.arg("a"))
    matrices = call.name.startswith(f"{JNP}.linalg.")
    offset = as_int(call.arg("offset")) if call.given("offset") else 0
    first, second = (-2, -1) if matrices else (as_int(call.arg(name)) if call.given(name) else default
                                               for name, default in (("axis1", 0), ("axis2", 1)))
    if value is None or offset is None or first is None or second is None:
        return None
    what = f"jnp.linalg.{call.short_name}" if matrices else f"jnp.{call.short_name}"
    found = finished(interp, call, layout.diagonal(value, offset, first, second, what))
    if call.short_name == "diagonal" or not isinstance(found, ArrayType):
        return found
    requested = requested_dtype(call)
    if requested is None:
        return None  # a dtype the checker cannot read
    summed = reduction("sum", Typed(found.dtype, found.weak), requested or None)
    return found.with_dims(found.dims[:-1]).with_dtype(summed.dtype, summed.weak)


@REGISTRY.handles(f"{JNP}.rot90", signature="m, k=1, axes=(0, 1)")
def rot90(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A quarter turn `k` times in the plane of two distinct axes: an odd count swaps their sizes."""
    value = array(call.arg("m"))
    k = as_int(call.arg("k")) if call.given("k") else 1
    plane = axes(call.arg("axes")) if call.given("axes") else (0, 1)
    if value is None or k is None or not isinstance(plane, tuple) or len(plane) != 2 or \
            not all(isinstance(axis, int) for axis in plane) or value.ellipsis is not None:
        return None
    first, second = (axis for axis in plane if isinstance(axis, int))
    return finished(interp, call, layout.rot90(value, k, first, second))


@REGISTRY.handles(f"{JNP}.append", signature="arr, values, axis=None")
def append(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`concatenate((arr, values), axis)`; with no axis, both flattened first."""
    values = [array(call.arg("arr")), array(call.arg("values"))]
    axis_value = call.arg("axis") if call.given("axis") else Const(None)
    axis = as_int(axis_value)
    if None in values or (axis is None and axis_value != Const(None)):
        return None
    arrays = [value for value in values if value is not None]
    return finished(interp, call, layout.concatenate(arrays, axis, labels(call, 2)))


@REGISTRY.handles(f"{JNP}.pad", signature="array, pad_width, mode='constant', **kwargs")
def pad(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("array")
    if not isinstance(value, ArrayType):
        return None
    readable, width = _pad_width(call.arg("pad_width"))
    if not readable:
        return value.with_dims([None] * len(value.dims), value.ellipsis)
    mode = as_str(call.arg("mode")) if call.given("mode") else "constant"
    return finish(interp, padding.pad(value, width, mode), call)


def _pad_width(value: Value) -> tuple[bool, padding.PadWidth]:
    """`pad_width` as nested tuples of ints (None for an int of unknown value); False where any
    part cannot be read (it might be a sequence, which would change the shape JAX reads)."""
    if isinstance(value, SymSize | AxisSize):
        return True, as_int(value)
    number = as_int(value)
    if number is not None:
        return True, number
    if isinstance(value, Seq):
        read = [_pad_width(item) for item in value.items]
        if all(ok for ok, _ in read):
            return True, tuple(width for _, width in read)
    return False, None
