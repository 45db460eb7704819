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
from shapecheck.dims import Dim
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


@REGISTRY.handles(DEVICES, signature="backend=None")
@REGISTRY.handles(LOCAL_DEVICES, signature="process_index=None, backend=None, host_id=None")
def devices(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return Devices(None)


def _names(value: Value) -> tuple[str, ...] | None:
    single = as_str(value)
    if single is not None:
        return (single,)
    if isinstance(value, Seq) and all(as_str(item) is not None for item in value.items):
        return tuple(as_str(item) or "" for item in value.items)
    return None


@REGISTRY.handles(MESH, signature="devices, axis_names, axis_types=None", binds_names=True)
def mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    grid = call.arg("devices")
    if isinstance(grid, Devices):
        grid = ArrayType(None, (grid.count,))
    if not isinstance(grid, ArrayType) or grid.ellipsis is not None:
        return _mesh(None, _names(call.arg("axis_names")))
    return _mesh(grid.dims, _names(call.arg("axis_names")))


@REGISTRY.handles(MAKE_MESH, signature="axis_shapes, axis_names, axis_types=None, *, devices=None", binds_names=True)
def make_mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _mesh(shape(call.arg("axis_shapes")), _names(call.arg("axis_names")))


@REGISTRY.handles(ABSTRACT_MESH, signature="axis_sizes, axis_names, axis_types=None, *, abstract_device=None",
                  binds_names=True)
def abstract_mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    # A mesh without devices, the same to shapes.
    return _mesh(shape(call.arg("axis_sizes")), _names(call.arg("axis_names")))


def _mesh(sizes: tuple[Dim, ...] | None, names: tuple[str, ...] | None) -> Value:
    """A mesh of these axis names, with these sizes where they are known and as many."""
    if names is None:
        return None
    if sizes is None or len(sizes) != len(names):
        return Mesh(tuple((name, None) for name in names))
    return Mesh(tuple((name, size if isinstance(size, int) else None)
                      for name, size in zip(names, sizes, strict=True)))


@REGISTRY.handles("jax.experimental.mesh_utils.create_device_mesh",
                  signature="mesh_shape, devices=None, *, contiguous_submeshes=False, allow_split_physical_axes=False")
def device_mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dims = shape(call.arg("mesh_shape"))
    return ArrayType(None, dims) if dims is not None else None


@REGISTRY.handles(SET_MESH, USE_MESH, signature="mesh")
def set_mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("mesh")
    return MeshContext(value) if isinstance(value, Mesh) else None
