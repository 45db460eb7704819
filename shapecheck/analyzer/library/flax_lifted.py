"""flax.linen's lifted transforms: `nn.scan` and `nn.vmap` of a module class.

`nn.scan(Target, ...)` is a module class whose instances run `Target`'s call over slices of
their inputs, as `lax.scan` does, with the carry first. Two uses are common: a recurrent cell
over time (`nn.scan(nn.LSTMCell, in_axes=1, out_axes=1)`) and a stack of identical blocks
(`nn.scan(Block, variable_axes={'params': 0}, length=n)`, called as `Stack(...)(x, None)`).
The scanned class is held as a `Layer` of the name `flax.linen.scan` with the options given;
building it builds the target (a library layer or the program's own module) and gives a
`flax.linen.Scanned` layer, whose call is the scan.

`nn.vmap(Target, in_axes=..., out_axes=..., axis_size=...)` maps the target's call over its
inputs as `jax.vmap` does (ensembles, per-example modules): building it builds the target
and gives a `flax.linen.Mapped` layer holding the `Vmap` that `jax.vmap` of its call would
make, so every rule of maps applies, and `init` and `apply` run it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import recurrent
from shapecheck.analyzer.calls import CallArgs, Signature
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import control_api, vmap_api
from shapecheck.analyzer.library.common import forwarded, refused
from shapecheck.analyzer.library.layers_api import LayerRules, build
from shapecheck.analyzer.library.pytrees import map_leaves
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.values import Class, Const, Layer, Qual, Seq, Value, as_dim, as_int
from shapecheck.dims import Dim
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`
LAYERS = LayerRules()  # how each layer class is called; collected by `layer_calls`

LINEN: Final = "flax.linen"
SCAN: Final = f"{LINEN}.scan"
VMAP: Final = f"{LINEN}.vmap"
MAPPED: Final = f"{LINEN}.Mapped"  # a built module of `nn.vmap`: under flax.linen, for its methods
BUILT: Final = f"{LINEN}.Scanned"  # a built module of `nn.scan`: under flax.linen, for its methods
BROADCAST: Final = f"{LINEN}.broadcast"  # an argument passed whole to every step

REGISTRY.handles(SCAN, f"{LINEN}.transforms.scan",
                 signature="target, variable_axes=None, variable_broadcast=False, variable_carry=False, "
                           "split_rngs=None, in_axes=0, out_axes=0, length=None, reverse=False, unroll=1, "
                           "**options")(build)


REGISTRY.handles(VMAP, f"{LINEN}.transforms.vmap",
                 signature="target, variable_axes=None, split_rngs=None, in_axes=0, out_axes=0, axis_size=None, "
                           "axis_name=None, spmd_axis_name=None, metadata_params=None, methods=None")(build)


@LAYERS.rule(SCAN, signature="*args, **kwargs")
def construct(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nn.scan(Target, ...)(features)`: the target built with the arguments, to be scanned."""
    built = _built(interp, layer, call, ctx)
    if built is None:
        return None
    return Layer(BUILT, (("cell", built), *((name, value) for name, value in layer.settings if name != "target")),
                 call.node)


@LAYERS.rule(VMAP, signature="*args, **kwargs")
def construct_map(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nn.vmap(Target, ...)(features)`: the target built with the arguments, mapped as
    `jax.vmap(target, in_axes, out_axes, axis_name, axis_size)` maps it."""
    built = _built(interp, layer, call, ctx)
    if built is None:
        return None
    options = {name: layer.setting(name) for name in ("in_axes", "out_axes", "axis_name", "axis_size")
               if layer.given(name)}
    bound = CallArgs(call.node, [built], [call.node], options, {name: call.node for name in options})
    bound.signature = _MAP_SIGNATURE
    bound.name = VMAP
    mapped = vmap_api.batch_map(interp, bound, "vmap")
    # Held in a layer of flax.linen, whose `init` and `apply` run its call, as a module's do.
    return Layer(MAPPED, (("map", mapped),), call.node) if mapped is not None else None


@LAYERS.rule(MAPPED, signature="*args, **kwargs")
def mapped_call(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """A built `nn.vmap` module's call: the map of its target's call on the arguments."""
    return interp.call(layer.setting("map"), forwarded(call, call.rest()), ctx, interp.scope)


_MAP_SIGNATURE: Final = Signature.parse(vmap_api.VMAP_SIGNATURE)


def _built(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """The lifted transform's target (a module class, or a library layer's) built with the call's
    arguments."""
    target = layer.setting("target")
    if not isinstance(target, Class | Qual):
        return None
    return interp.call(target, forwarded(call, call.rest()), ctx, interp.scope)


@LAYERS.rule(BUILT, signature="*args")
def scan(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`scanned(carry, *xs)`: `(carry, ys)`, the target's call on the carry and each step's slices
    of `xs` (along `in_axes`; whole where `nn.broadcast`), its outputs stacked along `out_axes`."""
    args = call.rest()
    if not args:
        return None
    carry, xs = args[0], args[1:]
    axes = _in_axes(layer.setting("in_axes") if layer.given("in_axes") else Const(0), len(xs))
    out_axis = as_int(layer.setting("out_axes")) if layer.given("out_axes") else 0
    if axes is None or out_axis is None:
        return None  # (`reverse` scans the other way: the same shapes)
    length: Dim = as_dim(layer.setting("length")) if layer.given("length") else None
    steps: list[Value] = []
    lengths: list[Dim] = []
    for x, axis in zip(xs, axes, strict=True):
        if axis is None:
            steps.append(x)
            continue
        sliced, ok = control_api.sliced_steps(interp, call, x, axis, "nn.scan", f"a dim {axis} to scan over",
                                              lengths)
        if not ok:
            return None
        steps.append(sliced)
    count, problem = recurrent.step_count("nn.scan", lengths, length)
    if problem is not None:
        return refused(interp, call, problem)
    scanned = control_api.scan_cell(interp, call, ctx, "nn.scan", layer.setting("cell"), carry, steps, None)
    if scanned is None:
        return None
    final, out = scanned
    return Seq((final, map_leaves(out, lambda y: _stacked(y, out_axis, count)) if out is not None else None))


def _in_axes(value: Value, count: int) -> list[int | None] | None:
    """One axis per scanned argument (None: `nn.broadcast`, passed whole), from an int for all or
    a tuple of one each; None where unreadable."""
    def one(item: Value) -> int | str | None:
        if isinstance(item, Qual) and item.name == BROADCAST:
            return None
        found = as_int(item)
        return found if found is not None else "unknown"

    items = value.items if isinstance(value, Seq) else (value,) * count
    if len(items) != count:
        return None
    axes = [one(item) for item in items]
    return None if "unknown" in axes else [axis for axis in axes if not isinstance(axis, str)]


def _stacked(y: ArrayType, axis: int, count: Dim) -> Value:
    place = axis + y.rank + 1 if axis < 0 and y.rank is not None else axis
    return recurrent.with_time(y, place, count) if place >= 0 else None

