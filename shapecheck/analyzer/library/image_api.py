"""`jax.image.resize`: an image resampled to a shape of its own rank; `nearest` keeps the dtype,
the interpolating methods compute in floating point."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.promotion import Typed, inexact
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, code_of, refused, shape
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Qual, Value, as_str
from shapecheck.codes import Code
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

# The methods by the names JAX reads (`jax.image.ResizeMethod`'s members are these too).
_METHODS: Final = frozenset({"nearest", "linear", "bilinear", "trilinear", "triangle", "cubic", "bicubic",
                             "tricubic", "lanczos3", "lanczos5"})


@REGISTRY.handles("jax.image.resize", signature="image, shape, method, antialias=True, precision=None")
def resize(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    image, dims = array(call.arg("image")), shape(call.arg("shape"))
    method = _method(call.arg("method"))
    if image is None or dims is None or method is None or image.ellipsis is not None:
        return None
    if len(dims) != len(image.dims):
        return refused(interp, call, Problem(
            Code.AXIS_OUT_OF_RANGE, f"jax.image.resize takes a shape of the image's rank: {len(dims)} sizes for "
            f"`{code_of(call.arg_node('image'))}` of shape {image.positional_text()} (batch and channel dims "
            "included)", operands=(1,)))
    dtype = image.dtype if method == "nearest" else inexact(Typed(image.dtype)).dtype
    return ArrayType(dtype, dims, image.named, None, image.named_open)


def _method(value: Value) -> str | None:
    """A method by name, or by `jax.image.ResizeMethod.LINEAR`; None where it is not one of them."""
    name = as_str(value)
    if name is None and isinstance(value, Qual) and value.name.startswith("jax.image.ResizeMethod."):
        name = value.name.rpartition(".")[2]
    name = name.lower() if name is not None else None
    return name if name in _METHODS else None
