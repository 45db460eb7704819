"""`jax.vmap` and `jax.pmap` (DESIGN.md section 3a): in_axes and out_axes read into the
algebra's specs (`vmap_axes`), the mapped axis a named axis of the body's arguments (hidden
from annotations), and the results placed back by out_axes. An unnamed map's axis has a name
no user can write, and no message shows it."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from shapecheck.algebra.vmap_axes import (
    UNREAD,
    AxisSpec,
    BadLeaf,
    Entries,
    Kept,
    label_of,
    map_in_axes,
    place_out_axes,
    spec_problems,
    static_problem,
)
from shapecheck.algebra.vmap_axes import Kind as MapKind
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import ensembles
from shapecheck.analyzer.library.common import argnums, code_of, labels
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.library.trees import to_value, value_tree
from shapecheck.analyzer.qualnames import PMAP, VMAP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Dict,
    Instance,
    Layer,
    Seq,
    Stacked,
    Value,
    Vmap,
    as_int,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.types import invented_axis

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


VMAP_SIGNATURE = "fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None, sum_match=False"
PMAP_SIGNATURE = ("fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(), devices=None, "
                   "backend=None, axis_size=None, donate_argnums=()")


@REGISTRY.handles(VMAP, signature=VMAP_SIGNATURE, takes_functions=True, binds_names=True)
def vmap(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return batch_map(interp, call, "vmap")


@REGISTRY.handles(PMAP, signature=PMAP_SIGNATURE, takes_functions=True, binds_names=True)
def pmap(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return batch_map(interp, call, "pmap")


def batch_map(interp: Interpreter, call: CallArgs, kind: MapKind) -> Value:
    """The map `call` makes (`jax.vmap(fun, ...)`, bound to VMAP_SIGNATURE or pmap's): a `Vmap`
    whose call maps `fun` (flax's `nn.vmap` builds one for a module)."""
    if call.opaque:
        return None
    in_axes = call.arg("in_axes") if call.given("in_axes") else Const(0)
    out_axes = call.arg("out_axes") if call.given("out_axes") else Const(0)
    # What JAX refuses in the specs themselves, whatever the arguments (SC002).
    for what, value in (("in_axes", in_axes), ("out_axes", out_axes)):
        problems = spec_problems(axis_spec(value, interp), what, kind)
        interp.reporter.problems(problems, call.arg_node(what))
    given = call.arg("axis_name") if call.given("axis_name") else Const(None)
    name = as_str(given)
    size = call.arg("axis_size") if call.given("axis_size") else Const(None)
    static: tuple[int, ...] | None = ()
    if kind == "pmap" and call.given("static_broadcasted_argnums"):
        static = argnums(call.arg("static_broadcasted_argnums"))
    return Vmap(call.arg("fun"), in_axes, out_axes, name, as_int(size), call.node, kind,
                name is None and given != Const(None), as_int(size) is None and size != Const(None), static)


def axis_spec(value: Value, interp: Interpreter) -> AxisSpec:
    """An in_axes/out_axes value as the algebra reads it; a container's origin is where it was
    written, when that is in the module analysed (a spec imported from elsewhere is reported at
    the call)."""
    if isinstance(value, Const):
        if value.value is None:
            return None
        if value.is_int:
            assert isinstance(value.value, int)
            return value.value
        # JAX wants exactly ints: a float, a string or a bool is refused when the map is built.
        return BadLeaf(repr(value.value))
    number = as_int(value)
    if number is not None:
        return number
    if isinstance(value, Seq | Dict):
        # Literals remember the interpreter (the module) that built them.
        here = value.node if value.lookup == interp.literal_lookup else None
        text = code_of(value.node) if value.node is not None else ""
    if isinstance(value, Seq):
        return Entries(tuple(axis_spec(item, interp) for item in value.items), "list" if value.is_list else "tuple",
                       text=text, origin=here)
    if isinstance(value, Dict):
        keys = [as_str(key) for key, _ in value.items]
        if any(key is None for key in keys):
            return UNREAD
        return Entries(tuple(axis_spec(item, interp) for _, item in value.items), "dict",
                       tuple(key for key in keys if key is not None), text, here)
    return UNREAD


_VMAP_BODY: Final = "jax.vmap().body"  # the function, as `ensembles.unstacking` wraps it


@REGISTRY.calls(Vmap)
def call_vmap(interp: Interpreter, vm: Vmap, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if not any(isinstance(arg, Stacked) for arg in call.args):
        return map_call(interp, vm, call, ctx, scope)
    # An ensemble (built by nnx.vmap or eqx.filter_vmap) mapped along its stacked axis: the body
    # gets one member, and a module it builds comes back stacked.
    wrapped, given = ensembles.unstacking(vm, call, ctx, _VMAP_BODY)
    return ensembles.restacked(map_call(interp, wrapped, given, ctx, scope), vm.out_axes)


REGISTRY.handles(_VMAP_BODY, signature=ensembles.BODY_SIGNATURE)(ensembles.body)


def listed_in_axes(interp: Interpreter, in_axes: Value, node: ast.AST, api: str) -> bool:
    """Report a list in_axes at `node` (SC002): `jax.vmap` reads a list as a tuple, but `api`
    (nnx's and equinox's maps) compares in_axes with the tuple of arguments as a pytree, and a
    list is not one. True when reported."""
    if not (isinstance(in_axes, Seq) and in_axes.is_list):
        return False
    interp.reporter.add(node, Code.INVALID_AXIS_SPEC,
                        f"{api}: in_axes {code_of(in_axes.node) if in_axes.node is not None else 'list'} is a list, "
                        f"but {api} matches in_axes against the tuple of positional arguments, and a list is not a "
                        "tuple (a pytree structure error); write the entries as a tuple")
    return True


def holds_layer(value: Value) -> bool:
    """Whether `value` holds a library layer (`eqx.nn.Linear(...)`, `nnx.Linear(...)`): a map
    whose function makes one returns it with its arrays stacked, which a layer's settings cannot
    say (an ensemble), so what such a map returns is unknown to the libraries' maps."""
    if isinstance(value, Layer):
        return True
    if isinstance(value, Seq):
        return any(holds_layer(item) for item in value.items)
    if isinstance(value, Dict):
        return any(holds_layer(item) for _, item in value.items)
    if isinstance(value, Instance):
        return any(holds_layer(item) for _, item in value.fields)
    return False


def map_call(interp: Interpreter, vm: Vmap, call: CallArgs, ctx: Context, scope: Scope,
             out_axes: Callable[[Value], Value] | None = None) -> Value:
    """`vm`'s call: its function analysed per member, its results placed back; `out_axes`, where
    given, reads the out_axes from what the body returns (equinox's `if_array` places arrays
    and returns other values as they are)."""
    if call.opaque:
        return None
    kind: MapKind = "pmap" if vm.kind == "pmap" else "vmap"
    static = vm.static_argnums
    if static is None or (static and min(static) < 0):
        return None  # unread, or counted from the end: nothing is certain
    beyond = static_problem(static, len(call.args))
    if beyond is not None:
        interp.reporter.add(call.node, beyond.code, beyond.message)
        return None
    dynamic = [index for index in range(len(call.args)) if index not in static]
    in_axes = axis_spec(vm.in_axes, interp)
    if static and isinstance(in_axes, Entries) and in_axes.container == "tuple":
        # pmap reads a tuple in_axes by the original positions, skipping the static ones.
        if max(dynamic, default=-1) >= len(in_axes.items):
            return None
        in_axes = replace(in_axes, items=tuple(in_axes.items[i] for i in dynamic))
    # The mapped axis is a named axis inside (as in xmap), invisible to the function's annotations;
    # an unnamed map's axis has a name no user can write, and no message shows it.
    axis = vm.axis_name or invented_axis(f"{kind}@{id(vm.node)}")
    arg_labels = labels(call)
    kw_names = list(call.kwargs)
    mapped = map_in_axes(
        [value_tree(call.args[i]) for i in dynamic], in_axes, axis, vm.axis_size,
        [label_of(arg_labels, i) for i in dynamic], kind, [value_tree(call.kwargs[k]) for k in kw_names],
        [f"keyword argument `{k}`" for k in kw_names], sized=vm.axis_size_unread)
    operand_nodes = [call.arg_nodes[i] for i in dynamic] + [call.kwarg_nodes.get(k, call.node) for k in kw_names]
    for problem in mapped.problems:
        blamed = operand_nodes[problem.operands[0]] if problem.operands else call.node
        target = problem.origin if isinstance(problem.origin, ast.AST) else blamed
        notes = [("the other size comes from this argument", operand_nodes[other]) for other in problem.operands[1:]]
        interp.reporter.add(target, problem.code, problem.message, notes)
    if mapped.args is None:
        return None
    # None is a pytree without leaves: mapped or not, the body gets None.
    body_args: list[Value] = list(call.args)
    for index, item in zip(dynamic, mapped.args, strict=True):
        if not isinstance(item, Kept) and call.args[index] != Const(None):
            body_args[index] = to_value(item, call.args[index])
    body_kwargs = {k: call.kwargs[k] if call.kwargs[k] == Const(None) else to_value(item, call.kwargs[k])
                   for k, item in zip(kw_names, mapped.kwargs, strict=True)}
    binds = f"binds {vm.axis_name!r}" if vm.axis_name else "binds no name (it has no axis_name)"
    inner = ctx.enter_map({axis: mapped.size}, hidden=frozenset({axis}), binder=(f"this {kind} {binds}", vm.node))
    if vm.name_unknown:
        inner = replace(inner, any_name=True)  # it binds a name the checker cannot read
    body_call = CallArgs(call.node, body_args, list(call.arg_nodes), body_kwargs, dict(call.kwarg_nodes))
    result = interp.call(vm.fun, body_call, inner, scope)
    spec = out_axes(result) if out_axes is not None else vm.out_axes
    placed, problems = place_out_axes(value_tree(result), axis_spec(spec, interp), axis, mapped.size, kind)
    for problem in problems:
        target = problem.origin if isinstance(problem.origin, ast.AST) else call.node
        interp.reporter.add(target, problem.code, problem.message)
    return to_value(placed, result)
