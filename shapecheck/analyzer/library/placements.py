"""Where a sharding meets a value: the checks JAX makes of a spec against the arrays it places
(`device_put`, `reshard`, jit's in/out shardings, constructors' `out_sharding=`), each tree
leaf under its sharding. Below both `sharding_api` and `typed_shardings`, which apply them."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from shapecheck.algebra.partition_spec import PartitionSpec, spec_problems
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array
from shapecheck.analyzer.library.partition_specs import mesh_axes, report_spec_faults, spec_node
from shapecheck.analyzer.values import Dict, Seq, Sharding, Spec, Value, as_str
from shapecheck.codes import Code
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter


@dataclass(frozen=True, slots=True)
class Rules:
    """Which of a spec's rules JAX applies where a value meets it."""

    rank: bool | Literal["named"] = True  # SC106: a spec longer than the value's rank ("named": by a mesh axis)
    divisible: bool = True  # SC205: a dim its mesh axes cannot split evenly

def place(interp: Interpreter, shardings: Value, tree: Value, what: str, node: ast.AST, ctx: Context,
           rules: Rules) -> bool:
    """Check each array leaf of `tree` against its sharding in `shardings` (a pytree prefix);
    True when something was reported."""
    found = False
    for sharding, leaf, path in pairs(shardings, tree, ""):
        found |= _check(interp, sharding, leaf, f"{what}{path}", node, ctx, rules)
    return found


def pairs(shardings: Value, tree: Value, path: str) -> Iterator[tuple[Spec | Sharding, ArrayType, str]]:
    """(sharding, array, path) for each array leaf of `tree` a sharding of `shardings` covers.

    A sharding covers the whole subtree it stands for; None covers nothing; a structure that
    does not match (JAX refuses it, with its own message) or is unknown covers nothing here.
    """
    if isinstance(shardings, Spec | Sharding):
        yield from ((shardings, leaf, path + sub) for leaf, sub in _leaves(tree, ""))
    elif isinstance(shardings, Seq) and isinstance(tree, Seq) and len(shardings.items) == len(tree.items):
        for index, (sub, item) in enumerate(zip(shardings.items, tree.items, strict=True)):
            yield from pairs(sub, item, f"{path}[{index}]")
    elif isinstance(shardings, Dict) and isinstance(tree, Dict):
        items = _keyed(tree)
        for key, sub in _keyed(shardings).items():
            if key in items:
                yield from pairs(sub, items[key], f"{path}[{key!r}]")


def _leaves(tree: Value, path: str) -> Iterator[tuple[ArrayType, str]]:
    if isinstance(tree, Seq):
        for index, item in enumerate(tree.items):
            yield from _leaves(item, f"{path}[{index}]")
    elif isinstance(tree, Dict):
        for key, item in _keyed(tree).items():
            yield from _leaves(item, f"{path}[{key!r}]")
    else:
        leaf = array(tree)
        if leaf is not None:
            yield leaf, path


def _keyed(tree: Dict) -> dict[str, Value]:
    return {key: item for key, item in ((as_str(k), v) for k, v in tree.items) if key is not None}


def _check(interp: Interpreter, sharding: Spec | Sharding, value: ArrayType, what: str, node: ast.AST,
           ctx: Context, rules: Rules) -> bool:
    if isinstance(sharding, Sharding):
        spec, mesh = sharding.spec, mesh_axes(sharding.mesh)
    else:
        # A bare spec is read against the mesh JAX has in context where the value meets it.
        spec, mesh = sharding, mesh_axes(ctx.mesh)
    problems = spec_problems(spec.spec, value, mesh, what)
    # A NamedSharding's own faults were reported where it was built; a bare spec's show here.
    faults = report_spec_faults(interp, problems, spec, node) if isinstance(sharding, Spec) else False
    written = spec_node(interp, spec)
    notes = [("the PartitionSpec is written here", written)] if written is not None and written is not node else []
    placed = [p for p in problems if p.code == Code.AXIS_OUT_OF_RANGE
              and (rules.rank is True or (rules.rank == "named" and _named_beyond(spec.spec, value)))]
    if not placed and rules.divisible:
        # A spec longer than the value was written for another value: JAX stops at its length.
        placed = [p for p in problems if p.code == Code.MESH_INDIVISIBLE]
    for problem in placed:
        interp.reporter.add(node, problem.code, problem.message, notes)
    return faults or bool(placed)

def reshard_checks(interp: Interpreter, shardings: Value, tree: Value, what: str, node: ast.AST,
                   ctx: Context) -> bool:
    """The checks `reshard` makes of its specs against the values it places (also auto_axes'
    out_sharding and explicit_axes' in_sharding, which JAX passes to it): SC205 for a dim its
    mesh axes cannot split evenly, SC106 for a spec longer than the value by a mesh axis (JAX
    ignores trailing Nones, and raises an AssertionError otherwise). True when reported."""
    return place(interp, shardings, tree, what, node, ctx, Rules(rank="named"))

def _named_beyond(spec: PartitionSpec, value: ArrayType) -> bool:
    """Whether an entry of `spec` past `value`'s rank names a mesh axis."""
    rank = value.rank
    return rank is not None and any(isinstance(entry, tuple) and entry for entry in spec.dims[rank:])


def no_mesh_set(interp: Interpreter, ctx: Context) -> bool:
    """Whether certainly no mesh is set where `ctx` holds: none set by the code followed
    (`Context.meshless`), and no call in the module that may set one the checker cannot see."""
    return ctx.meshless and not interp.sets_mesh_unseen()


def spec_without_mesh(interp: Interpreter, shardings: Value, ctx: Context, node: ast.AST, what: str) -> bool:
    """SC206 where a bare PartitionSpec (in `shardings`, a pytree of them) meets code that no
    mesh is set for (`ctx.meshless`, and no call in the module that may set one unseen): JAX
    reads a bare spec against the mesh of `jax.set_mesh` and refuses it without one, whatever
    axes it names (`P()` too). True when reported."""
    spec = _first_spec(shardings) if ctx.meshless else None
    if spec is None or not no_mesh_set(interp, ctx):
        return False
    shown = spec.spec.shown
    interp.reporter.add(node, Code.UNKNOWN_RESOURCE, (
        f"{what} is given the bare PartitionSpec {shown}, but no mesh is set here: JAX reads a PartitionSpec "
        f"against the mesh of `jax.set_mesh` and refuses it without one; run this under "
        f"`with jax.set_mesh(mesh):`, or give jax.NamedSharding(mesh, {shown})"))
    return True


def _first_spec(shardings: Value) -> Spec | None:
    if isinstance(shardings, Spec):
        return shardings
    items = shardings.items if isinstance(shardings, Seq) else \
        tuple(item for _, item in shardings.items) if isinstance(shardings, Dict) else ()
    for item in items:
        found = _first_spec(item)
        if found is not None:
            return found
    return None
