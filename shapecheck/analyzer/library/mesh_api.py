"""Devices and meshes: `jax.devices()`, `Mesh(devices, names)`, `jax.make_mesh`, `jax.set_mesh`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra.sharding_types import AUTO, EXPLICIT, MANUAL
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
from shapecheck.analyzer.values import Const, Devices, Mesh, MeshContext, Qual, Seq, Value, as_str
from shapecheck.dims import Dim
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

AXIS_TYPE: Final = "jax.sharding.AxisType"


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
    names = _names(call.arg("axis_names"))
    types = _axis_types(call, names, AUTO)  # Mesh(devices, names) makes Auto axes
    if not isinstance(grid, ArrayType) or grid.ellipsis is not None:
        return _mesh(None, names, types)
    return _mesh(grid.dims, names, types)


@REGISTRY.handles(MAKE_MESH, signature="axis_shapes, axis_names, axis_types=None, *, devices=None", binds_names=True)
def make_mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    # JAX 0.10's make_mesh makes Explicit axes unless axis_types= says otherwise.
    names = _names(call.arg("axis_names"))
    return _mesh(shape(call.arg("axis_shapes")), names, _axis_types(call, names, EXPLICIT))


@REGISTRY.handles(ABSTRACT_MESH, signature="axis_sizes, axis_names, axis_types=None, *, abstract_device=None",
                  binds_names=True)
def abstract_mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    # A mesh without devices, the same to shapes (Auto axes unless axis_types= says otherwise).
    names = _names(call.arg("axis_names"))
    return _mesh(shape(call.arg("axis_sizes")), names, _axis_types(call, names, AUTO))


def _axis_types(call: CallArgs, names: tuple[str, ...] | None, default: str) -> tuple[str, ...] | None:
    """`axis_types=`: one AxisType for every axis (or one for all); None where it cannot be read."""
    if not call.given("axis_types") or call.arg("axis_types") == Const(None):
        return None if names is None else (default,) * len(names)
    value = call.arg("axis_types")
    items = value.items if isinstance(value, Seq) else (value,)
    kinds = [_axis_type(item) for item in items]
    if names is None or any(kind is None for kind in kinds):
        return None
    if len(kinds) == 1 and len(names) != 1:
        kinds = kinds * len(names)
    return tuple(kind for kind in kinds if kind is not None) if len(kinds) == len(names) else None


def _axis_type(value: Value) -> str | None:
    if isinstance(value, Qual) and value.name.startswith(f"{AXIS_TYPE}."):
        kind = value.name[len(AXIS_TYPE) + 1:]
        return kind if kind in (EXPLICIT, AUTO, MANUAL) else None
    return None


def _mesh(sizes: tuple[Dim, ...] | None, names: tuple[str, ...] | None, types: tuple[str, ...] | None) -> Value:
    """A mesh of these axis names, with these sizes where they are known and as many."""
    if names is None:
        return None
    if sizes is None or len(sizes) != len(names):
        return Mesh(tuple((name, None) for name in names), types)
    # A zero-size axis: jax.make_mesh refuses it, and shard_map refuses such a mesh ("requires a
    # non-empty mesh"); no block is cut from it, so its size is not known, nor what its axis
    # types would make of a value (nothing is compared on a mesh JAX never builds).
    empty = any(size == 0 for size in sizes)
    return Mesh(tuple((name, size if isinstance(size, int) and size > 0 else None)
                      for name, size in zip(names, sizes, strict=True)), None if empty else types)


@REGISTRY.handles("jax.experimental.mesh_utils.create_device_mesh",
                  signature="mesh_shape, devices=None, *, contiguous_submeshes=False, allow_split_physical_axes=False")
def device_mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dims = shape(call.arg("mesh_shape"))
    return ArrayType(None, dims) if dims is not None else None


@REGISTRY.handles(SET_MESH, USE_MESH, signature="mesh")
def set_mesh(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("mesh")
    return MeshContext(value) if isinstance(value, Mesh) else None
