"""jax.scipy.ndimage's map_coordinates: interpolation at given points. Its rule is
`algebra.interpolation`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import interpolation
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, code_of, finished
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Seq, Value, as_int, as_str
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

NDIMAGE: Final = "jax.scipy.ndimage"

# What JAX 0.10.2 implements; any other order or mode is its NotImplementedError, not a shape's.
_ORDERS: Final = frozenset({0, 1})
_MODES: Final = frozenset({"constant", "nearest", "wrap", "mirror", "reflect"})


@REGISTRY.handles(f"{NDIMAGE}.map_coordinates", signature="input, coordinates, order, mode='constant', cval=0.0")
def map_coordinates(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The input's values at the points: the shape of the coordinate arrays, input's dtype."""
    image, given = call.arg("input"), call.arg("coordinates")
    order = as_int(call.arg("order")) if call.given("order") else None
    mode = as_str(call.arg("mode")) if call.given("mode") else "constant"
    if not isinstance(image, ArrayType) or order not in _ORDERS or mode not in _MODES:
        return None
    coordinates: ArrayType | list[ArrayType]
    if isinstance(given, ArrayType):
        coordinates = given
    elif isinstance(given, Seq):
        items = [array(item) for item in given.items]
        if any(item is None for item in items):
            return None  # a nested list, or an unknown coordinate: its shape is not known
        coordinates = [item for item in items if item is not None]
    else:
        return None
    nodes = [call.arg_node("input"), call.arg_node("coordinates")]
    return finished(interp, call, interpolation.map_coordinates(image, coordinates,
                                                                [f"`{code_of(node)}`" for node in nodes]), nodes)
