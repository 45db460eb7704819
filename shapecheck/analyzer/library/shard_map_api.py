"""`jax.shard_map` (and `jax.experimental.shard_map.shard_map`): PartitionSpecs over a mesh.

DESIGN.md section 3a. The rules are the algebra's (`partition_spec`, `replication`); here the
arguments are bound, in_specs and out_specs matched to the call's arguments and the body's
results as pytree prefixes, and the problems reported where JAX raises them: SC206 and SC201
at the `P(...)` (they hold whatever value it splits), SC106 and SC205 at the argument, SC002
at in_specs/out_specs, SC207 at the out_spec. The body sees each argument's per-device block,
with the mesh axes it varies over as hidden named axes (`replication`), and every manual mesh
axis bound for collectives.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

from shapecheck.algebra.outcome import Problem, label
from shapecheck.algebra.partition_spec import (
    MeshAxes,
    assemble,
    block,
    out_spec_problems,
    spec_faults,
    spec_problems,
    unmanaged_problems,
)
from shapecheck.algebra.replication import settle, unreplicated, vary
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

_VALUE_CODES: Final = frozenset({Code.AXIS_OUT_OF_RANGE, Code.MESH_INDIVISIBLE})  # faults of a value under it


# ---------------------------------------------------------------- building


@REGISTRY.handles(SHARD_MAP, signature="f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(), "
                  "check_vma=True", takes_functions=True, binds_names=True)
def shard_map(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque:
        return None
    if not call.given("f"):
        # `@jax.shard_map(mesh=..., in_specs=..., out_specs=...)`: the decorator it returns.
        return Partial(Qual(SHARD_MAP), (), tuple(call.kwargs.items()))
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
    built = ShardMap(
        call.arg("f"), mesh if isinstance(mesh, Mesh) else None, call.given("mesh"),
        resolved(interp, call.arg("in_specs")), resolved(interp, call.arg("out_specs")),
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


@dataclass(frozen=True, slots=True)
class _Site:
    """What one call of a shard_map checks against: its mesh, manual axes and names for messages."""

    sm: ShardMap
    mesh: MeshAxes
    manual: dict[str, int | None]  # the manual mesh axes and their sizes: the body's bound names
    name: str  # the mapped function, for messages


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
    site = _Site(sm, mesh, {n: mesh.size(n) for n in manual_names or ()}, _function_name(sm.fun))
    body_args = _split_arguments(interp, site, call)
    if body_args is None:
        return None  # JAX refuses the arguments before it traces the body
    bound = ", ".join(repr(n) for n in site.manual) or "no axis"
    inner = ctx.enter_map(dict(site.manual), hidden=frozenset(site.manual),
                          binder=(f"this shard_map binds its mesh's axes {bound}", sm.node),
                          manual=frozenset(site.manual))
    if mesh_value is None or manual_names is None:
        inner = replace(inner, any_name=True)  # the mesh's axes are not known: it may bind any name
    before = len(interp.reporter.findings)
    result = interp.call(sm.fun, CallArgs(call.node, body_args, list(call.arg_nodes)), inner, scope)
    if len(interp.reporter.findings) > before:
        # JAX stops in the body, before out_specs: what they would say of a result built past
        # an error (a psum over a mistyped name leaves its axis varying) only echoes it.
        return None
    return _assemble(interp, site, sm.out_specs, result, "", top=True)


def _function_name(fun: Value) -> str:
    if isinstance(fun, Function) and isinstance(fun.node, DefNode):
        return f"`{fun.name}`"
    if isinstance(fun, Qual):
        return f"`{fun.name}`"
    return "the shard_mapped function"


def _split_arguments(interp: Interpreter, site: _Site, call: CallArgs) -> list[Value] | None:
    """Each argument's per-device value; None when JAX refuses the arguments (reported)."""
    specs = site.sm.in_specs
    count = len(call.args)
    entries: list[Value]
    if isinstance(specs, Seq):
        if specs.is_list or len(specs.items) != count:
            interp.reporter.add(site.sm.in_node, Code.INVALID_AXIS_SPEC, _arity_message(specs, count, site.name))
            return None
        entries = list(specs.items)
    else:
        entries = [specs] * count  # one spec (or an unknown one) for every argument
    arg_labels = labels(call)
    refused = False
    body_args: list[Value] = []
    for index, (entry, arg) in enumerate(zip(entries, call.args, strict=True)):
        argument = label(arg_labels, index)  # a call built by a transform may lack some nodes
        what = f"argument {argument} of {site.name} (in_specs[{index}])" if isinstance(specs, Seq) \
            else f"argument {argument} of {site.name}"
        split, faulty = _split(interp, site, entry, arg, what, call.arg_nodes[index])
        refused |= faulty
        body_args.append(split)
    return None if refused else body_args


def _arity_message(specs: Seq, count: int, name: str) -> str:
    if specs.is_list:
        return (f"in_specs is a list, but shard_map matches it against the tuple of arguments {name} is "
                f"called with: write a tuple, one entry per argument")
    entries = len(specs.items)
    return (f"in_specs has {entries} entr{'y' if entries == 1 else 'ies'} but {name} is called with {count} "
            f"argument{'' if count == 1 else 's'}: in_specs needs one entry per argument")


def _split(interp: Interpreter, site: _Site, entry: Value, arg: Value, what: str,
           node: ast.AST) -> tuple[Value, bool]:
    """`arg` as the body sees it under `entry` (a pytree prefix of it), and whether JAX refuses it."""
    if entry == Const(None):
        return arg, False  # None in in_specs: not split, the same on every device
    if isinstance(entry, Spec):
        leaf = array(arg)
        if leaf is not None:
            return _split_leaf(interp, site, entry, leaf, what, node)
        if isinstance(arg, Seq):
            parts = [_split(interp, site, entry, item, f"{what}[{i}]", node) for i, item in enumerate(arg.items)]
            return Seq(tuple(p for p, _ in parts), arg.is_list), any(f for _, f in parts)
        if isinstance(arg, Dict):
            keyed = [(key, _split(interp, site, entry, item, f"{what}[{as_str(key)!r}]", node))
                     for key, item in arg.items]
            return Dict(tuple((key, part) for key, (part, _) in keyed)), any(f for _, (_, f) in keyed)
        return None, False
    if isinstance(entry, Seq) and isinstance(arg, Seq) and len(entry.items) == len(arg.items) \
            and entry.is_list == arg.is_list:
        parts = [_split(interp, site, sub, item, f"{what}[{i}]", node)
                 for i, (sub, item) in enumerate(zip(entry.items, arg.items, strict=True))]
        return Seq(tuple(p for p, _ in parts), arg.is_list), any(f for _, f in parts)
    if isinstance(entry, Dict) and isinstance(arg, Dict) and _same_keys(entry, arg):
        subs = dict(zip(_keys(entry) or (), (sub for _, sub in entry.items), strict=True))
        keyed = [(key, _split(interp, site, subs[as_str(key) or ""], item, f"{what}[{as_str(key)!r}]", node))
                 for key, item in arg.items]
        return Dict(tuple((key, part) for key, (part, _) in keyed)), any(f for _, (_, f) in keyed)
    return _unknown_split(arg), False


def _keys(tree: Dict) -> tuple[str, ...] | None:
    """A dict's string keys in order; None when one cannot be read."""
    keys = tuple(as_str(key) for key, _ in tree.items)
    return None if any(key is None for key in keys) else tuple(key or "" for key in keys)


def _same_keys(a: Dict, b: Dict) -> bool:
    """Two dicts JAX matches as one pytree node: the same keys, in any order."""
    left, right = _keys(a), _keys(b)
    return left is not None and right is not None and sorted(left) == sorted(right)


def _split_leaf(interp: Interpreter, site: _Site, spec: Spec, value: ArrayType, what: str,
                node: ast.AST) -> tuple[Value, bool]:
    problems = spec_problems(spec.spec, value, site.mesh, what) + _unmanaged(site, spec, what)
    faulty = report_spec_faults(interp, problems, spec, site.sm.node)
    written = spec_node(interp, spec)
    notes = [("the PartitionSpec is written here", written)] if written is not None else []
    for problem in problems:
        if problem.code in _VALUE_CODES:
            interp.reporter.add(node, problem.code, problem.message, notes)
            faulty = True
    if faulty:
        return None, True
    return vary(block(spec.spec, value, site.mesh), spec.spec, site.manual), False


def _unmanaged(site: _Site, spec: Spec, what: str) -> list[Problem]:
    # Only where axis_names is given and read; an empty set there means every mesh axis.
    if not site.sm.manual:
        return []
    return unmanaged_problems(spec.spec, site.sm.manual, site.mesh, what)


def _unknown_split(arg: Value) -> Value:
    """An argument under a spec the checker cannot read: its rank and dtype, nothing else."""
    if isinstance(arg, ArrayType):
        return arg.with_dims((None,) * len(arg.dims), arg.ellipsis)
    if isinstance(arg, Seq):
        return Seq(tuple(_unknown_split(item) for item in arg.items), arg.is_list)
    return None


def _assemble(interp: Interpreter, site: _Site, specs: Value, result: Value, path: str, *, top: bool) -> Value:
    """The global value out_specs (a pytree prefix of the result) assemble from the body's result."""
    if isinstance(specs, Spec):
        leaf = array(result)
        if leaf is not None:
            return _assemble_leaf(interp, site, specs, leaf, path)
        if isinstance(result, Seq):
            return Seq(tuple(_assemble(interp, site, specs, item, f"{path}[{i}]", top=False)
                             for i, item in enumerate(result.items)), result.is_list)
        if isinstance(result, Dict):
            return Dict(tuple((key, _assemble(interp, site, specs, item, f"{path}[{as_str(key)!r}]", top=False))
                              for key, item in result.items))
        return None
    if isinstance(specs, Dict) and isinstance(result, Dict) and _same_keys(specs, result):
        subs = dict(zip(_keys(specs) or (), (sub for _, sub in specs.items), strict=True))
        return Dict(tuple((key, _assemble(interp, site, subs[as_str(key) or ""], item,
                                          f"{path}[{as_str(key)!r}]", top=False))
                          for key, item in result.items))
    if isinstance(specs, Seq) and isinstance(result, Seq):
        if len(specs.items) != len(result.items) or specs.is_list != result.is_list:
            if top:
                interp.reporter.add(site.sm.out_node, Code.INVALID_AXIS_SPEC, _out_structure_message(specs, result, site.name))
            return None
        return Seq(tuple(_assemble(interp, site, sub, item, f"{path}[{i}]", top=False)
                         for i, (sub, item) in enumerate(zip(specs.items, result.items, strict=True))),
                   result.is_list)
    return None


def _out_structure_message(specs: Seq, result: Seq, name: str) -> str:
    def shown(seq: Seq) -> str:
        return f"a {'list' if seq.is_list else 'tuple'} of {len(seq.items)}"

    return (f"out_specs is {shown(specs)} but {name} returns {shown(result)}: out_specs needs one entry per "
            f"result")


def _assemble_leaf(interp: Interpreter, site: _Site, spec: Spec, value: ArrayType, path: str) -> Value:
    local, varying = settle(value, site.manual)
    what = f"the result{path} of {site.name}"
    problems = out_spec_problems(spec.spec, local, site.mesh, what) + _unmanaged(site, spec, what)
    faulty = report_spec_faults(interp, problems, spec, site.sm.node)
    target = spec_node(interp, spec) or site.sm.out_node
    for problem in problems:
        if problem.code == Code.AXIS_OUT_OF_RANGE:
            interp.reporter.add(target, problem.code, problem.message)
            faulty = True
    if faulty:
        return None
    if site.sm.check_vma:
        for problem in unreplicated(spec.spec, varying, what):
            interp.reporter.add(target, problem.code, problem.message)
    return assemble(spec.spec, local, site.mesh)
