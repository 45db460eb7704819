"""Dicts, lists and tuples as values: updated by item, merged, unpacked, as Python does.

Only what is certain is kept: a key or index the checker cannot read, or an unpacking whose
lengths it does not know, makes the container (or the names bound from it) unknown, never a
guess.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import replace

from shapecheck.analyzer.values import Const, Dict, Instance, Seq, Value
from shapecheck.types import ArrayType

MAX_ITEMS = 64
"""Longer containers built item by item (comprehensions, ranges) are left unknown: loops, not
parameter sets."""


def get_item(container: Value, key: Value) -> Value:
    """`container[key]` for a dict and a known key, or a tuple or list and an int within it;
    None (unknown) otherwise."""
    if isinstance(container, Dict) and isinstance(key, Const):
        return next((item for k, item in container.items if k == key), None)
    if isinstance(container, Seq) and isinstance(key, Const) and key.is_int:
        index = key.value
        assert isinstance(index, int)
        return container.items[index] if -len(container.items) <= index < len(container.items) else None
    return None


def set_item(container: Value, key: Value, item: Value) -> Value:
    """`container[key] = item`: the container after the assignment (None: no longer known)."""
    if isinstance(container, Dict) and isinstance(key, Const):
        if any(k == key for k, _ in container.items):
            return Dict(tuple((k, item if k == key else v) for k, v in container.items))
        return Dict((*container.items, (key, item)))
    if isinstance(container, Seq) and container.is_list and isinstance(key, Const) and key.is_int:
        index = key.value
        assert isinstance(index, int)
        if -len(container.items) <= index < len(container.items):
            items = list(container.items)
            items[index] = item
            return Seq(tuple(items), True)
    return None


def merge(*parts: Value) -> Value:
    """`{**a, **b}` (and `a | b`): later keys win, in first-seen order, as Python's dicts do."""
    merged: dict[Value, Value] = {}
    for part in parts:
        if not isinstance(part, Dict):
            return None
        for key, item in part.items:
            if not isinstance(key, Const):
                return None
            merged[key] = item
    return Dict(tuple(merged.items()))


def as_sequence(value: Value) -> Value:
    """A NamedTuple as the tuple it also is; any other value as it is."""
    if isinstance(value, Instance):
        items = value.items()
        return Seq(items) if items is not None else value
    return value


def unpack(value: Value, count: int, starred: int | None) -> list[Value] | None:
    """The values `count` targets take from `value` (the one at `starred` a list of the rest),
    or None when the lengths are not known to fit. An array unpacks into its rows
    (`key, sub = jax.random.split(key)`)."""
    rows = iteration(value) if isinstance(value, ArrayType) else None
    value = Seq(rows) if rows is not None else as_sequence(value)
    if not isinstance(value, Seq):
        return None
    items = value.items
    if starred is None:
        return list(items) if len(items) == count else None
    after = count - starred - 1
    if len(items) < count - 1:
        return None
    rest = items[starred:len(items) - after]
    return [*items[:starred], Seq(tuple(rest), True), *items[len(items) - after:]]


def zipped(sequences: Sequence[Value], strict: bool = False) -> Value:
    """`zip(a, b, ...)` of known sequences: a list of tuples (zip's own laziness is not kept)."""
    if not sequences or not all(isinstance(s, Seq) for s in sequences):
        return None
    columns = [s.items for s in sequences if isinstance(s, Seq)]
    if strict and len({len(c) for c in columns}) > 1:
        return None  # zip(strict=True) raises: nothing comes of it
    return Seq(tuple(Seq(row) for row in zip(*columns, strict=False)), True)


def enumerated(sequence: Value, start: Value = None) -> Value:
    """`enumerate(seq, start)` of a known sequence (start None: 0): a list of (index, item) tuples."""
    if start is None:
        start = Const(0)
    if not isinstance(sequence, Seq) or not (isinstance(start, Const) and start.is_int):
        return None
    first = start.value
    assert isinstance(first, int)
    return Seq(tuple(Seq((Const(first + i), item)) for i, item in enumerate(sequence.items)), True)


def iteration(value: Value) -> tuple[Value, ...] | None:
    """The items a `for` over `value` sees, in order, where known: a sequence's items, a dict's
    keys, an array's rows (`for k in jax.random.split(key, 3)`)."""
    value = as_sequence(value)
    if isinstance(value, Seq):
        return value.items
    if isinstance(value, Dict):
        return tuple(key for key, _ in value.items)
    if isinstance(value, Const) and isinstance(value.value, str) and len(value.value) <= MAX_ITEMS:
        return tuple(Const(character) for character in value.value)
    if (isinstance(value, ArrayType) and value.ellipsis is None and value.dims
            and isinstance(value.dims[0], int) and value.dims[0] <= MAX_ITEMS):
        row = replace(value, dims=value.dims[1:], weak=False)
        return (row,) * value.dims[0]
    return None


def method(receiver: Dict | Seq, name: str, args: Sequence[Value], keywords: dict[str, Value]) -> Value:
    """`d.items()`, `d.get(k)`, `xs.index(...)`...: what the dict and list methods that read a
    container give (the mutating ones make it unknown where they are called)."""
    if keywords:
        return None
    if isinstance(receiver, Dict):
        if name == "items" and not args:
            return Seq(tuple(Seq((k, v)) for k, v in receiver.items), True)
        if name == "keys" and not args:
            return Seq(tuple(k for k, _ in receiver.items), True)
        if name == "values" and not args:
            return Seq(tuple(v for _, v in receiver.items), True)
        if name == "copy" and not args:
            return receiver
        if name == "get" and 1 <= len(args) <= 2 and isinstance(args[0], Const):
            for key, item in receiver.items:
                if key == args[0]:
                    return item
            return args[1] if len(args) == 2 else Const(None)
        return None
    if name == "copy" and not args and receiver.is_list:
        return receiver
    return None


METHODS = frozenset({"items", "keys", "values", "copy", "get"})
"""The container methods `method` answers."""


def fstring(node: ast.JoinedStr, read: Callable[[ast.expr], Value]) -> Value:
    """An f-string whose fields `read` gives as constants (`f'layer_{i}'`, a dict key built in a
    loop); None where a field is not known, or formatted in a way left to Python."""
    text: list[str] = []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            text.append(part.value)
            continue
        assert isinstance(part, ast.FormattedValue)
        value = read(part.value)
        if not isinstance(value, Const) or part.format_spec is not None or isinstance(value.value, float):
            return None
        text.append(repr(value.value) if part.conversion == ord("r") else str(value.value))
    return Const("".join(text))
