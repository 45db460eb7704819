"""`jax.shard_map` (and `jax.experimental.shard_map.shard_map`): PartitionSpecs over a mesh.

DESIGN.md section 3a. The rules are the algebra's: `spec_trees` matches in_specs and
out_specs to the arguments and the body's result and splits and assembles them (with
`partition_spec` and `replication`). Here the arguments are bound, read into the algebra's
trees and back, and its problems reported where JAX raises them: SC206 and SC201 at the
`P(...)` (they hold whatever value it splits), SC106 and SC205 at the argument, SC002 at
in_specs/out_specs, SC207 at the out_spec. The body sees each argument's per-device block,
with the mesh axes it varies over as hidden named axes, and every manual mesh axis bound for
collectives.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from shapecheck.algebra.partition_spec import SPEC_FAULTS, PartitionSpec, spec_faults
from shapecheck.algebra.sharding_types import EXPLICIT, committed, from_spec, replicated, typeof
from shapecheck.algebra.spec_trees import (
    Blocks,
    Node,
    Site,
    Specs,
    Values,
    assemble_results,
    split_arguments,
)
from shapecheck.algebra.vmap_axes import UNREAD, Kept
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, flag, labels
from shapecheck.analyzer.library.partition_specs import (
    mesh_axes,
    report_spec_faults,
    resolved,
    spec_node,
)
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.library.typed_shardings import forget, spec_entries
from shapecheck.analyzer.qualnames import EXPERIMENTAL_SHARD_MAP, SHARD_MAP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    DefNode,
    Dict,
    Function,
    Mesh,
    Partial,
    Qual,
    Seq,
    ShardMap,
    Spec,
    Value,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

INFER: Final = "jax.sharding.Infer"


# ---------------------------------------------------------------- building


@REGISTRY.handles(SHARD_MAP, signature="f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(), "
                  "check_vma=True", takes_functions=True, binds_names=True)
def shard_map(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque:
        return None
    if not call.given("f"):
        # `@jax.shard_map(mesh=..., in_specs=..., out_specs=...)`: the decorator it returns.
        # A set of axis_names is read now, while its text is at hand (sets are not tracked).
        kwargs = dict(call.kwargs)
        names = _axis_names(call.arg("axis_names"), call.arg_expr("axis_names")) if call.given("axis_names") \
            else None
        if names is not None:
            kwargs["axis_names"] = Seq(tuple(Const(name) for name in sorted(names)))
        return Partial(Qual(SHARD_MAP), (), tuple(kwargs.items()))
    manual = _axis_names(call.arg("axis_names"), call.arg_expr("axis_names")) if call.given("axis_names") \
        else frozenset()
    return _build(interp, call, manual, flag(call.arg("check_vma"), True) if call.given("check_vma") else True)


# Deprecated since JAX 0.8, it takes its options by position too, and calls check_vma check_rep.
@REGISTRY.handles(EXPERIMENTAL_SHARD_MAP, signature="f, mesh, in_specs, out_specs, check_rep=True",
                  takes_functions=True, binds_names=True)
def experimental_shard_map(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque or not call.given("f"):
        return None
    return _build(interp, call, frozenset(), flag(call.arg("check_rep"), True) if call.given("check_rep") else True)


def _build(interp: Interpreter, call: CallArgs, manual: frozenset[str] | None, vma: bool | None) -> ShardMap:
    """The shard_mapped function; the faults of its specs on its mesh are reported here."""
    mesh = resolved(interp, call.arg("mesh"))
    # in_specs omitted are JAX's default, `jax.sharding.Infer`: read from the arguments' types.
    in_specs = resolved(interp, call.arg("in_specs")) if call.given("in_specs") else Qual(INFER)
    built = ShardMap(
        call.arg("f"), mesh if isinstance(mesh, Mesh) else None, call.given("mesh"),
        in_specs, resolved(interp, call.arg("out_specs")),
        manual, vma, call.node, call.arg_node("in_specs"), call.arg_node("out_specs"))
    if built.mesh_given:
        # The specs' own faults hold whatever is passed: reported once, at the spec, even
        # when the function is never called here.
        axes = mesh_axes(built.mesh)
        for spec in (*_specs(built.in_specs), *_specs(built.out_specs)):
            report_spec_faults(interp, spec_faults(spec.spec, axes, "shard_map"), spec, built.node)
    return built


def _axis_names(value: Value, written: ast.expr | None) -> frozenset[str] | None:
    """`axis_names={'x'}` (a set, tuple or list of names); None when it cannot be read."""
    if isinstance(value, Seq) and all(as_str(item) is not None for item in value.items):
        return frozenset(as_str(item) or "" for item in value.items)
    if isinstance(written, ast.Set):
        # The interpreter tracks no sets: a literal set of strings is read as written.
        names = [element.value for element in written.elts
                 if isinstance(element, ast.Constant) and isinstance(element.value, str)]
        if len(names) == len(written.elts):
            return frozenset(names)
    return None


def _specs(tree: Value) -> Iterator[Spec]:
    if isinstance(tree, Spec):
        yield tree
    elif isinstance(tree, Seq):
        for item in tree.items:
            yield from _specs(item)
    elif isinstance(tree, Dict):
        for _, item in tree.items:
            yield from _specs(item)


# ---------------------------------------------------------------- calling


@REGISTRY.calls(ShardMap)
def call_shard_map(interp: Interpreter, sm: ShardMap, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The global value the shard_mapped function returns for this call's arguments."""
    if call.opaque or call.kwargs:
        return None  # a shard_mapped function takes positional arguments only (JAX refuses others)
    mesh_value = sm.mesh if sm.mesh_given else ctx.mesh
    mesh = mesh_axes(mesh_value)
    if sm.manual is None:
        manual_names: tuple[str, ...] | None = None
    else:
        manual_names = tuple(n for n in mesh.names if not sm.manual or n in sm.manual)
    site = Site(mesh, {n: mesh.size(n) for n in manual_names or ()}, sm.manual or frozenset(),
                _function_name(sm.fun), sm.check_vma)
    explicit = _all_explicit(mesh_value, sm.manual)
    in_specs = _inferred(call.args) if sm.in_specs == Qual(INFER) and explicit else _spec_tree(interp, sm.in_specs)
    split = split_arguments([_tree(arg) for arg in call.args], in_specs, site, labels(call))
    for problem in split.problems:
        origin = problem.origin if isinstance(problem.origin, ast.AST) else None
        if problem.code == Code.INVALID_AXIS_SPEC:
            interp.reporter.add(sm.in_node, problem.code, problem.message)
        elif problem.code in SPEC_FAULTS:
            interp.reporter.add(origin or sm.node, problem.code, problem.message)
        else:  # a fault of the argument under its spec: at the argument
            notes = [("the PartitionSpec is written here", origin)] if origin is not None else []
            interp.reporter.add(call.arg_nodes[problem.operands[0]], problem.code, problem.message, notes)
    if split.args is None:
        return None  # JAX refuses the arguments before it traces the body
    # Under Explicit axes JAX then compares each argument's sharding with its spec (after the
    # sizes: an indivisible argument is refused as such, whatever its sharding).
    if explicit and _check_explicit_inputs(interp, sm, call, mesh_value):
        return None
    # Inside, every mesh axis is manual: no dim of a block is split in its type.
    body_args = [_body_typed(_value(part, arg), explicit) for part, arg in zip(split.args, call.args, strict=True)]
    bound = ", ".join(repr(n) for n in site.manual) or "no axis"
    inner = ctx.enter_map(dict(site.manual), hidden=frozenset(site.manual),
                          binder=(f"this shard_map binds its mesh's axes {bound}", sm.node),
                          manual=frozenset(site.manual))
    if sm.check_vma is True:  # JAX checks what each value varies over (SC210): in the mesh's order
        inner = replace(inner, checked=inner.checked + tuple(site.manual))
    if mesh_value is None or manual_names is None:
        inner = replace(inner, any_name=True)  # the mesh's axes are not known: it may bind any name
    before = len(interp.reporter.findings)
    result = interp.call(sm.fun, CallArgs(call.node, body_args, list(call.arg_nodes)), inner, scope)
    if len(interp.reporter.findings) > before:
        # JAX stops in the body, before out_specs: what they would say of a result built past
        # an error (a psum over a mistyped name leaves its axis varying) only echoes it.
        return None
    assembled, problems = assemble_results(_tree(result), _spec_tree(interp, sm.out_specs), site)
    for problem in problems:
        origin = problem.origin if isinstance(problem.origin, ast.AST) else None
        if problem.code in SPEC_FAULTS:
            interp.reporter.add(origin or sm.node, problem.code, problem.message)
        else:
            interp.reporter.add(origin or sm.out_node, problem.code, problem.message)
    return _result_typed(interp, _value(assembled, result), sm, mesh_value)


def _all_explicit(mesh: Mesh | None, manual: frozenset[str] | None) -> bool:
    """A known mesh of Explicit axes only, all of them manual in the body."""
    if mesh is None or manual is None or (manual and set(manual) != set(mesh.names)):
        return False
    types = mesh.axis_types
    return bool(types) and all(kind == EXPLICIT for kind in types.values())


def _check_explicit_inputs(interp: Interpreter, sm: ShardMap, call: CallArgs, mesh: Mesh | None) -> bool:
    """SC208: under Explicit axes shard_map takes each argument split exactly as its in_spec
    says (JAX's ValueError: in_specs ... does not match the specs of the input); True when so."""
    assert mesh is not None
    specs = sm.in_specs
    pairs: list[tuple[Value, int]]
    if isinstance(specs, Spec):
        pairs = [(specs, index) for index in range(len(call.args))]
    elif isinstance(specs, Seq) and len(specs.items) == len(call.args):
        pairs = [(item, index) for index, item in enumerate(specs.items)]
    else:
        return False
    refused = False
    for spec, index in pairs:
        arg = call.args[index]
        # A value on no mesh (made outside any `jax.set_mesh`, a numpy array) is not placed
        # by shard_map either: JAX compares its unsplit type, P(None, ...), like any other.
        if not isinstance(spec, Spec) or not isinstance(arg, ArrayType) or arg.rank is None or arg.sharding is None:
            continue
        wanted = from_spec(spec_entries(spec), arg.rank, mesh.axis_types, mesh.axes)
        if wanted is None or not wanted.known or not arg.sharding.known or wanted.dims == arg.sharding.dims:
            continue
        label = labels(call)[index]
        name = label.strip('`')
        # `reshard` moves a value between placements on a mesh; one on no mesh is placed with
        # a NamedSharding (reshard refuses a bare PartitionSpec outside `jax.set_mesh`).
        move = (f"reshard it first: jax.sharding.reshard({name}, {wanted.spec_text()})"
                if arg.sharding.mesh is not None or arg.sharding.split else
                f"place it first: jax.device_put({name}, jax.NamedSharding({_mesh_text(sm)}, {wanted.spec_text()}))")
        interp.reporter.add(call.arg_nodes[index], Code.SHARDING_TYPE_MISMATCH, (
            f"shard_map's in_specs {spec.spec.shown} for {label} do not match its sharding "
            f"{arg.sharding.spec_text()} ({typeof(arg)}): under Explicit axes shard_map does not reshard; "
            f"pass in_specs={arg.sharding.spec_text()}, or {move}"))
        refused = True
    return refused


def _mesh_text(sm: ShardMap) -> str:
    """How the program names shard_map's mesh (`mesh=` as written, when a name), else `mesh`."""
    call = sm.node
    if isinstance(call, ast.Call):
        for keyword in call.keywords:
            if keyword.arg == "mesh" and isinstance(keyword.value, ast.Name | ast.Attribute):
                return ast.unparse(keyword.value)
    return "mesh"


def _inferred(args: list[Value]) -> Specs:
    """in_specs omitted under Explicit axes: each argument's spec is its type's split (a value
    on no mesh, a Python number: P()); unknown where its split is."""
    specs: list[Specs] = []
    for arg in args:
        value = array(arg)
        if value is None or value.sharding is None or not value.sharding.known:
            specs.append(UNREAD)
        else:
            specs.append(PartitionSpec(tuple(entry or () for entry in value.sharding.dims)))
    return Node("tuple", tuple(specs))


def _body_typed(value: Value, explicit: bool) -> Value:
    if isinstance(value, ArrayType) and value.rank is not None and explicit:
        return value.with_sharding(replicated(value.rank))
    return forget(value)


def _result_typed(interp: Interpreter, value: Value, sm: ShardMap, mesh: Mesh | None) -> Value:
    """The assembled result typed with its out_spec's Explicit axes (None axes: unknown)."""
    if isinstance(value, ArrayType) and isinstance(sm.out_specs, Spec) and mesh is not None and value.rank is not None \
            and all(kind is not None for kind in mesh.axis_types.values()):
        # Committed as out_specs say, over Auto axes too (JAX 0.10.2).
        return value.with_sharding(committed(spec_entries(sm.out_specs), value.rank, mesh.axis_types, mesh.axes))
    return forget(value)


def _function_name(fun: Value) -> str:
    if isinstance(fun, Function) and isinstance(fun.node, DefNode):
        return f"`{fun.name}`"
    if isinstance(fun, Qual):
        return f"`{fun.name}`"
    return "the shard_mapped function"


def _tree(value: Value) -> Values:
    """An argument or a result as the algebra's tree: arrays (Python numbers among them) in
    tuples, lists and dicts."""
    leaf = array(value)
    if leaf is not None:
        return leaf
    if isinstance(value, Seq):
        return Node("list" if value.is_list else "tuple", tuple(_tree(item) for item in value.items))
    if isinstance(value, Dict):
        return Node("dict", tuple(_tree(item) for _, item in value.items), tuple(as_str(key) for key, _ in value.items))
    return None


def _spec_tree(interp: Interpreter, value: Value) -> Specs:
    """in_specs or out_specs as the algebra's tree. A spec another module wrote has no origin
    here: its problems are reported at this file's shard_map."""
    if value == Const(None):
        return None
    if isinstance(value, Spec):
        return value.spec if spec_node(interp, value) is not None else replace(value.spec, origin=None)
    if isinstance(value, Seq):
        return Node("list" if value.is_list else "tuple", tuple(_spec_tree(interp, item) for item in value.items))
    if isinstance(value, Dict):
        return Node("dict", tuple(_spec_tree(interp, item) for _, item in value.items),
                    tuple(as_str(key) for key, _ in value.items))
    return UNREAD


def _value(tree: Blocks | Values, original: Value) -> Value:
    """The algebra's tree back as a value, with `original`'s containers and what it kept."""
    if isinstance(tree, Kept):
        return original
    if isinstance(tree, Node):
        if isinstance(original, Seq):
            return Seq(tuple(_value(part, item) for part, item in zip(tree.items, original.items, strict=True)),
                       original.is_list)
        if isinstance(original, Dict):
            return Dict(tuple((key, _value(part, item))
                              for part, (key, item) in zip(tree.items, original.items, strict=True)))
        return None
    return tree
