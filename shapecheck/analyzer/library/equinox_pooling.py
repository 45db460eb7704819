"""equinox's pooling layers: `eqx.nn.MaxPool1d`/`2d`/`3d` and `AvgPool1d`/`2d`/`3d`, built with
their window and called on one example, `(channels, *spatial)` (a batch is vmapped).

The formula is equinox's own (`nn/_pool.py`): `lax.reduce_window` over the spatial dims with
the padding given (`use_ceil` pads the high side by a stride where the windows do not fit), an
average dividing the sum by the window's size. equinox asserts the rank, and refuses a padding
wider than the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import convolution
from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.promotion import Typed, true_divide
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import flag, refused
from shapecheck.analyzer.library.layers_api import (
    LayerRules,
    build,
    padding_of,
    shown_window,
    window,
)
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.values import Layer, Value
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`
LAYERS = LayerRules()  # how each layer class is called; collected by `layer_calls`

EQX_NN: Final = "equinox.nn"
_POOLS: Final = {f"{EQX_NN}.{kind}Pool{n}d": n for kind in ("Max", "Avg") for n in (1, 2, 3)}

REGISTRY.handles(*_POOLS, signature="kernel_size, stride=1, padding=0, use_ceil=False")(build)


@LAYERS.rule(*_POOLS, signature="x, *, key=None")
def pool(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`eqx.nn.MaxPool2d(kernel_size, stride)(x)`: x is `(channels, *spatial)`; each spatial dim
    pooled, the channels kept."""
    x = call.arg("x")
    spatial = _POOLS[layer.name]
    name = layer.name.rpartition(".")[2]
    kernel = window(layer.setting("kernel_size"), spatial)
    strides = window(layer.setting("stride"), spatial) if layer.given("stride") else (1,) * spatial
    padding = padding_of(layer.setting("padding"), spatial) if layer.given("padding") else ((0, 0),) * spatial
    ceil = flag(layer.setting("use_ceil"), False) if layer.given("use_ceil") else False
    if (not isinstance(x, ArrayType) or x.rank is None or x.ellipsis is not None or kernel is None
            or strides is None or not isinstance(padding, tuple) or ceil is None):
        return None
    what = f"eqx.nn.{name}({shown_window(kernel)})"
    if x.rank != spatial + 1:
        return refused(interp, call, Problem(
            Code.ANNOTATION_MISMATCH, f"{what} takes one example of (channels, {spatial} spatial dim"
            f"{'s' if spatial > 1 else ''}), but its input is {x.positional_text()} (vmap it over a batch)",
            operands=(0,)))
    if ceil:
        padding = tuple(_ceil_padding(size, pads, k, s) for size, pads, k, s in
                        zip(x.dims[1:], padding, kernel, strides, strict=True))
    for (low, high), size in zip(padding, kernel, strict=True):
        if isinstance(size, int) and any(isinstance(pad, int) and pad > size for pad in (low, high)):
            return refused(interp, call, Problem(
                Code.SIZE_ARGUMENT_MISMATCH, f"{what}: padding ({low}, {high}) is wider than the window of {size}; equinox "
                "refuses a padding larger than the kernel (a RuntimeError)", operands=(0,)))
    moved = ArrayType(x.dtype, (*x.dims[1:], x.dims[0]), x.named, None, x.named_open)
    pooled = convolution.reduce_window(moved, (*kernel, 1), (*strides, 1), (*padding, (0, 0)), what=what)
    if pooled.problems:
        interp.reporter.problems(pooled.problems, call.node, call.arg_nodes)
        return None
    dims = pooled.type.dims
    dtype = x.dtype
    if name.startswith("Avg"):
        if dtype is not None and kind_of(dtype) == "b":
            return refused(interp, call, Problem(
                Code.DTYPE_MISMATCH, f"{what} sums its windows (lax.reduce_window_sum), which refuses a boolean "
                "input", operands=(0,)))
        dtype = true_divide(Typed(x.dtype, x.weak), Typed("i64", True)).dtype
    return ArrayType(dtype, (dims[-1], *dims[:-1]), x.named, None, x.named_open)


def _ceil_padding(size: Dim, pads: tuple[Dim, Dim], kernel: Dim, stride: Dim) -> tuple[Dim, Dim]:
    """equinox's `use_ceil`: a stride more on the high side where the windows do not fit."""
    low, high = pads
    if not all(isinstance(n, int) for n in (size, low, high, kernel, stride)):
        return (low, None)
    assert isinstance(size, int) and isinstance(low, int) and isinstance(high, int)
    assert isinstance(kernel, int) and isinstance(stride, int)
    fits = (size + low + high - kernel) % stride == 0 if stride > 0 else True
    return (low, high) if fits else (low, high + stride)

