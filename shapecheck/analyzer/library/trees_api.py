"""Pytrees: `jax.tree.map` member by member over several trees, `jax.tree.leaves` in JAX's
order, and `dataclasses.replace` (with `NamedTuple._replace` and flax's `.replace`).

A pytree here is what JAX flattens: tuples, lists, dicts, NamedTuples and the registered
dataclass-likes (flax.struct, chex, equinox modules); a plain `@dataclass` is one leaf to JAX.
Any part the checker does not know makes that part of the result unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.analyzer import objects
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import DATACLASSES_REPLACE, TREE_MAP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Dict, Instance, Seq, Value
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

    def leaf(leaves: list[Value]) -> Value:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        mapped = CallArgs(call.node, list(leaves), [call.node] * len(leaves))
        return interp.call(fun, mapped, ctx, scope)

    return _map(trees, leaf)


def _map(trees: list[Value], leaf: object) -> Value:
    first = trees[0]
    assert callable(leaf)
    if first is None or first == Const(None):
        return first  # unknown stays unknown; Python's None is an empty tree
    if _is_leaf(first):
        return leaf(trees)  # type: ignore[no-any-return]
    children = _children(first)
    if children is None:
        return None
    others = [_children(tree) for tree in trees[1:]]
    if any(other is None or [k for k, _ in other] != [k for k, _ in children] for other in others):
        return None  # another tree of another structure: JAX raises, nothing is built
    mapped = [_map([value, *(dict(other)[key] for other in others if other is not None)], leaf)
              for key, value in children]
    return _rebuild(first, [key for key, _ in children], mapped)


def _is_leaf(value: Value) -> bool:
    return isinstance(value, ArrayType) or (isinstance(value, Const) and value.value is not None)


def _children(value: Value) -> list[tuple[object, Value]] | None:
    """A node's children with their keys in JAX's flattening order; None where not a known node."""
    if isinstance(value, Seq):
        return list(enumerate(value.items))
    if isinstance(value, Dict):
        keyed = [(key.value, item) for key, item in value.items if isinstance(key, Const)]
        if len(keyed) != len(value.items):
            return None
        try:
            ordered = sorted(keyed, key=lambda pair: pair[0])  # type: ignore[arg-type,return-value]
        except TypeError:
            return None  # keys of mixed types: JAX's own sort fails too
        return [(Const(key), item) for key, item in ordered]
    if isinstance(value, Instance) and value.cls.record in ("namedtuple", "struct"):
        return [(name, value.get(name)) for name in value.cls.fields]
    return None


def _rebuild(node: Value, keys: list[object], values: list[Value]) -> Value:
    if isinstance(node, Seq):
        return Seq(tuple(values), node.is_list)
    if isinstance(node, Dict):
        by_key = dict(zip(keys, values, strict=True))
        return Dict(tuple((key, by_key[key]) for key, _ in node.items))
    assert isinstance(node, Instance)
    rebuilt = node
    for key, value in zip(keys, values, strict=True):
        assert isinstance(key, str)
        rebuilt = rebuilt.with_field(key, value)
    return rebuilt


@REGISTRY.handles("jax.tree.leaves", "jax.tree_util.tree_leaves", signature="tree, is_leaf=None")
def tree_leaves(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.given("is_leaf") and call.arg("is_leaf") != Const(None):
        return None
    leaves = _leaves(call.arg("tree"))
    return Seq(tuple(leaves), True) if leaves is not None and len(leaves) <= _MAX_LEAVES else None


def _leaves(tree: Value) -> list[Value] | None:
    if tree == Const(None):
        return []
    if _is_leaf(tree):
        return [tree]
    children = _children(tree)
    if children is None:
        return None
    found: list[Value] = []
    for _, child in children:
        inner = _leaves(child)
        if inner is None:
            return None
        found.extend(inner)
    return found


@REGISTRY.handles(DATACLASSES_REPLACE, signature="obj, /, **changes")
def replace(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    obj = call.arg("obj")
    if call.opaque or not isinstance(obj, Instance):
        return None
    return objects.replaced(obj, call.keywords())
