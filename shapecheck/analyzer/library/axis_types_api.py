"""`jax.sharding.auto_axes` and `explicit_axes`: a function run with some mesh axes of another
type (DESIGN.md section 3b).

As JAX 0.10's `_auto_axes`/`_explicit_axes` do it: the body runs under the context mesh with
`axes` (all of them by default) made Auto (or Explicit); `auto_axes` takes the arguments'
types without those axes and reshards the result to `out_sharding=` on the outer mesh (which,
as `reshard`, may name only Explicit axes: SC209); `explicit_axes` reshards the arguments to
`in_sharding=` on the new mesh and gives the result's type back without the axes that are not
Explicit outside. Both are built by decorator or call, with the option at either place
(`auto_axes(f)(x, out_sharding=P(...))`), so building one returns a partial of a private
handler that runs it when called.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Final

from shapecheck.algebra import sharding_types as st
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.partition_specs import resolved
from shapecheck.analyzer.library.placements import reshard_checks
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.library.typed_shardings import forget, placement, spec_entries, typed_tree
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Dict,
    Mesh,
    Partial,
    Qual,
    Seq,
    Sharding,
    Spec,
    Value,
    as_str,
)
from shapecheck.types import ArrayType
from shapecheck.types import Sharding as TypeSharding

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

AUTO_AXES: Final = "jax.sharding.auto_axes"
EXPLICIT_AXES: Final = "jax.sharding.explicit_axes"
# What `auto_axes(f, ...)` returns, called: private names no program spells.
_AUTO_CALL: Final = "jax.sharding.auto_axes.<wrapped>"
_EXPLICIT_CALL: Final = "jax.sharding.explicit_axes.<wrapped>"


@REGISTRY.handles(AUTO_AXES, "jax.experimental.shard.auto_axes", signature="f=None, /, *, axes=None, out_sharding=None",
                  takes_functions=True, binds_names=True)
def auto_axes(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _wrap(call, AUTO_AXES, _AUTO_CALL)


@REGISTRY.handles(EXPLICIT_AXES, "jax.experimental.shard.explicit_axes",
                  signature="f=None, /, *, axes=None, in_sharding=None", takes_functions=True, binds_names=True)
def explicit_axes(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _wrap(call, EXPLICIT_AXES, _EXPLICIT_CALL)


def _wrap(call: CallArgs, name: str, wrapped: str) -> Value:
    if call.opaque:
        return None
    options = tuple((key, value) for key, value in call.kwargs.items() if value != Const(None))
    if not call.given("f"):
        return Partial(Qual(name), (), options)  # `@auto_axes(out_sharding=...)`: the decorator
    return Partial(Qual(wrapped), (call.arg("f"),), options)


@REGISTRY.handles(_AUTO_CALL, signature="f, /, *args, axes=None, out_sharding=None, **kwargs")
def auto_axes_call(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    out = resolved(interp, call.arg("out_sharding")) if call.given("out_sharding") else None
    mesh = _mesh(ctx, out)
    axes = _axes(call, mesh)
    if out is None or out == Const(None) or mesh is None or axes is None or _unknown_types(mesh):
        _run(interp, call, ctx.with_mesh(None), scope, _forget)  # JAX's TypeError, or not followed
        return None
    types = mesh.axis_types
    if any(types[axis] == st.MANUAL for axis in axes):
        return None  # JAX's NotImplementedError
    if {axis for axis, kind in types.items() if kind == st.AUTO} == set(axes):
        # Already Auto: JAX calls the function as it is, out_sharding unused.
        return _run(interp, call, ctx, scope, lambda leaf: leaf)
    inner = _retyped(mesh, axes, st.AUTO)
    result = _run(interp, call, ctx.with_mesh(inner), scope, lambda leaf: _without(leaf, inner))
    # reshard(out, out_sharding) on the outer mesh: only Explicit axes (SC209), as reshard.
    for spec in _specs(out):
        read = placement(spec, ctx)
        if read is None or read[1] is None:
            continue
        problem = st.misnamed_axes(read[0], read[1].axis_types, "auto_axes's out_sharding")
        if problem is not None:
            interp.reporter.add(call.kwarg_nodes.get("out_sharding", call.node), problem.code, problem.message)
            return None
    if reshard_checks(interp, out, result, "the result of auto_axes", call.kwarg_nodes.get("out_sharding", call.node),
                      ctx):
        return None
    return typed_tree(out, result, ctx)


@REGISTRY.handles(_EXPLICIT_CALL, signature="f, /, *args, axes=None, in_sharding=None, **kwargs")
def explicit_axes_call(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    given = resolved(interp, call.arg("in_sharding")) if call.given("in_sharding") else None
    mesh = ctx.mesh  # explicit_axes needs the context mesh (JAX's ValueError without one)
    axes = _axes(call, mesh)
    node = call.kwarg_nodes.get("in_sharding", call.node)
    # JAX reshards the arguments to in_sharding: a NamedSharding onto its own mesh, where it
    # may name only Explicit axes (JAX 0.10.2: NamedSharding(mesh, P('X')) with X Auto there
    # is reshard's ValueError, though explicit_axes would make X Explicit for a bare P('X')).
    for sharding in _named(given):
        types = sharding.mesh.axis_types if sharding.mesh is not None else {}
        problem = st.misnamed_axes(spec_entries(sharding.spec), types, "explicit_axes's in_sharding")
        if problem is not None:
            interp.reporter.add(node, problem.code, problem.message)
            _run(interp, call, ctx.with_mesh(None), scope, _forget)
            return None
    if given is None or given == Const(None) or mesh is None or axes is None or _unknown_types(mesh) \
            or any(mesh.axis_types[axis] == st.MANUAL for axis in axes) or any(True for _ in _named(given)):
        _run(interp, call, ctx.with_mesh(None), scope, _forget)
        return None
    inner = _retyped(mesh, axes, st.EXPLICIT)
    inside = ctx.with_mesh(inner)
    if reshard_checks(interp, given, Seq(tuple(call.rest())), "explicit_axes's argument", node, inside):
        return None
    for spec in _specs(given):
        read = placement(spec, inside)
        if read is not None and read[1] is not None:
            problem = st.misnamed_axes(read[0], read[1].axis_types, "explicit_axes's in_sharding")
            if problem is not None:
                interp.reporter.add(call.kwarg_nodes.get("in_sharding", call.node), problem.code, problem.message)
                return None
    args = typed_tree(given, Seq(tuple(call.rest())), inside)
    rest = args.items if isinstance(args, Seq) else tuple(forget(arg) for arg in call.rest())
    result = _call(interp, call, list(rest), inside, scope)
    # The result's type keeps only the axes that are Explicit outside.
    return _each(result, lambda leaf: _without(leaf, mesh))


def _run(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope,
         change: Callable[[ArrayType], ArrayType]) -> Value:
    """The wrapped function's result for the arguments, each array changed by `change`."""
    return _call(interp, call, [_each(arg, change) for arg in call.rest()], ctx, scope)


def _call(interp: Interpreter, call: CallArgs, args: list[Value], ctx: Context, scope: Scope) -> Value:
    passed = {key: value for key, value in call.kwargs.items() if key not in ("f", "axes", "out_sharding", "in_sharding")}
    nodes = {key: node for key, node in call.kwarg_nodes.items() if key in passed}
    first = 1 if call.arg_nodes else 0
    inner = CallArgs(call.node, args, list(call.arg_nodes[first:]), passed, nodes)
    return interp.call(call.arg("f"), inner, ctx, scope)


def _forget(leaf: ArrayType) -> ArrayType:
    return leaf.with_sharding(None)


def _mesh(ctx: Context, out: Value) -> Mesh | None:
    """The mesh auto_axes works on: the context's, else that of out_sharding's NamedShardings."""
    if ctx.mesh is not None:
        return ctx.mesh
    meshes = {id(sharding.mesh): sharding.mesh for sharding in _named(out)}
    return next(iter(meshes.values())) if len(meshes) == 1 else None


def _axes(call: CallArgs, mesh: Mesh | None) -> tuple[str, ...] | None:
    """`axes=`: one name or a tuple of them, every axis of the mesh by default; None if unread."""
    if mesh is None:
        return None
    if not call.given("axes") or call.arg("axes") == Const(None):
        return mesh.names
    value = call.arg("axes")
    items = value.items if isinstance(value, Seq) else (value,)
    names = tuple(as_str(item) for item in items)
    if any(name is None or name not in mesh.names for name in names):
        return None  # unread, or not the mesh's (JAX's KeyError)
    return tuple(name for name in names if name is not None)


def _unknown_types(mesh: Mesh) -> bool:
    return any(kind is None for kind in mesh.axis_types.values())


def _retyped(mesh: Mesh, axes: tuple[str, ...], kind: str) -> Mesh:
    types = mesh.axis_types
    return Mesh(mesh.axes, tuple(kind if name in axes else types[name] or "" for name in mesh.names))


def _without(leaf: ArrayType, mesh: Mesh) -> ArrayType:
    """`leaf` typed on `mesh`: the axes that are not Explicit there dropped from its split (JAX's
    `modify_spec_for_auto_manual`); a dim split over axes of both kinds is not modelled."""
    sharding = leaf.sharding
    if sharding is None:
        return leaf
    types = mesh.axis_types
    dims: list[tuple[str, ...] | None] = []
    for entry in sharding.dims:
        kept = None if entry is None else tuple(axis for axis in entry if types.get(axis) == st.EXPLICIT)
        dims.append(None if entry is None or (kept and len(kept) != len(entry)) else kept)
    return leaf.with_sharding(TypeSharding(tuple(dims), mesh.axes))


def _each(tree: Value, change: Callable[[ArrayType], ArrayType]) -> Value:
    if isinstance(tree, ArrayType):
        return change(tree) if tree.dims else tree
    if isinstance(tree, Seq):
        return Seq(tuple(_each(item, change) for item in tree.items), tree.is_list, tree.node, tree.lookup)
    if isinstance(tree, Dict):
        return Dict(tuple((key, _each(item, change)) for key, item in tree.items), tree.node, tree.lookup)
    return tree


def _specs(tree: Value) -> Iterator[Spec | Sharding]:
    if isinstance(tree, Spec | Sharding):
        yield tree
    elif isinstance(tree, Seq):
        for item in tree.items:
            yield from _specs(item)
    elif isinstance(tree, Dict):
        for _, item in tree.items:
            yield from _specs(item)


def _named(tree: Value) -> Iterator[Sharding]:
    """The NamedShardings in a tree of shardings (their meshes, where known)."""
    for spec in _specs(tree):
        if isinstance(spec, Sharding) and spec.mesh is not None:
            yield spec

