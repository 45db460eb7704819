"""xmap's axis mappings (`{pos: name}`, `['a', 'b', ...]`, containers) applied to argument and result types."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import CONFLICT, Dim, certainly_differ, format_dim, unify
from shapecheck.literal import Kind, Lit
from shapecheck.types import ArrayType, named_shape


@dataclass(frozen=True, slots=True)
class AxisMapping:
    """One positional-to-named mapping; `rank` is the exact rank a list without `...` asserts."""

    entries: tuple[tuple[int, str], ...]
    rank: int | None = None
    text: str = ""
    origin: object = field(default=None, compare=False, hash=False)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for _, name in self.entries)


@dataclass(frozen=True, slots=True)
class SpecContainer:
    """A tuple, list or dict of specs matching a container of arguments or results."""

    items: tuple[SpecTree, ...]
    keys: tuple[str, ...] | None = None  # dict containers
    origin: object = field(default=None, compare=False, hash=False)


SpecTree: TypeAlias = AxisMapping | SpecContainer

ValueTree: TypeAlias = "ArrayType | tuple[ValueTree, ...] | dict[str, ValueTree] | None"
"""Argument or result values: arrays, containers of them, or None where nothing is known."""


def parse_axis_spec(node: Lit, what: str) -> tuple[SpecTree | None, list[Problem]]:
    """Parse an in_axes/out_axes literal; malformed parts are SC002 problems at their node."""
    problems: list[Problem] = []
    tree = _parse(node, what, problems)
    return tree, problems


# Elements the front end could not evaluate (parameters, constants defined elsewhere, calls):
# each may be an axis name, None or a whole subtree, so nothing certain follows from one alone.
_UNKNOWN = (Kind.NAME, Kind.OTHER)


def _is_mapping_list(node: Lit) -> bool:
    """Whether a list/tuple is (or, with unknown elements, may only be) one mapping.

    A list of names with an unknown element is a mapping, or a container whose bare names are
    malformed anyway: reading it as a mapping reports only what is wrong in both readings.
    """
    return all(item.kind in (Kind.STR, Kind.NONE, Kind.ELLIPSIS, *_UNKNOWN) for item in node.items)


def _parse(node: Lit, what: str, problems: list[Problem]) -> SpecTree | None:
    if node.kind is Kind.DICT:
        pairs = node.pairs
        known = [key for key, _ in pairs if key.kind not in _UNKNOWN]
        if all(key.kind is Kind.INT for key in known) and (known or not pairs):
            return _dict_mapping(node, what, problems)
        if all(key.kind is Kind.STR for key in known) and known:
            keys = tuple(str(key.value) for key, _ in pairs)
            items = tuple(_parse(value, f"{what}[{key.value!r}]", problems) for key, value in pairs)
            if any(item is None for item in items) or len(known) < len(pairs):
                return None
            return SpecContainer(tuple(i for i in items if i is not None), keys, node.origin)
        if not known:
            return None  # every key unknown: a mapping or a container, nothing to check
        problems.append(Problem(
            Code.INVALID_AXIS_SPEC, f"{what}: a mapping's keys must be non-negative int positions, e.g. {{0: 'batch'}}",
            origin=node.origin))
        return None
    if node.kind in (Kind.LIST, Kind.TUPLE):
        if _is_mapping_list(node):
            return _list_mapping(node, what, problems)
        items = tuple(_parse(item, f"{what}[{i}]", problems) for i, item in enumerate(node.items))
        if any(item is None for item in items):
            return None
        return SpecContainer(tuple(i for i in items if i is not None), None, node.origin)
    if node.kind is Kind.STR:
        problems.append(Problem(
            Code.INVALID_AXIS_SPEC, f"{what}: a bare name {node.describe()} is not an axis mapping; write "
            f"[{node.describe()}, ...] (leading dim) or {{0: {node.describe()}}}", origin=node.origin))
        return None
    if node.kind in (Kind.NAME, Kind.OTHER):
        return None  # not a literal: nothing certain to say
    problems.append(Problem(
        Code.INVALID_AXIS_SPEC, f"{what}: `{node.describe()}` is not an axis mapping (a dict {{pos: name}} or a "
        "list of names)", origin=node.origin))
    return None


def _dict_mapping(node: Lit, what: str, problems: list[Problem]) -> AxisMapping | None:
    entries: list[tuple[int, str]] = []
    ok = True
    for key, value in node.pairs:
        position = key.value
        if not isinstance(position, int):
            ok = False  # an unknown position: the mapping is unknown, its other entries still checked
            continue
        if position < 0:
            problems.append(Problem(
                Code.INVALID_AXIS_SPEC, f"{what}: position {position} is negative; xmap positions count from 0",
                origin=key.origin))
            ok = False
        if value.kind is not Kind.STR:
            if value.kind not in (Kind.NAME, Kind.OTHER):
                problems.append(Problem(
                    Code.INVALID_AXIS_SPEC, f"{what}: axis name `{value.describe()}` must be a string", origin=value.origin))
            ok = False
            continue
        entries.append((position, str(value.value)))
    if not ok or not _unique(entries, what, node, problems):
        return None
    return AxisMapping(tuple(sorted(entries)), None, node.describe(), node.origin)


def _list_mapping(node: Lit, what: str, problems: list[Problem]) -> AxisMapping | None:
    items = node.items
    ends_open = bool(items) and items[-1].kind is Kind.ELLIPSIS
    body = items[:-1] if ends_open else items
    for item in body:
        if item.kind is Kind.ELLIPSIS:
            problems.append(Problem(
                Code.INVALID_AXIS_SPEC, f"{what}: `...` may only end an axis list, as in ['batch', ...]",
                origin=item.origin))
            return None
    entries = [(i, str(item.value)) for i, item in enumerate(body) if item.kind is Kind.STR]
    if not _unique(entries, what, node, problems):
        return None
    if any(item.kind in _UNKNOWN for item in body):
        return None  # an unknown element may be any name (or None): which names, unknown
    return AxisMapping(tuple(entries), None if ends_open else len(body), node.describe(), node.origin)


def _unique(entries: list[tuple[int, str]], what: str, node: Lit, problems: list[Problem]) -> bool:
    seen: set[str] = set()
    for _, name in entries:
        if name in seen:
            problems.append(Problem(
                Code.INVALID_AXIS_SPEC, f"{what}: axis name {name!r} is used twice in one mapping", axes=(name,),
                origin=node.origin))
            return False
        seen.add(name)
    return True


def spec_names(tree: SpecTree | None) -> Iterator[tuple[str, AxisMapping]]:
    """Every axis name a spec mentions, with the mapping it appears in."""
    if isinstance(tree, AxisMapping):
        for name in tree.names:
            yield name, tree
    elif isinstance(tree, SpecContainer):
        for item in tree.items:
            yield from spec_names(item)


@dataclass(slots=True)
class AxisSizes:
    """Sizes of the axes an xmap defines, with where each was first seen."""

    sizes: dict[str, Dim] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    source_operands: dict[str, int | None] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def add(self, name: str, size: Dim, source: str, operand: int | None = None) -> None:
        """Record that `source` gives axis `name` this size; a conflict is SC102.

        The problem's operands are the argument blamed (this one) and, when known, the
        argument the other size came from, so a front end can point a note at it; a conflict
        found at an `axis_sizes` entry (no operand) has none (see `source_operands`).
        """
        if name in self.sizes and certainly_differ(self.sizes[name], size):
            earlier = self.source_operands.get(name)
            operands = () if operand is None else tuple(i for i in (operand, earlier) if i is not None)
            self.problems.append(Problem(
                Code.NAMED_SIZE_MISMATCH, f"named axis {name!r} has size {format_dim(size)} in {source} but "
                f"{format_dim(self.sizes[name])} in {self.sources[name]}",
                axes=(name,), sizes=(size, self.sizes[name]), operands=operands))
            self.sizes[name] = CONFLICT  # reported here, once: unknown from then on
            return
        if name not in self.sizes or not isinstance(self.sizes[name], int):
            self.sources[name] = source
            self.source_operands[name] = operand
        self.sizes[name] = unify(self.sizes.get(name), size)


def apply_in_axes(
    spec: SpecTree, args: Sequence[ValueTree], axis_sizes: Mapping[str, Dim] | None = None,
    arg_word: str = "argument", call: str = "xmap",
) -> tuple[list[ValueTree], AxisSizes]:
    """Turn the call's positional argument types into the named types the body sees."""
    sizes = AxisSizes()
    problems = sizes.problems
    if isinstance(spec, SpecContainer) and spec.keys is None:
        if len(spec.items) != len(args):
            problems.append(Problem(
                Code.INVALID_AXIS_SPEC, f"in_axes has {len(spec.items)} entries but {call} is called with "
                f"{len(args)} argument{'s' if len(args) != 1 else ''}", origin=spec.origin))
            return [_erase(a) for a in args], sizes
        out = [
            _map_in(item, arg, f"{arg_word} {i + 1} of {call} (in_axes[{i}]", sizes, i)
            for i, (item, arg) in enumerate(zip(spec.items, args, strict=True))
        ]
    else:
        out = [_map_in(spec, arg, f"{arg_word} {i + 1} of {call} (in_axes", sizes, i)
               for i, arg in enumerate(args)]
    for name, size in (axis_sizes or {}).items():
        sizes.add(name, size, f"axis_sizes[{name!r}]")
    return out, sizes


def _erase(value: ValueTree) -> ValueTree:
    return None


def _map_in(spec: SpecTree, value: ValueTree, where: str, sizes: AxisSizes, operand: int) -> ValueTree:
    if value is None:
        if isinstance(spec, AxisMapping):
            for _, name in spec.entries:
                sizes.add(name, None, where + ")", operand)
        return None
    if isinstance(spec, AxisMapping):
        if isinstance(value, ArrayType):
            return _name_dims(spec, value, where, sizes, operand)
        if isinstance(value, dict):
            return {k: _map_in(spec, v, where, sizes, operand) for k, v in value.items()}
        return tuple(_map_in(spec, v, where, sizes, operand) for v in value)
    if spec.keys is not None:
        if not isinstance(value, dict) or set(value) != set(spec.keys):
            sizes.problems.append(Problem(
                Code.INVALID_AXIS_SPEC, f"{where}) is a dict spec with keys {list(spec.keys)} that does not match the "
                "argument's structure", origin=spec.origin, operands=(operand,)))
            return None
        return {k: _map_in(s, value[k], f"{where}[{k!r}]", sizes, operand)
                for k, s in zip(spec.keys, spec.items, strict=True)}
    if not isinstance(value, tuple) or len(value) != len(spec.items):
        shape = "an array" if isinstance(value, ArrayType) else "a container of another size"
        sizes.problems.append(Problem(
            Code.INVALID_AXIS_SPEC, f"{where}) has {len(spec.items)} entries where the argument is {shape}",
            origin=spec.origin, operands=(operand,)))
        return None
    return tuple(_map_in(s, v, f"{where}[{i}]", sizes, operand)
                 for i, (s, v) in enumerate(zip(spec.items, value, strict=True)))


def _name_dims(spec: AxisMapping, value: ArrayType, where: str, sizes: AxisSizes, operand: int) -> ArrayType:
    named = value.named_dict
    if value.ellipsis is not None:
        for position, name in spec.entries:
            known = position < value.ellipsis
            named[name] = value.dims[position] if known else None
            sizes.add(name, named[name], f"{where}, dim {position})", operand)
        return ArrayType(value.dtype, (), named_shape(named), 0, value.named_open)
    rank = len(value.dims)
    if spec.rank is not None and spec.rank != rank:
        sizes.problems.append(Problem(
            Code.INVALID_AXIS_SPEC, f"{where}) {spec.text} names exactly {spec.rank} positional dim"
            f"{'s' if spec.rank != 1 else ''} but the argument has {rank}: {value}",
            origin=spec.origin, operands=(operand,)))
        return ArrayType(value.dtype, (), value.named, 0, True)
    drop: set[int] = set()
    for position, name in spec.entries:
        if position >= rank:
            sizes.problems.append(Problem(
                Code.AXIS_OUT_OF_RANGE, f"{where}) maps position {position} to {name!r} but the argument has only "
                f"{rank} positional dim{'s' if rank != 1 else ''}: {value}", axes=(position,),
                origin=spec.origin, operands=(operand,)))
            continue
        drop.add(position)
        named[name] = value.dims[position]
        sizes.add(name, value.dims[position], f"{where}, dim {position})", operand)
    dims = tuple(d for i, d in enumerate(value.dims) if i not in drop)
    return ArrayType(value.dtype, dims, named_shape(named), None, value.named_open)


def apply_out_axes(
    spec: SpecTree, result: ValueTree, sizes: Mapping[str, Dim], what: str = "out_axes",
) -> tuple[ValueTree, list[Problem]]:
    """Turn the body's named result types into the positional results the caller gets."""
    problems: list[Problem] = []
    return _map_out(spec, result, sizes, what, problems), problems


def _map_out(spec: SpecTree, value: ValueTree, sizes: Mapping[str, Dim], where: str,
             problems: list[Problem]) -> ValueTree:
    if value is None:
        return None
    if isinstance(spec, AxisMapping):
        if isinstance(value, ArrayType):
            return _place(spec, value, sizes, where, problems)
        if isinstance(value, dict):
            return {k: _map_out(spec, v, sizes, where, problems) for k, v in value.items()}
        return tuple(_map_out(spec, v, sizes, where, problems) for v in value)
    if spec.keys is not None:
        if not isinstance(value, dict) or set(value) != set(spec.keys):
            problems.append(Problem(Code.INVALID_AXIS_SPEC, f"{where} is a dict spec that does not match the result's "
                                    "structure", origin=spec.origin))
            return None
        return {k: _map_out(s, value[k], sizes, f"{where}[{k!r}]", problems)
                for k, s in zip(spec.keys, spec.items, strict=True)}
    if not isinstance(value, tuple) or len(value) != len(spec.items):
        shape = "an array" if isinstance(value, ArrayType) else "a container of another size"
        problems.append(Problem(Code.INVALID_AXIS_SPEC, f"{where} has {len(spec.items)} entries where the result is "
                                f"{shape}", origin=spec.origin))
        return None
    return tuple(_map_out(s, v, sizes, f"{where}[{i}]", problems)
                 for i, (s, v) in enumerate(zip(spec.items, value, strict=True)))


def _place(spec: AxisMapping, value: ArrayType, sizes: Mapping[str, Dim], where: str,
           problems: list[Problem]) -> ArrayType:
    placed = set(spec.names)
    for name, size in value.named:
        if name not in placed and name in sizes:
            problems.append(Problem(
                Code.UNPLACED_NAMED_AXIS, f"the result keeps named axis {name!r} (size {format_dim(size)}) but {where} "
                f"{spec.text} does not place it; add it to {where} or reduce it in the body",
                axes=(name,), sizes=(size,), origin=spec.origin))
    leftover = tuple((n, s) for n, s in value.named if n not in placed and n not in sizes)
    named = value.named_dict
    if value.ellipsis is not None:
        return ArrayType(value.dtype, (), leftover, 0, value.named_open)
    dims = list(value.dims)
    for position, name in spec.entries:
        if position > len(dims):
            problems.append(Problem(
                Code.AXIS_OUT_OF_RANGE, f"{where} {spec.text} places {name!r} at position {position} but the result "
                f"has only {len(dims)} positional dim{'s' if len(dims) != 1 else ''} there: {value}",
                axes=(position,), origin=spec.origin))
            return ArrayType(value.dtype, (), leftover, 0, value.named_open)
        dims.insert(position, named.get(name, sizes.get(name)))
    if spec.rank is not None and spec.rank != len(dims):
        problems.append(Problem(
            Code.INVALID_AXIS_SPEC, f"{where} {spec.text} names exactly {spec.rank} positional dims but the result "
            f"has {len(dims)}", origin=spec.origin))
    return ArrayType(value.dtype, tuple(dims), leftover, None, value.named_open)
