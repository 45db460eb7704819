"""Devices and meshes: `jax.devices()`, `Mesh(devices, names)`, `jax.make_mesh`, `jax.set_mesh`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import shape
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import (
    ABSTRACT_MESH,
    DEVICES,
    LOCAL_DEVICES,
    MAKE_MESH,
    MESH,
    SET_MESH,
    USE_MESH,
)
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Devices, Mesh, MeshContext, Seq, Value, as_str
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


@REGISTRY.handles(DEVICES, LOCAL_DEVICES)
def devices(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return Devices(None)


def _names(value: Value) -> tuple[str, ...] | None:
    single = as_str(value)
    if single is not None:
        return (single,)
    if isinstance(value, Seq) and all(as_str(item) is not None for item in value.items):
        return tuple(as_str(item) or "" for item in value.items)
    return None


@REGISTRY.handles(MESH)
def mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    grid = call.get(0, "devices")
    names = _names(call.get(1, "axis_names"))
    if names is None:
        return None
    if isinstance(grid, Devices):
        grid = ArrayType(None, (grid.count,))
    if not isinstance(grid, ArrayType) or grid.ellipsis is not None or len(grid.dims) != len(names):
        return Mesh(tuple((name, None) for name in names))
    return Mesh(tuple((name, size if isinstance(size, int) else None)
                      for name, size in zip(names, grid.dims, strict=True)))


@REGISTRY.handles(MAKE_MESH, ABSTRACT_MESH)
def make_mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    # `AbstractMesh(axis_sizes, axis_names)`: a mesh without devices, the same to shapes.
    sizes = shape(call.get(0, "axis_sizes" if call.name == ABSTRACT_MESH else "axis_shapes"))
    names = _names(call.get(1, "axis_names"))
    if names is None:
        return None
    if sizes is None or len(sizes) != len(names):
        return Mesh(tuple((name, None) for name in names))
    return Mesh(tuple((name, size if isinstance(size, int) else None)
                      for name, size in zip(names, sizes, strict=True)))


@REGISTRY.handles("jax.experimental.mesh_utils.create_device_mesh")
def device_mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dims = shape(call.get(0, "mesh_shape"))
    return ArrayType(None, dims) if dims is not None else None


@REGISTRY.handles(SET_MESH, USE_MESH)
def set_mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.get(0, "mesh")
    return MeshContext(value) if isinstance(value, Mesh) else None
