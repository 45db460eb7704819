"""Pytrees: `jax.tree.map` member by member over several trees, `jax.tree.leaves` in JAX's
order, and `dataclasses.replace` (with `NamedTuple._replace` and flax's `.replace`).

A pytree is what JAX flattens (`pytrees.node`): tuples, lists, dicts, NamedTuples and the
registered dataclass-likes (flax.struct, chex, equinox modules); a plain `@dataclass` is one leaf
to JAX. Any part the checker does not know makes that part of the result unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from shapecheck.analyzer import objects
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import pytrees
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import DATACLASSES_REPLACE, TREE_MAP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Instance, Seq, Value
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_MAX_LEAVES = 256  # larger trees are not mapped leaf by leaf: each leaf costs a call's analysis


@REGISTRY.handles(TREE_MAP, "jax.tree_util.tree_map", takes_functions=True,
                  signature="f, tree, *rest, is_leaf=None")
def tree_map(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque or (call.given("is_leaf") and call.arg("is_leaf") != Const(None)):
        return None
    fun, trees = call.arg("f"), [call.arg("tree"), *call.rest()]
    budget = [_MAX_LEAVES]

    def leaf(leaves: list[Value]) -> Value:  # f on one leaf of each tree
        budget[0] -= 1
        if budget[0] < 0:
            return None
        mapped = CallArgs(call.node, list(leaves), [call.node] * len(leaves))
        return interp.call(fun, mapped, ctx, scope)

    return _map(trees, leaf)


def _map(trees: list[Value], leaf: Callable[[list[Value]], Value]) -> Value:
    first = trees[0]
    if first is None or first == Const(None):
        return first  # unknown stays unknown; Python's None is an empty tree
    found = pytrees.node(first)
    if found is None:
        return leaf(trees) if _is_leaf(first) else None
    shape, members = found
    others = [pytrees.node(tree) for tree in trees[1:]]
    if any(other is None or (other[0].kind, other[0].keys) != (shape.kind, shape.keys) for other in others):
        return None  # another tree of another structure: JAX raises, nothing is built
    columns = [[member, *(other[1][index] for other in others if other is not None)]
               for index, member in enumerate(members)]
    return pytrees.rebuilt(first, [_map(column, leaf) for column in columns])


def _is_leaf(value: Value) -> bool:
    return isinstance(value, ArrayType) or (isinstance(value, Const) and value.value is not None)


@REGISTRY.handles("jax.tree.leaves", "jax.tree_util.tree_leaves", signature="tree, is_leaf=None")
def tree_leaves(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.given("is_leaf") and call.arg("is_leaf") != Const(None):
        return None
    leaves = _leaves(call.arg("tree"))
    return Seq(tuple(leaves), True) if leaves is not None and len(leaves) <= _MAX_LEAVES else None


def _leaves(tree: Value) -> list[Value] | None:
    found = pytrees.node(tree)
    if found is None:
        return [tree] if _is_leaf(tree) else None
    leaves: list[Value] = []
    for member in found[1]:
        inner = _leaves(member)
        if inner is None:
            return None
        leaves.extend(inner)
    return leaves


@REGISTRY.handles(DATACLASSES_REPLACE, signature="obj, /, **changes")
def replace(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    obj = call.arg("obj")
    if call.opaque or not isinstance(obj, Instance):
        return None
    return objects.replaced(obj, call.keywords())
