"""Argument and result values as the algebra's value trees (`axis_mapping.ValueTree`), and back:
what the maps and transforms hand to the algebra and take from it."""

from __future__ import annotations

from shapecheck.algebra.axis_mapping import ValueTree
from shapecheck.analyzer.values import (
    BoundFunction,
    Class,
    Const,
    Dict,
    DType,
    Function,
    Instance,
    Partial,
    Qual,
    Seq,
    Value,
    as_str,
)
from shapecheck.types import ArrayType


def value_tree(value: Value) -> ValueTree:
    """Arrays, Python numbers (as arrays of unknown dtype), and tuples, lists, string-keyed
    dicts and pytree records (NamedTuples, `flax.struct` dataclasses, equinox modules: their
    fields by name) of them; None where nothing is known."""
    if isinstance(value, ArrayType):
        return value
    if isinstance(value, Const) and isinstance(value.value, int | float) and not isinstance(value.value, bool):
        return ArrayType(None, ())
    if isinstance(value, Seq):
        return tuple(value_tree(item) for item in value.items)
    if isinstance(value, Dict):
        items = {}
        for key, item in value.items:
            name = as_str(key)
            if name is None:
                return None
            items[name] = value_tree(item)
        return items
    if isinstance(value, Instance) and value.cls.record in ("struct", "namedtuple"):
        return {name: value_tree(value.get(name)) for name in value.cls.fields}
    return None


def to_value(tree: ValueTree, like: Value = None) -> Value:
    """`tree` as a value; its sequences are lists where `like`'s, of the same structure, are.

    A value tree does not tell a list from a tuple, and a pytree does: `jax.grad` of a list of
    parameters is a list, which `tree.map` over the parameters must find alike.
    """
    if isinstance(tree, ArrayType):
        return tree
    if isinstance(tree, tuple):
        model = like.items if isinstance(like, Seq) and len(like.items) == len(tree) else None
        return Seq(tuple(to_value(item, model[index] if model else None) for index, item in enumerate(tree)),
                   isinstance(like, Seq) and like.is_list and model is not None)
    if isinstance(tree, dict):
        if isinstance(like, Instance) and like.cls.record is not None:
            record = like  # the record rebuilt, its fields as mapped
            for name, item in tree.items():
                record = record.with_field(name, to_value(item, like.get(name)))
            return record
        models = {as_str(key): item for key, item in like.items} if isinstance(like, Dict) else {}
        return Dict(tuple((Const(k), to_value(v, models.get(k))) for k, v in tree.items()))
    if tree is None and isinstance(like, _STATIC):
        return like  # holds no array (a record's function or string field): as it was
    return None


# Values that hold no array, which a map or transform passes through as they are. A layer, a
# record or a container does hold arrays: unknown where the tree does not say what became of them.
_STATIC = (Const, Function, BoundFunction, Qual, Partial, Class, DType)


def no_leaves(value: Value) -> bool:
    """Whether `value` is certainly a pytree without leaves: None, and containers of them (an
    in_axes that maps nothing)."""
    if isinstance(value, Seq):
        return all(no_leaves(item) for item in value.items)
    if isinstance(value, Dict):
        return all(no_leaves(item) for _, item in value.items)
    return value == Const(None)
