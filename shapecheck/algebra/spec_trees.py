"""Pytrees of PartitionSpecs against pytrees of values: shard_map's in_specs and out_specs, and
the arity of jit's in_shardings (DESIGN.md section 3a). vmap's in_axes are `vmap_axes`'s.

A spec tree is a pytree prefix of what it splits, as JAX matches it: one PartitionSpec stands
for the whole subtree under it, None for a subtree not split (the same on every device); a
tuple, list or dict of specs matches a container of the same kind and length (a dict by its
keys, in any order). in_specs is one spec for every argument, or a tuple with one entry per
argument (SC002 otherwise); out_specs matches the body's result likewise.

Each array leaf is checked against its spec (`partition_spec`), split into its per-device
block with the mesh axes it varies over put on (`replication.vary`), or assembled back from
the body's result with them taken off and checked (SC207). A container of specs where the
value has an array, or a container of another kind, length or keys, is SC002 at any depth (JAX's
"pytree structure error"), with the path to it.

Problems carry the argument they belong to (`operands`) and the spec at fault (`origin`), in
the order JAX raises them: a spec's own faults (SC206, SC201), which it raises when the
shard_map is built, before its value's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Generic, Literal, TypeAlias, TypeVar

from shapecheck.algebra.outcome import Problem, label
from shapecheck.algebra.partition_spec import (
    SPEC_FAULTS,
    MeshAxes,
    PartitionSpec,
    assemble,
    block,
    out_spec_problems,
    spec_problems,
    unmanaged_problems,
)
from shapecheck.algebra.replication import settle, unreplicated, vary
from shapecheck.algebra.vmap_axes import KEPT, Kept, Unread
from shapecheck.codes import Code
from shapecheck.types import ArrayType

Leaf = TypeVar("Leaf", covariant=True)


@dataclass(frozen=True, slots=True)
class Node(Generic[Leaf]):
    """A tuple, list or dict of subtrees (of values, or of specs)."""

    container: Literal["tuple", "list", "dict"]
    items: tuple[Leaf | Node[Leaf], ...]
    keys: tuple[str | None, ...] = ()  # a dict's keys in order; None where one is not a string

    @property
    def named(self) -> dict[str, Leaf | Node[Leaf]] | None:
        """A dict's items by key; None when a key is not a string (nothing matches it), or for a
        tuple or list."""
        if self.container != "dict" or any(key is None for key in self.keys):
            return None
        return {key: item for key, item in zip(self.keys, self.items, strict=True) if key is not None}

    def path(self, index: int) -> str:
        """How a message writes item `index`: `[0]`, `['w']`."""
        return f"[{self.keys[index]!r}]" if self.container == "dict" else f"[{index}]"

    def matches(self, other: Node[object]) -> bool:
        """Whether JAX matches the two as one pytree node: the same kind, length and keys."""
        if self.container != other.container or len(self.items) != len(other.items):
            return False
        if self.container != "dict":
            return True
        mine, theirs = self.named, other.named
        return mine is not None and theirs is not None and sorted(mine) == sorted(theirs)


SpecLeaf: TypeAlias = "PartitionSpec | Unread | None"
"""A PartitionSpec, an entry the front end could not read, or None (not split)."""
Specs: TypeAlias = "SpecLeaf | Node[SpecLeaf]"

Values: TypeAlias = "ArrayType | Node[ArrayType | None] | None"
"""Arguments or results: arrays (Python numbers among them), containers, None for anything else."""

Block: TypeAlias = "ArrayType | Kept | None"
Blocks: TypeAlias = "Block | Node[Block]"
"""What the body sees of an argument: blocks, KEPT for what is passed as it is, None where unknown."""


@dataclass(frozen=True, slots=True)
class Site:
    """What one call of a shard_map is checked against."""

    mesh: MeshAxes
    manual: Mapping[str, int | None] = field(default_factory=dict)  # manual axes and sizes: the body's names
    axis_names: frozenset[str] = frozenset()  # as axis_names lists them; empty: every mesh axis is manual
    name: str = "the shard_mapped function"  # for messages
    check_vma: bool | None = True  # None: not known


@dataclass(frozen=True, slots=True)
class Split:
    """The body's arguments, or None when JAX refuses the call's arguments; and the problems."""

    args: tuple[Blocks, ...] | None
    problems: tuple[Problem, ...] = ()


def split_arguments(args: Sequence[Values], in_specs: Specs, site: Site, labels: Sequence[str] = ()) -> Split:
    """Each argument as the body sees it: its per-device blocks, varying over the manual mesh
    axes its spec splits it over. `labels` name the arguments in messages."""
    count = len(args)
    if isinstance(in_specs, Node) and in_specs.container != "dict":
        if in_specs.container == "list" or len(in_specs.items) != count:
            return Split(None, (Problem(Code.INVALID_AXIS_SPEC, _arity_message(in_specs, count, site.name),
                                        sizes=(len(in_specs.items), count)),))
        entries: Sequence[Specs] = in_specs.items
        listed = True
    else:
        entries, listed = [in_specs] * count, False  # one spec (or an unknown one) for every argument
    problems: list[Problem] = []
    body: list[Blocks] = []
    for index, (entry, arg) in enumerate(zip(entries, args, strict=True)):
        what = f"argument {label(labels, index)} of {site.name}" + (f" (in_specs[{index}])" if listed else "")
        found: list[Problem] = []
        body.append(_split(entry, arg, what, site, found))
        problems += (replace(problem, operands=(index,)) for problem in found)
    return Split(None if problems else tuple(body), tuple(problems))


def _arity_message(specs: Node[SpecLeaf], count: int, name: str) -> str:
    if specs.container == "list":
        return (f"in_specs is a list, but shard_map matches it against the tuple of arguments {name} is "
                f"called with: write a tuple, one entry per argument")
    entries = len(specs.items)
    return (f"in_specs has {entries} entr{'y' if entries == 1 else 'ies'} but {name} is called with {count} "
            f"argument{'' if count == 1 else 's'}: in_specs needs one entry per argument")


def _split(entry: Specs, arg: Values, what: str, site: Site, problems: list[Problem]) -> Blocks:
    if entry is None:
        return KEPT  # None in in_specs: not split, the same on every device
    if isinstance(entry, PartitionSpec):
        if isinstance(arg, ArrayType):
            return _split_leaf(entry, arg, what, site, problems)
        if isinstance(arg, Node):  # one spec for each leaf under it
            return Node(arg.container, tuple(_split(entry, item, what + arg.path(i), site, problems)
                                             for i, item in enumerate(arg.items)), arg.keys)
        return None
    if isinstance(entry, Node) and isinstance(arg, Node) and entry.matches(arg):
        subs = entry.named or {}
        return Node(arg.container, tuple(
            _split(subs[arg.keys[i] or ""] if arg.container == "dict" else entry.items[i], item,
                   what + arg.path(i), site, problems)
            for i, item in enumerate(arg.items)), arg.keys)
    if isinstance(entry, Node) and isinstance(arg, Node | ArrayType) and _known(entry) and _known(arg):
        problems.append(Problem(Code.INVALID_AXIS_SPEC, f"{what} is {_shown(arg)}, but its in_specs entry is "
                                f"{_shown(entry)}: a spec tree must be a prefix of the arguments (one "
                                "PartitionSpec, or a container of the same kind, length and keys)"))
        return None
    return _unknown(arg)


def _known(node: Values | Specs) -> bool:
    """Whether a container's kind, length and keys are all known (no key unread)."""
    return not isinstance(node, Node) or all(key is not None for key in node.keys)


def _shown(node: Values | Specs) -> str:
    if not isinstance(node, Node):
        return "an array"
    if node.container == "dict":
        keys = ", ".join(repr(key) for key in sorted(k for k in node.keys if k is not None)) or "none"
        return f"a dict with keys {keys}"
    return f"a {node.container} of {len(node.items)}"


def _split_leaf(spec: PartitionSpec, value: ArrayType, what: str, site: Site, problems: list[Problem]) -> Block:
    found = spec_problems(spec, value, site.mesh, what) + _unmanaged(spec, what, site)
    if found:
        problems += _in_raising_order(found)
        return None
    return vary(block(spec, value, site.mesh), spec, site.manual)


def _unknown(arg: Values) -> Blocks:
    """An argument under a spec that does not match it: its rank and dtype, nothing else."""
    if isinstance(arg, ArrayType):
        return arg.with_dims((None,) * len(arg.dims), arg.ellipsis)
    if isinstance(arg, Node) and arg.container != "dict":
        return Node(arg.container, tuple(_unknown(item) for item in arg.items))
    return None


def _unmanaged(spec: PartitionSpec, what: str, site: Site) -> list[Problem]:
    # Only where axis_names is given; an empty set there means every mesh axis.
    if not site.axis_names:
        return []
    return unmanaged_problems(spec, site.axis_names, site.mesh, what)


def _in_raising_order(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.code in SPEC_FAULTS] + [p for p in problems if p.code not in SPEC_FAULTS]


def assemble_results(result: Values, out_specs: Specs, site: Site) -> tuple[Values, list[Problem]]:
    """The global value out_specs assemble from the body's `result` (unknown where a spec is
    at fault), and the problems: SC002 for a structure that does not match at any depth, the
    out_specs' own (SC106, SC206, SC201) and, under check_vma, SC207."""
    problems: list[Problem] = []
    return _assemble(out_specs, result, "", site, problems), problems


def _assemble(specs: Specs, result: Values, path: str, site: Site, problems: list[Problem]) -> Values:
    if isinstance(specs, PartitionSpec):
        if isinstance(result, ArrayType):
            return _assemble_leaf(specs, result, path, site, problems)
        if isinstance(result, Node):
            return Node(result.container, tuple(_assemble(specs, item, path + result.path(i), site, problems)
                                                for i, item in enumerate(result.items)), result.keys)
        return None
    if not isinstance(specs, Node) or not isinstance(result, Node | ArrayType):
        return None
    if isinstance(result, ArrayType) or not specs.matches(result):
        if _known(specs) and _known(result):
            problems.append(Problem(Code.INVALID_AXIS_SPEC, _structure_message(specs, result, path, site.name),
                                    sizes=(len(specs.items), len(result.items)) if isinstance(result, Node) else ()))
        return None
    if result.container == "dict":
        subs = specs.named or {}
        return Node(result.container, tuple(
            _assemble(subs[result.keys[i] or ""], item, path + result.path(i), site, problems)
            for i, item in enumerate(result.items)), result.keys)
    return Node(result.container, tuple(_assemble(sub, item, path + result.path(i), site, problems)
                                        for i, (sub, item) in enumerate(zip(specs.items, result.items, strict=True))))


def _structure_message(specs: Node[SpecLeaf], result: Node[ArrayType | None] | ArrayType, path: str,
                       name: str) -> str:
    where = f"out_specs{path}" if path else "out_specs"
    return (f"{where} is {_shown(specs)} but {name} returns {_shown(result)} there: out_specs needs one "
            "entry per result (one PartitionSpec, or a container of the same kind, length and keys)")


def _assemble_leaf(spec: PartitionSpec, value: ArrayType, path: str, site: Site, problems: list[Problem]) -> Values:
    local, varying = settle(value, site.manual)
    what = f"the result{path} of {site.name}"
    found = out_spec_problems(spec, local, site.mesh, what) + _unmanaged(spec, what, site)
    if found:
        problems += _in_raising_order(found)
        return None
    if site.check_vma:
        problems += unreplicated(spec, varying, what)
    return assemble(spec, local, site.mesh)


def shardings_arity(entries: int, count: int, name: str) -> Problem:
    """SC002: jit's tuple of in_shardings has `entries` entries for `count` dynamic arguments
    (JAX's ValueError at the call)."""
    return Problem(
        Code.INVALID_AXIS_SPEC,
        f"in_shardings has {entries} entr{'y' if entries == 1 else 'ies'} but {name} is called with {count} "
        f"positional argument{'' if count == 1 else 's'} (static ones not counted): in_shardings needs one "
        "entry per such argument, or one sharding for all", sizes=(entries, count))
