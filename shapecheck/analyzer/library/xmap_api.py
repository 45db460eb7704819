"""`xmap(fun, in_axes, out_axes, *, axis_sizes, axis_resources)`, the removed JAX map (DESIGN.md
section 3): its options and axis mappings read into the algebra (`axis_mapping`,
`xmap_options`, `resources`), its body analysed with the named axes its arguments carry, and
its results placed by out_axes."""

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
from shapecheck.algebra.xmap_options import read_axis_resources, read_axis_sizes, undefined_axes
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.library.trees import to_value, value_tree
from shapecheck.analyzer.literals import to_lit
from shapecheck.analyzer.qualnames import XMAP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Dict, Function, Jitted, Seq, Value, Xmap, as_int
from shapecheck.codes import Code
from shapecheck.dims import Conflict, Dim
from shapecheck.literal import Kind, Lit, from_value
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


@REGISTRY.handles(XMAP, signature="fun, in_axes, out_axes, *, axis_sizes=None, axis_resources=None, "
                  "donate_argnums=(), backend=None", takes_functions=True, binds_names=True)
def xmap(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque:
        return None
    fun = call.arg("fun")
    in_lit = _lit(interp, call.arg("in_axes"), call.arg_expr("in_axes"))
    out_lit = _lit(interp, call.arg("out_axes"), call.arg_expr("out_axes"))
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
    if not call.given(keyword):
        return None
    value = call.arg(keyword)
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


@REGISTRY.calls(Xmap)
def call_xmap(interp: Interpreter, xm: Xmap, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque:
        return None
    in_tree, out_tree = xm.in_tree, xm.out_tree
    if in_tree is None:
        return None
    args = [value_tree(arg) for arg in call.args]
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
    body_call = CallArgs(call.node, [to_value(v, arg) for v, arg in zip(named_args, call.args, strict=False)],
                         list(call.arg_nodes))
    result = interp.call(xm.fun, body_call, inner, scope)
    body = xm.fun
    while isinstance(body, Jitted):  # jit changes how the body runs, not what it computes
        body = body.fun
    if not isinstance(body, Function):
        # A library function as the body (`xmap(jnp.vdot, ...)`): its result is built by this call.
        interp.check_cooccurrence(result, body_call.args, call.node, inner)
    if out_tree is None:
        return None
    # The body's declared return may name a size for a conflicting axis: it stays unknown.
    conflicts: dict[str, Dim] = {n: s for n, s in axis_sizes.items() if isinstance(s, Conflict)}
    result_tree = _with_sizes(value_tree(result), conflicts)
    if result_tree is None and result is not None:
        return None
    placed, problems = apply_out_axes(out_tree, result_tree, axis_sizes)
    fallback = xm.out_axes.origin if xm.out_axes is not None and isinstance(xm.out_axes.origin, ast.AST) \
        else xm.node
    interp.reporter.problems(problems, fallback)
    return to_value(placed, result)


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
