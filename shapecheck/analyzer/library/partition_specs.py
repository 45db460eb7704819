"""PartitionSpec values as the handlers of shardings and shard_map share them: `P(...)` read
into the algebra's spec, a Mesh value as the algebra's mesh, imported specs read, and where a
spec's own faults are reported."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Final

from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.partition_spec import SPEC_FAULTS, UNKNOWN_ENTRY, MeshAxes, SpecEntry
from shapecheck.algebra.partition_spec import PartitionSpec as Partition
from shapecheck.analyzer.values import Const, Dict, Mesh, Seq, Spec, Value, as_str

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

UNKNOWN_MESH: Final = MeshAxes((), names_known=False)


def read_spec(args: list[Value], node: ast.AST, module: str) -> Spec:
    """`P(*args)` written at `node` in `module`."""
    return Spec(Partition(tuple(_entry(arg) for arg in args), origin=node), module)


def _entry(value: Value) -> SpecEntry:
    """One `P(...)` argument: None (not split), a mesh axis, or a tuple of them; else unknown."""
    if value == Const(None):
        return ()
    name = as_str(value)
    if name is not None:
        return (name,)
    if isinstance(value, Seq):
        names = tuple(as_str(item) for item in value.items)
        if all(isinstance(item, str) for item in names):
            return tuple(item for item in names if item is not None)
    return UNKNOWN_ENTRY  # `P.UNCONSTRAINED`, a variable: never reported on


def resolved(interp: Interpreter, value: Value) -> Value:
    """`value` with the imported names in it read: specs and shardings are often module constants."""
    value = interp.imports.resolve(value)
    if isinstance(value, Seq):
        return Seq(tuple(resolved(interp, item) for item in value.items), value.is_list, value.node, value.lookup)
    if isinstance(value, Dict):
        return Dict(tuple((key, resolved(interp, item)) for key, item in value.items), value.node, value.lookup)
    return value


def mesh_axes(mesh: Mesh | None) -> MeshAxes:
    """A Mesh value as the algebra's mesh; a mesh the checker cannot read has unknown names."""
    return MeshAxes(mesh.axes) if mesh is not None else UNKNOWN_MESH


def spec_node(interp: Interpreter, spec: Spec) -> ast.AST | None:
    """The `P(...)` call where it is a place in the file being checked (not another module's)."""
    origin = spec.spec.origin
    return origin if spec.module == interp.module_name and isinstance(origin, ast.AST) else None


def report_spec_faults(interp: Interpreter, problems: list[Problem], spec: Spec, fallback: ast.AST) -> bool:
    """SC206 and SC201 at the `P(...)` that makes them (at `fallback` when another module wrote
    it: the problem's own origin may be a node of that module); True when there were any."""
    target = spec_node(interp, spec) or fallback
    faults = [problem for problem in problems if problem.code in SPEC_FAULTS]
    for problem in faults:
        interp.reporter.add(target, problem.code, problem.message)
    return bool(faults)
