"""Python operators on arrays and constants: arithmetic, comparisons, `@`, indexing."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from shapecheck.algebra import broadcast as algebra_broadcast
from shapecheck.algebra import indexing, layout, linalg, promotion
from shapecheck.algebra.promotion import Typed, function
from shapecheck.analyzer import containers
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.folding import number_operation
from shapecheck.analyzer.library import model_params
from shapecheck.analyzer.library.common import array, code_of, finish, labels
from shapecheck.analyzer.library.registry import Registry, traced_size
from shapecheck.analyzer.qualnames import canonical
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    AtIndexer,
    Const,
    Devices,
    Dict,
    Qual,
    Seq,
    TracedInt,
    Value,
    Variables,
    as_int,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.dtypes import KINDS, NUMPY_OF, narrowed
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


def unknown_partner(known: ArrayType) -> ArrayType:
    """`known op unknown`: dims that are not 1 survive broadcasting; more may come in front."""
    after = known.dims[known.ellipsis:] if known.ellipsis is not None else known.dims
    dims = tuple(None if d == 1 else d for d in after)
    return ArrayType(None, dims, known.named, 0, True)


# The jax.numpy function each operator calls, for its dtype rule (`/` of ints is a float).
# `ast.cmpop` stands for every comparison: all of them make bools, as `equal` does.
_FUNCTIONS: dict[type[ast.operator | ast.cmpop], str] = {
    ast.Div: "true_divide", ast.FloorDiv: "floor_divide", ast.Mod: "mod", ast.Pow: "power",
    ast.LShift: "left_shift", ast.RShift: "right_shift", ast.cmpop: "equal",
}


# An operator is read as a call of its operands: `a + b` is `operator:Add(a, b)`.
_BINARY = "left, right, /"


def arithmetic(interp: Interpreter, call: CallArgs, operator: type[ast.operator | ast.cmpop]) -> Value:
    left, right = call.arg("left"), call.arg("right")
    a, b = array(left), array(right)
    if isinstance(left, ArrayType) or isinstance(right, ArrayType):
        if a is None or b is None:
            known = a if a is not None else b
            assert known is not None
            return unknown_partner(known)
        result = finish(interp, algebra_broadcast.broadcast([a, b], labels(call)), call)
        dtype = function(_FUNCTIONS.get(operator, "add"), [Typed(a.dtype, a.weak), Typed(b.dtype, b.weak)])
        return result.with_dtype(dtype.dtype, dtype.weak)
    if issubclass(operator, ast.operator):
        folded = number_operation(operator, left, right)  # Python's numbers: `D // H`, `1 / math.sqrt(d)`
        if folded is not None:
            return folded
    y = as_int(right)
    text, other = (as_str(left), as_str(right))
    if text is not None and other is not None and operator is ast.Add and len(text) + len(other) <= _MAX_TEXT:
        return Const(text + other)  # a corpus built of literals: its length sizes arrays
    if text is not None and y is not None and operator is ast.Mult and len(text) * max(y, 0) <= _MAX_TEXT:
        return Const(text * y)
    if isinstance(left, Seq) and isinstance(right, Seq) and operator is ast.Add:
        return Seq(left.items + right.items, left.is_list)
    if isinstance(left, Seq) and y is not None and operator is ast.Mult and 0 <= y <= 64:
        return Seq(left.items * y, left.is_list)
    return None


_MAX_TEXT = 100_000  # longer strings are data, not sizes: left unknown rather than built


def _binary(operator: type[ast.operator]) -> None:
    # Keyed by the class's name: the interpreter looks up `operator:{type(node.op).__name__}`
    # for a binary operation and an augmented assignment alike.
    @REGISTRY.handles(f"operator:{operator.__name__}", signature=_BINARY)
    def handler(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
        return arithmetic(interp, call, operator)


for _operator in (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
                  ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift):
    _binary(_operator)


@REGISTRY.handles("operator:Comparison", signature=_BINARY)
def comparison(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return arithmetic(interp, call, ast.cmpop)


@REGISTRY.handles("operator:MatMult", signature=_BINARY)
def matmul_operator(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    left, right = array(call.arg("left")), array(call.arg("right"))  # `x @ 2.0`: a 0-d operand
    if left is not None and right is not None and (isinstance(call.arg("left"), ArrayType)
                                                    or isinstance(call.arg("right"), ArrayType)):
        return finish(interp, linalg.matmul(left, right, labels(call)), call)
    return None


# `x[...]`: the indexed value; the index is read from the node, part by part.
@REGISTRY.handles("operator:Subscript", signature="value, /")
def subscript(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    node = call.node
    assert isinstance(node, ast.Subscript)
    base = call.arg("value")
    items: list[indexing.IndexItem] = []
    raw: list[Value] = []
    # `x[a, b]` (and `x[(a, b)]`, the same index to NumPy) holds a tuple; `x[a]` the index itself.
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    for part in parts:
        if isinstance(part, ast.Slice):
            bounds = [interp.eval(bound, scope, ctx) if bound is not None else Const(None)
                      for bound in (part.lower, part.upper, part.step)]
            traced = next((n for b, n in zip(bounds, (part.lower, part.upper, part.step), strict=True)
                           if isinstance(b, TracedInt) and n is not None), None)
            if traced is not None and isinstance(base, ArrayType | AtIndexer):
                # JAX's IndexError: "Array slice indices must have static start/stop/step".
                interp.reporter.add(traced, Code.SIZE_ARGUMENT_MISMATCH, traced_size("a slice", traced, "bound"))
                return None
            known = all(isinstance(b, Const) and (b.value is None or b.is_int) for b in bounds)
            ints = [as_int(b) for b in bounds]
            items.append(indexing.Slice(ints[0], ints[1], ints[2], unknown=not known))
            raw.append(None)
            continue
        if isinstance(part, ast.Constant) and part.value is Ellipsis:
            items.append(indexing.ELLIPSIS)
            raw.append(None)
            continue
        if isinstance(part, ast.Starred):  # `x[*idx]`: how many indices it spreads is not followed
            interp.eval(part.value, scope, ctx)
            items.append(indexing.OPAQUE)
            raw.append(None)
            continue
        value = interp.eval(part, scope, ctx)
        raw.append(value)
        if isinstance(value, Const) and value.value is None:
            items.append(indexing.NEW_AXIS)
        elif isinstance(value, Const) and isinstance(value.value, int) and value.is_int:
            items.append(value.value)
        elif isinstance(value, Const) and isinstance(value.value, float) and isinstance(base, ArrayType | AtIndexer):
            items.append(indexing.InexactIndex("a Python float"))  # `x[1.0]` (a list's is Python's TypeError)
        elif isinstance(value, ArrayType):
            items.append(_array_index(value))
        else:
            items.append(indexing.OPAQUE)
    if isinstance(base, ArrayType):
        call.index = tuple(items)  # for the result's sharding (`typed_shardings`)
        return finish(interp, indexing.index(base, items, [f"`{code_of(part)}`" for part in parts]), call)
    if isinstance(base, Qual) and canonical(base.name) in _INDEX_TRICKS:
        return _concatenated(interp, call, canonical(base.name), raw, parts)
    if isinstance(base, Qual) and canonical(base.name) in _GRIDS:
        return _grid(canonical(base.name), items)
    if isinstance(base, AtIndexer):
        # The index of `x.at[...]` is checked when `.get()` reads it; updates keep x's type and
        # their values must fit the indexed part.
        indexed = indexing.index(base.receiver, items)
        # Every update and `.get()` refuses an index of floats; other faults depend on the mode.
        inexact = indexing.inexact_index(items, [f"`{code_of(part)}`" for part in parts])
        if inexact is not None:
            interp.reporter.problems([inexact], node)
        return AtIndexer(base.receiver, True, None if indexed.problems else indexed.type, tuple(items))
    text = as_str(base)
    if text is not None and len(items) == 1:  # `CORPUS[:64]`, `word[0]`
        item = items[0]
        if isinstance(item, int) and -len(text) <= item < len(text):
            return Const(text[item])
        if isinstance(item, indexing.Slice) and not item.unknown and item.step != 0:
            return Const(text[item.start:item.stop:item.step])
        return None
    if isinstance(base, Seq) and len(items) == 1:
        item = items[0]
        if isinstance(item, int) and -len(base.items) <= item < len(base.items):
            return base.items[item]
        if isinstance(item, indexing.Slice) and not item.unknown:
            return Seq(base.items[item.start:item.stop:item.step], base.is_list)
        return None
    if isinstance(base, Devices) and len(items) == 1 and isinstance(items[0], indexing.Slice):
        piece = items[0]
        if not piece.unknown and piece.step in (None, 1) and (piece.start or 0) >= 0 and piece.stop is not None \
                and piece.stop >= 0:
            # Assumes the program runs on enough devices: `jax.devices()[:4]` is four devices.
            return Devices(max(piece.stop - (piece.start or 0), 0))
        return Devices(None)
    if isinstance(base, Variables) and len(raw) == 1:
        return model_params.collection(base, raw[0])
    if isinstance(base, Dict) and len(raw) == 1:
        return containers.get_item(base, raw[0])
    return None


# `np.c_[a, b]` and `np.r_[a, b]` (NumPy's and jax.numpy's): arrays joined along their last
# axis (1-d ones as columns) or their first; a slice or a string directive in the index is not read.
_INDEX_TRICKS = ("jax.numpy.c_", "jax.numpy.r_")


_GRIDS = ("jax.numpy.mgrid", "jax.numpy.ogrid")


def _grid(name: str, items: list[indexing.IndexItem]) -> Value:
    """`jnp.mgrid[0:64, 0:32]`: the index grids, stacked `(2, 64, 32)` (one slice: its range);
    `jnp.ogrid[...]`: one open grid per slice, 1 along the others. Slices of int bounds only (a
    complex step counts points, and is not read)."""
    lengths: list[int] = []
    for item in items:
        if not isinstance(item, indexing.Slice) or item.unknown or item.stop is None or item.step == 0:
            return None
        lengths.append(len(range(item.start or 0, item.stop, item.step or 1)))
    if not lengths:
        return None
    dtype = promotion.default("i").dtype
    if len(lengths) == 1:
        return ArrayType(dtype, (lengths[0],))
    if name.endswith("mgrid"):
        return ArrayType(dtype, (len(lengths), *lengths))
    return Seq(tuple(ArrayType(dtype, tuple(n if axis == index else 1 for axis, n in enumerate(lengths)))
                     for index in range(len(lengths))))


def _concatenated(interp: Interpreter, call: CallArgs, name: str, raw: list[Value], parts: list[ast.expr]) -> Value:
    arrays = [array(value) for value in raw]
    if not arrays or any(a is None or a.ellipsis is not None for a in arrays):
        return None
    columns = name.endswith("c_")
    shaped: list[ArrayType] = []
    for value in arrays:
        assert value is not None
        if columns:  # at least 2-d, 1s appended: a 1-d array is a column, a number a 1x1
            shaped.append(value.with_dims((*value.dims, *(1,) * (2 - len(value.dims)))) if len(value.dims) < 2
                          else value)
        else:
            shaped.append(value.with_dims((1,)) if not value.dims else value)
    labels = [f"`{code_of(part)}`" for part in parts]
    return finish(interp, layout.concatenate(shaped, -1 if columns else 0, labels), call, parts)


def _array_index(value: ArrayType) -> indexing.IndexItem:
    """An array in an index: integers pick, booleans mask; one of unknown dtype is read as
    integers where it cannot be a mask; any other dtype is not read."""
    kind = KINDS[value.dtype][0] if value.dtype is not None and value.dtype in KINDS else None
    if kind in ("i", "u"):
        return indexing.ArrayIndex(value)
    if kind == "b":
        return indexing.ArrayIndex(value, mask=True)
    if kind in ("f", "c") and value.dtype is not None:
        return indexing.InexactIndex(NUMPY_OF[narrowed(value.dtype)])  # as JAX names it, x64 off
    return indexing.UntypedArray(value) if value.dtype is None else indexing.OPAQUE
