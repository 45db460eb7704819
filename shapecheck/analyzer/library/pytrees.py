"""Values as JAX pytrees (`control_flow.Tree`), and back: what a loop carries, what a scan
slices and stacks, what the branches of a conditional return.

A kind of value that JAX flattens (a container, a registered class) says here how it is a node:
`node` gives its node and members, `rebuilt` makes the value again from new members. Every
other value is a leaf: arrays, and Python numbers as JAX traces them (weakly typed scalars).
"""

from __future__ import annotations

from collections.abc import Callable

from shapecheck.algebra.control_flow import NONE, Node, Tree
from shapecheck.analyzer.library.common import array
from shapecheck.analyzer.values import (
    AxisSize,
    Const,
    Dict,
    Instance,
    Seq,
    SymSize,
    Value,
    Variables,
    as_int,
    as_str,
)
from shapecheck.types import ArrayType, scalar


def tree(value: Value) -> Tree:
    """`value` as a pytree of array types; None where it is not known (or not a JAX type)."""
    found = node(value)
    if found is not None:
        top, members = found
        return Node(top.kind, top.keys, tuple(tree(member) for member in members), top.fields)
    return leaf(value)


def leaf(value: Value) -> ArrayType | None:
    """A leaf as JAX traces it: an array, or a Python number (a weak scalar; a bool a strong one)."""
    if isinstance(value, SymSize | AxisSize):
        return scalar("i64")  # an int of unknown value
    return array(value)


def flattened(value: Value) -> list[Value] | None:
    """The leaves of `value` in JAX's flattening order (`jax.tree.leaves`), as they are; None
    where any member is unknown, or a model's parameters (which may hold more than the checker
    knows of)."""
    found = node(value)
    if found is None:
        return None if value is None or isinstance(value, Variables) else [value]
    leaves: list[Value] = []
    for member in found[1]:
        inner = flattened(member)
        if inner is None:
            return None
        leaves.extend(inner)
    return leaves


def map_leaves(value: Value, fn: Callable[[ArrayType], Value]) -> Value:
    """`value` with `fn` applied to each leaf; an unknown leaf stays unknown."""
    found = node(value)
    if found is not None:
        return rebuilt(value, [map_leaves(member, fn) for member in found[1]])
    known = leaf(value)
    return fn(known) if known is not None else None


def rebuild(value: Value, shape: Tree) -> Value:
    """`value`'s structure with the leaves of `shape` (a tree of the same structure, as
    `settled` makes); where `value` does not have that structure, `shape` as plain containers."""
    found = node(value)
    if found is not None and isinstance(shape, Node):
        top, members = found
        if top.kind == shape.kind and top.keys == shape.keys:
            return rebuilt(value, [rebuild(m, item) for m, item in zip(members, shape.items, strict=True)])
    if isinstance(shape, ArrayType):
        return shape
    if isinstance(shape, Node):
        return _plain(shape)
    return None


def node(value: Value) -> tuple[Node, list[Value]] | None:
    """The node a container is (its items unset) and its members, in JAX's flattening order (a
    dict's keys sorted); None for a leaf, and for a node the checker cannot read."""
    if isinstance(value, Const) and value.value is None:
        return NONE, []
    if isinstance(value, Seq):
        return Node("list" if value.is_list else "tuple", tuple(range(len(value.items)))), list(value.items)
    if isinstance(value, Dict):
        keyed: list[tuple[str | int, Value]] = []
        for key, item in value.items:
            name = as_str(key) if as_str(key) is not None else as_int(key)
            if name is None:
                return None  # a key the checker cannot read: the dict is an unknown leaf
            keyed.append((name, item))
        try:
            keyed.sort(key=lambda pair: pair[0])
        except TypeError:
            return None  # keys JAX cannot sort either
        return Node("dict", tuple(k for k, _ in keyed)), [item for _, item in keyed]
    if isinstance(value, Instance) and value.cls.record in ("namedtuple", "struct"):
        # NamedTuples and the registered dataclass-likes (flax.struct, chex, equinox).
        fields = value.cls.fields
        return Node(value.cls.name, fields, fields=True), [value.get(name) for name in fields]
    return None


def rebuilt(value: Value, members: list[Value]) -> Value:
    """The container `value` with new members, in the order `node` gave them."""
    if isinstance(value, Seq):
        return Seq(tuple(members), value.is_list)
    if isinstance(value, Dict):
        found = node(value)
        assert found is not None
        by_key = dict(zip(found[0].keys, members, strict=True))
        return Dict(tuple((key, by_key[as_str(key) if as_str(key) is not None else as_int(key)])  # type: ignore[index]
                          for key, _ in value.items))
    if isinstance(value, Instance):
        for name, member in zip(value.cls.fields, members, strict=True):
            value = value.with_field(name, member)
        return value
    return value  # None: no members


def _plain(shape: Node) -> Value:
    items = [rebuild(None, item) for item in shape.items]
    if shape.kind in ("tuple", "list"):
        return Seq(tuple(items), shape.kind == "list")
    if shape.kind == "dict":
        return Dict(tuple((Const(key), item) for key, item in zip(shape.keys, items, strict=True)))
    if shape.kind == "None":
        return Const(None)
    return None
