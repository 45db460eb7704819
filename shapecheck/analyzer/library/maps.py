"""Maps that bind axis names: xmap, vmap, pmap; and transforms that keep a function's meaning."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from shapecheck.algebra.axis_mapping import (
    SpecTree,
    ValueTree,
    apply_in_axes,
    apply_out_axes,
    parse_axis_spec,
)
from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.resources import cooccurrence, divisibility, unknown_resources
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
from shapecheck.algebra.xmap_options import read_axis_resources, read_axis_sizes, undefined_axes
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import code_of, flag, labels
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.literals import to_lit
from shapecheck.analyzer.qualnames import PARTIAL, PMAP, VMAP, XMAP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Dict,
    Function,
    Partial,
    Qual,
    Seq,
    ShardMap,
    Value,
    Vmap,
    Xmap,
    as_int,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.dims import Conflict, Dim
from shapecheck.literal import Kind, Lit, from_value
from shapecheck.types import ArrayType, invented_axis

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


@REGISTRY.handles(PARTIAL, takes_functions=True)
def partial(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if not call.args or call.opaque:
        return None
    return Partial(call.args[0], tuple(call.args[1:]), tuple(call.kwargs.items()))


@REGISTRY.handles("jax.checkpoint", "jax.remat", "jax.named_call", "jax.custom_jvp", "jax.custom_vjp",
                  "functools.wraps", "jax.ad_checkpoint.checkpoint")
def same_function(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    # checkpointing and friends change how a function runs, never the shapes it computes.
    fun = call.get(0, "fun")
    return fun if isinstance(fun, Function | Partial | Xmap | Vmap | ShardMap) else None


# ---------------------------------------------------------------- grad

# `jax.grad(f)` is a partial application of this name (no program can write it), so that
# calling it reaches `grad_call` with the function, the options and the call's arguments.
_GRAD_CALL = "jax.grad()"


@REGISTRY.handles("jax.grad", "jax.value_and_grad", takes_functions=True)
def grad(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque:
        return None
    argnums = _argnums(call.get(1, "argnums")) if call.has(1, "argnums") else (0,)
    has_aux = flag(call.get(2, "has_aux"), False) if call.has(2, "has_aux") else False
    if argnums is None or has_aux is None:
        return None
    # An int argnums gives one gradient, a tuple a tuple of them (even of one).
    single = not call.has(1, "argnums") or as_int(call.get(1, "argnums")) is not None
    options = (Seq(tuple(Const(n) for n in argnums)), Const(single), Const(has_aux),
               Const(call.short_name == "value_and_grad"))
    return Partial(Qual(_GRAD_CALL), (call.get(0, "fun"), *options))


_GRAD_OPTIONS = 4  # the arguments after the function, before the call's own: see `grad`


@REGISTRY.handles(_GRAD_CALL)
def grad_call(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A gradient has its argument's shape, and varies over the named axes the value does."""
    if len(call.args) <= _GRAD_OPTIONS:
        return None
    fun, numbers, *flags = call.args[:_GRAD_OPTIONS + 1]
    args = call.args[_GRAD_OPTIONS + 1:]
    argnums = _argnums(numbers)
    single, has_aux, with_value = (flag(value) for value in flags)
    if not argnums or max(argnums) >= len(args) or min(argnums) < 0:
        return None
    inner = CallArgs(call.node, list(args), list(call.arg_nodes[_GRAD_OPTIONS + 1:]), dict(call.kwargs),
                     dict(call.kwarg_nodes))
    result = interp.call(fun, inner, ctx, scope)
    value = result.items[0] if has_aux and isinstance(result, Seq) and result.items else result
    if has_aux and not isinstance(result, Seq):
        value = None
    named = value.named if isinstance(value, ArrayType) else None
    grads = [_gradient(_value_tree(args[i]), named) for i in argnums]
    gradient = _to_value(grads[0]) if single else Seq(tuple(_to_value(g) for g in grads))
    aux = result.items[1] if has_aux and isinstance(result, Seq) and len(result.items) > 1 else None
    if with_value:
        return Seq(((Seq((value, aux)) if has_aux else value), gradient))
    return Seq((gradient, aux)) if has_aux else gradient


def _gradient(tree: ValueTree, named: tuple[tuple[str, Dim], ...] | None) -> ValueTree:
    """The gradient with respect to `tree`: its shapes, over its named axes and the value's
    (`named`; None when the value is unknown: then it may vary over more)."""
    if isinstance(tree, ArrayType):
        axes = dict(named or ())
        axes.update(tree.named)
        return replace(tree.with_named(axes), named_open=tree.named_open or named is None, weak=False)
    if isinstance(tree, tuple):
        return tuple(_gradient(item, named) for item in tree)
    if isinstance(tree, dict):
        return {key: _gradient(item, named) for key, item in tree.items()}
    return None


# ---------------------------------------------------------------- xmap


@REGISTRY.handles(XMAP, takes_functions=True)
def xmap(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque:
        return None
    fun = call.get(0, "fun")
    in_expr = call.expr_of(1, "in_axes")
    out_expr = call.expr_of(2, "out_axes")
    in_lit = _lit(interp, call.get(1, "in_axes"), in_expr)
    out_lit = _lit(interp, call.get(2, "out_axes"), out_expr)
    # The rules of axis_sizes and axis_resources are the algebra's, shared with the runtime.
    sizes = read_axis_sizes(_option(interp, call, "axis_sizes"))
    resources = read_axis_resources(_option(interp, call, "axis_resources"))
    interp.reporter.problems([*sizes.problems, *resources.problems], call.node)
    size_nodes = {name: _node_or(origin, call.node) for name, origin in sizes.origins.items()}
    resource_nodes = {name: _node_or(origin, call.node) for name, origin in resources.origins.items()}
    in_tree = _parse(in_lit, "in_axes", interp, call.node)
    out_tree = _parse(out_lit, "out_axes", interp, call.node)
    result = Xmap(fun, in_lit, out_lit, in_tree, out_tree, dict(sizes.sizes), size_nodes,
                  resources.resources, resource_nodes, call.node, sizes.complete)
    # An axis_sizes key the analyzer cannot read may define any name: then nothing is undefined.
    if in_lit is not None and in_tree is not None and sizes.complete:
        interp.reporter.problems(undefined_axes(in_tree, out_tree, sizes.sizes, resource_nodes), call.node)
    return result


def _lit(interp: Interpreter, value: Value, expr: ast.expr | None) -> Lit | None:
    """The spec's literal syntax: where the value was built (a module constant's own literal)."""
    lookup: Callable[[str], Lit | None] = interp.literal_lookup
    if isinstance(value, Seq | Dict) and value.node is not None:
        expr = value.node
        lookup = value.lookup or lookup
    if expr is None:
        return None
    lit = to_lit(expr, lookup)
    return None if lit.kind in (Kind.NAME, Kind.OTHER) else lit


def _origin(lit: Lit, default: ast.AST) -> ast.AST:
    return lit.origin if isinstance(lit.origin, ast.AST) else default


def _option(interp: Interpreter, call: CallArgs, keyword: str) -> Lit | None:
    """An xmap keyword option as literal syntax for the algebra; None when not given."""
    if keyword not in call.kwargs:
        return None
    value = call.kwargs[keyword]
    lit = _lit(interp, value, None)
    if not isinstance(value, Dict):
        return _known(value, lit)
    pairs: list[tuple[Lit | None, Lit | None]] = [(None, None)] * len(value.items)
    if lit is not None and lit.kind is Kind.DICT and len(lit.pairs) == len(value.items):
        pairs = list(lit.pairs)
    items: list[Lit] = []
    for (key, item), (key_lit, item_lit) in zip(value.items, pairs, strict=True):
        items += [_known(key, key_lit), _known(item, item_lit)]
    return Lit(Kind.DICT, items=tuple(items), text=lit.describe() if lit is not None else "",
               origin=lit.origin if lit is not None else None)


def _known(value: Value, lit: Lit | None) -> Lit:
    """`lit` with what the interpreter knows of its value (a name bound to a constant is that constant)."""
    origin = lit.origin if lit is not None else None
    number = as_int(value)
    if number is not None:
        known = from_value(number)
    elif isinstance(value, Const):
        known = from_value(value.value)
    elif isinstance(value, Seq):
        subs: Sequence[Lit | None] = [None] * len(value.items)
        if lit is not None and lit.kind in (Kind.TUPLE, Kind.LIST) and len(lit.items) == len(value.items):
            subs = lit.items
        items = tuple(_known(item, sub) for item, sub in zip(value.items, subs, strict=True))
        listed = ", ".join(item.describe() for item in items)
        known = Lit(Kind.LIST if value.is_list else Kind.TUPLE, items=items,
                    text=f"[{listed}]" if value.is_list else f"({listed})")
    else:
        return Lit(Kind.OTHER, text=lit.describe() if lit is not None else "?", origin=origin)
    # The text describes the value (as the runtime's message does), the origin is where it was written.
    return replace(known, origin=origin)


def _node_or(origin: object, default: ast.AST) -> ast.AST:
    return origin if isinstance(origin, ast.AST) else default


def _parse(lit: Lit | None, what: str, interp: Interpreter, call: ast.AST) -> SpecTree | None:
    """Parse a spec, reporting its SC002 problems (at their own node, else at the xmap call)."""
    if lit is None:
        return None
    tree, problems = parse_axis_spec(lit, what)
    interp.reporter.problems(problems, _origin(lit, call), fallback=call)
    return tree


def _value_tree(value: Value) -> ValueTree:
    if isinstance(value, ArrayType):
        return value
    if isinstance(value, Const) and isinstance(value.value, int | float) and not isinstance(value.value, bool):
        return ArrayType(None, ())
    if isinstance(value, Seq):
        return tuple(_value_tree(item) for item in value.items)
    if isinstance(value, Dict):
        items = {}
        for key, item in value.items:
            name = as_str(key)
            if name is None:
                return None
            items[name] = _value_tree(item)
        return items
    return None


def _to_value(tree: ValueTree) -> Value:
    if isinstance(tree, ArrayType):
        return tree
    if isinstance(tree, tuple):
        return Seq(tuple(_to_value(item) for item in tree))
    if isinstance(tree, dict):
        return Dict(tuple((Const(k), _to_value(v)) for k, v in tree.items()))
    return None


@REGISTRY.calls(Xmap, Vmap)
def call_map(interp: Interpreter, fn: Xmap | Vmap, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque:
        return None
    if isinstance(fn, Vmap):
        return _call_vmap(interp, fn, call, ctx, scope)
    return _call_xmap(interp, fn, call, ctx, scope)


def _call_xmap(interp: Interpreter, xm: Xmap, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    in_tree, out_tree = xm.in_tree, xm.out_tree
    if in_tree is None:
        return None
    args = [_value_tree(arg) for arg in call.args]
    named_args, sizes = apply_in_axes(in_tree, args, xm.axis_sizes)
    for problem in sizes.problems:
        target: ast.AST = call.node
        related: list[tuple[str, ast.AST]] = []
        if isinstance(problem.origin, ast.AST):
            target = problem.origin
        elif problem.operands and problem.operands[0] < len(call.arg_nodes):
            target = call.arg_nodes[problem.operands[0]]
        if problem.code == Code.NAMED_SIZE_MISMATCH and problem.axes:
            name = str(problem.axes[0])
            if len(problem.operands) > 1 and problem.operands[1] < len(call.arg_nodes):
                related.append((f"the other size of {name!r} comes from this argument",
                                call.arg_nodes[problem.operands[1]]))
            if not problem.operands and name in xm.axis_sizes_nodes:
                # axis_sizes contradicts the arguments: blame the entry, note the argument.
                target = xm.axis_sizes_nodes[name]
                earlier = sizes.source_operands.get(name)
                if earlier is not None and earlier < len(call.arg_nodes):
                    related.append((f"the other size of {name!r} comes from this argument",
                                    call.arg_nodes[earlier]))
        interp.reporter.add(target, problem.code, problem.message, related)
    axis_sizes: dict[str, Dim] = dict(sizes.sizes)
    _check_mesh(interp, xm, axis_sizes, ctx)
    notes = (("the xmap is defined here", xm.node), *(
        (f"axis_resources maps {name!r} to {', '.join(repr(r) for r in mesh)}", xm.resource_nodes[name])
        for name, mesh in sorted(xm.resources.items()) if name in xm.resource_nodes))
    # Values built straight from in_axes may already hold two co-mapped axes.
    if xm.resources:
        for arg_node, named in zip(call.arg_nodes, named_args, strict=False):
            if isinstance(named, ArrayType):
                interp.reporter.problems(cooccurrence((n for n, _ in named.named), xm.resources), arg_node,
                                         notes=notes)
    bound = ", ".join(repr(name) for name in sorted(axis_sizes)) or "no axis"
    inner = ctx.enter_map(axis_sizes, xm.resources, notes, binder=(f"this xmap binds {bound}", xm.node))
    if not xm.names_known:
        inner = replace(inner, any_name=True)
    # Inside the body one name has one size (xmap enforces it). A conflict is reported above,
    # once: the body and the results see that axis as unknown, so nothing downstream echoes it
    # with a size that is not the argument's.
    named_args = [_with_sizes(arg, axis_sizes) for arg in named_args]
    body_call = CallArgs(call.node, [_to_value(v) for v in named_args], list(call.arg_nodes))
    result = interp.call(xm.fun, body_call, inner, scope)
    if not isinstance(xm.fun, Function):
        # A library function as the body (`xmap(jnp.vdot, ...)`): its result is built by this call.
        interp.check_cooccurrence(result, body_call.args, call.node, inner)
    if out_tree is None:
        return None
    # The body's declared return may name a size for a conflicting axis: it stays unknown.
    conflicts: dict[str, Dim] = {n: s for n, s in axis_sizes.items() if isinstance(s, Conflict)}
    result_tree = _with_sizes(_value_tree(result), conflicts)
    if result_tree is None and result is not None:
        return None
    placed, problems = apply_out_axes(out_tree, result_tree, axis_sizes)
    fallback = xm.out_axes.origin if xm.out_axes is not None and isinstance(xm.out_axes.origin, ast.AST) \
        else xm.node
    interp.reporter.problems(problems, fallback)
    return _to_value(placed)


def _with_sizes(tree: ValueTree, sizes: dict[str, Dim]) -> ValueTree:
    """`tree` with the map's sizes of its named axes, where the map knows them."""
    if isinstance(tree, ArrayType):
        return tree.with_named((n, sizes.get(n, s) if sizes.get(n) is not None else s) for n, s in tree.named)
    if isinstance(tree, tuple):
        return tuple(_with_sizes(item, sizes) for item in tree)
    if isinstance(tree, dict):
        return {k: _with_sizes(v, sizes) for k, v in tree.items()}
    return tree


def _check_mesh(interp: Interpreter, xm: Xmap, sizes: dict[str, Dim], ctx: Context) -> None:
    mesh = ctx.mesh
    if mesh is None or not xm.resources:
        return
    problems: list[Problem] = []
    if mesh.names:
        problems += unknown_resources(xm.resources, {name: size or 0 for name, size in mesh.axes})
    problems += divisibility(sizes, xm.resources, mesh.shape)
    for problem in problems:
        name = str(problem.axes[0]) if problem.axes else ""
        interp.reporter.add(xm.resource_nodes.get(name, xm.node), problem.code, problem.message)


# ---------------------------------------------------------------- vmap / pmap


_VMAP_SIGNATURE = "fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None, sum_match=False"
_PMAP_SIGNATURE = ("fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(), devices=None, "
                   "backend=None, axis_size=None, donate_argnums=()")


@REGISTRY.handles(VMAP, signature=_VMAP_SIGNATURE, takes_functions=True)
def vmap(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _batch_map(interp, call, "vmap")


@REGISTRY.handles(PMAP, signature=_PMAP_SIGNATURE, takes_functions=True)
def pmap(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _batch_map(interp, call, "pmap")


def _batch_map(interp: Interpreter, call: CallArgs, kind: MapKind) -> Value:
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
        static = _argnums(call.arg("static_broadcasted_argnums"))
    return Vmap(call.arg("fun"), in_axes, out_axes, name, as_int(size), call.node, kind,
                name is None and given != Const(None), as_int(size) is None and size != Const(None), static)


def _argnums(value: Value) -> tuple[int, ...] | None:
    number = as_int(value)
    if number is not None:
        return (number,)
    if isinstance(value, Seq):
        numbers = [as_int(item) for item in value.items]
        return None if None in numbers else tuple(n for n in numbers if n is not None)
    return None


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


def _call_vmap(interp: Interpreter, vm: Vmap, call: CallArgs, ctx: Context, scope: Scope) -> Value:
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
        [_value_tree(call.args[i]) for i in dynamic], in_axes, axis, vm.axis_size,
        [label_of(arg_labels, i) for i in dynamic], kind, [_value_tree(call.kwargs[k]) for k in kw_names],
        [f"keyword argument `{k}`" for k in kw_names], sized=vm.axis_size_unread)
    operand_nodes = [call.node_of(i) for i in dynamic] + [call.kwarg_nodes.get(k, call.node) for k in kw_names]
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
            body_args[index] = _to_value(item)
    body_kwargs = {k: call.kwargs[k] if call.kwargs[k] == Const(None) else _to_value(item)
                   for k, item in zip(kw_names, mapped.kwargs, strict=True)}
    binds = f"binds {vm.axis_name!r}" if vm.axis_name else "binds no name (it has no axis_name)"
    inner = ctx.enter_map({axis: mapped.size}, hidden=frozenset({axis}), binder=(f"this {kind} {binds}", vm.node))
    if vm.name_unknown:
        inner = replace(inner, any_name=True)  # it binds a name the checker cannot read
    body_call = CallArgs(call.node, body_args, list(call.arg_nodes), body_kwargs, dict(call.kwarg_nodes))
    result = interp.call(vm.fun, body_call, inner, scope)
    placed, problems = place_out_axes(_value_tree(result), axis_spec(vm.out_axes, interp), axis, mapped.size, kind)
    for problem in problems:
        target = problem.origin if isinstance(problem.origin, ast.AST) else call.node
        interp.reporter.add(target, problem.code, problem.message)
    return _to_value(placed)
