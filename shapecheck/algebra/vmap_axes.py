"""vmap's and pmap's in_axes and out_axes (DESIGN.md section 3a): one axis of every mapped
array becomes the map's named axis inside the body, and is put back into the results.

The analyzer's vmap/pmap handler binds the call's arguments and calls these; a runtime can
call them with the values it holds. Each fact here is what JAX 0.10 raises:

- `in_axes` is an int, None, or a tuple (vmap: or list) with one entry per positional
  argument, each a pytree prefix of its argument, with int or None leaves; a bare dict, an
  entry of another structure than its argument, or a leaf that is not an int is SC002.
- Keyword arguments are mapped over axis 0, whatever `in_axes` says.
- A mapped axis must be in `-rank..rank-1` of its array, and a scalar has no axis (SC106).
- Every mapped axis and `axis_size` have one size (SC102); no mapped argument at all is SC002
  (vmap accepts `axis_size` instead, pmap does not).
- `out_axes` is a pytree prefix of the result; an int leaf places the axis at `-(r+1)..r` of
  a result of rank r (SC106).

pmap (JAX 0.10 runs it as shard_map) differs where noted: its negative axes do not mean what
vmap's do, so they give unknown shapes; `out_axes=None` returns one device's result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, TypeAlias

from shapecheck.algebra.axis_mapping import ValueTree
from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import CONFLICT, Conflict, Dim, certainly_differ, format_dim, unify
from shapecheck.types import ArrayType, is_invented

Kind: TypeAlias = Literal["vmap", "pmap"]


@dataclass(frozen=True, slots=True)
class Unread:
    """An entry the front end could not read: any axis, None, or a whole subtree."""


@dataclass(frozen=True, slots=True)
class BadLeaf:
    """An entry that is certainly not an int, None or a container (a float, a string, a bool)."""

    text: str


@dataclass(frozen=True, slots=True)
class Entries:
    """A tuple, list or dict of entries, matching a container of arguments or results."""

    items: tuple[AxisSpec, ...]
    container: Literal["tuple", "list", "dict"] = "tuple"
    keys: tuple[str, ...] = ()  # dicts
    text: str = ""
    origin: object = field(default=None, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Kept:
    """An argument whose in_axes entry is None: it enters the body as it is."""


UNREAD: Final = Unread()
KEPT: Final = Kept()

AxisSpec: TypeAlias = "int | Unread | BadLeaf | Entries | None"
"""in_axes or out_axes: a leaf (an axis, None, unread, not an axis) or a container of specs."""


@dataclass(frozen=True, slots=True)
class Mapped:
    """One array whose axis is mapped: the operand it belongs to, its label, axis and size."""

    operand: int
    label: str
    axis: int
    size: Dim


@dataclass(frozen=True, slots=True)
class MappedArgs:
    """The body's view of the arguments, and the mapped axis's size.

    `args` is None when the entries do not match the arguments (the call fails before the
    body runs). Per positional argument: its value inside the body, KEPT (unchanged), or None
    (nothing known); `kwargs` likewise, in the order given.
    """

    args: tuple[ValueTree | Kept, ...] | None
    size: Dim
    problems: tuple[Problem, ...] = ()
    kwargs: tuple[ValueTree, ...] = ()


def spec_problems(spec: AxisSpec, what: str, kind: Kind = "vmap") -> list[Problem]:
    """What JAX refuses in `in_axes`/`out_axes` before any argument is seen (SC002)."""
    problems: list[Problem] = []
    if what == "in_axes" and isinstance(spec, Entries) and spec.container == "dict":
        problems.append(Problem(
            Code.INVALID_AXIS_SPEC,
            f"{kind}: in_axes {spec.text or 'dict'} is a dict; in_axes must be an int, None, or a "
            "tuple of entries corresponding to the positional arguments (a dict argument's "
            f"entry goes inside the tuple: in_axes=({spec.text or '{...}'},))", origin=spec.origin))
    bad = _bad_leaf(spec)
    if bad is not None:
        problems.append(Problem(
            Code.INVALID_AXIS_SPEC,
            f"{kind}: {what} must be an int, None, or a container of them, but has {bad.text}",
            origin=spec.origin if isinstance(spec, Entries) else None))
    return problems


def _bad_leaf(spec: AxisSpec) -> BadLeaf | None:
    if isinstance(spec, BadLeaf):
        return spec
    if isinstance(spec, Entries):
        for item in spec.items:
            bad = _bad_leaf(item)
            if bad is not None:
                return bad
    return None


def map_in_axes(
    args: Sequence[ValueTree], in_axes: AxisSpec, axis: str, axis_size: Dim, labels: Sequence[str],
    kind: Kind = "vmap", kwargs: Sequence[ValueTree] = (), kwarg_labels: Sequence[str] = (),
    sized: bool = False,
) -> MappedArgs:
    """Each argument with its mapped dim removed and held as the named axis `axis`.

    `args` are the positional arguments as value trees (None where nothing is known), `kwargs`
    the keyword arguments' values; `labels` name the positional arguments, `kwarg_labels` the
    keyword ones; `sized` says axis_size was given, even where its value is unknown. A
    problem's operands index the positional arguments, then the keyword ones.
    After a size conflict the axis is CONFLICT in the body, so nothing there repeats it.
    """
    matches, structure = _top_level(args, in_axes, kind)
    if not matches:
        return MappedArgs(None, None, () if structure is None else (structure,))
    entries = in_axes.items if isinstance(in_axes, Entries) else (in_axes,) * len(args)
    walk = _Walk(axis, kind, len(args))
    body: list[ValueTree | Kept] = [
        KEPT if entry is None else walk.map(arg, entry, index, label_of(labels, index), "")
        for index, (arg, entry) in enumerate(zip(args, entries, strict=True))]
    # Keyword arguments are always mapped over their leading axis.
    kw_body = [walk.map(value, 0, len(args) + i, label_of(kwarg_labels, i), "") for i, value in enumerate(kwargs)]
    problems = list(walk.problems)
    # pmap checks axis_size against the mapped arguments only: alone it maps nothing.
    size, conflicts = mapped_size(walk.mapped, axis_size if kind == "vmap" or walk.mapped else None, kind)
    problems += conflicts
    sized = sized or axis_size is not None
    if not walk.maybe_mapped and not walk.problems and (not sized or kind == "pmap"):
        problems.append(_nothing_mapped(kind, sized))
    if isinstance(size, Conflict):
        # Reported once, here: inside the body the mapped axis has no size to echo, and the
        # argument blamed is unknown there (its shape there is the mistake).
        body = [item if isinstance(item, Kept) else _resize(item, axis) for item in body]
        kw_body = [_resize(item, axis) for item in kw_body]
        # No conflict of its own where an argument's size is already a conflict (the value
        # of a failed broadcast): reported where it was made.
        blamed = conflicts[0].operands[0] if conflicts else None
        if blamed is not None and blamed < len(body):
            body[blamed] = None
        elif blamed is not None:
            kw_body[blamed - len(body)] = None
    return MappedArgs(tuple(body), size, tuple(problems), tuple(kw_body))


def static_problem(static: Sequence[int], positional: int) -> Problem | None:
    """pmap's static_broadcasted_argnums must name positional arguments of the call (SC002)."""
    beyond = [n for n in static if n >= positional]
    if not beyond:
        return None
    return Problem(
        Code.INVALID_AXIS_SPEC,
        f"pmap: static_broadcasted_argnums names argument {beyond[0]}, but the call passes {positional} "
        f"positional argument{'' if positional == 1 else 's'}; static arguments must be passed positionally",
        axes=(beyond[0],), sizes=(positional,))


def label_of(labels: Sequence[str], index: int) -> str:
    return labels[index] if index < len(labels) else f"argument {index + 1}"


def _top_level(args: Sequence[ValueTree], in_axes: AxisSpec, kind: Kind) -> tuple[bool, Problem | None]:
    """Whether in_axes matches the tuple of positional arguments, and JAX's complaint if not (SC002)."""
    if not isinstance(in_axes, Entries):
        return True, None
    written = in_axes.text or in_axes.container
    if in_axes.container == "dict" and kind == "vmap":
        return False, None  # refused when the vmap is built: spec_problems
    if in_axes.container == "dict" or (in_axes.container == "list" and kind == "pmap"):
        return False, Problem(
            Code.INVALID_AXIS_SPEC,
            f"pmap: in_axes {written} is a {in_axes.container}, which never matches the tuple of positional "
            "arguments; write a tuple with one entry per positional argument", origin=in_axes.origin)
    count = len(in_axes.items)
    if count != len(args):
        return False, Problem(
            Code.INVALID_AXIS_SPEC,
            f"{kind}: in_axes {written} has {count} entr{'y' if count == 1 else 'ies'} but the call passes "
            f"{len(args)} positional argument{'' if len(args) == 1 else 's'}; in_axes must be an int, None, "
            "or a tuple with one entry per positional argument (keyword arguments are always mapped over "
            "axis 0)", sizes=(count, len(args)), origin=in_axes.origin)
    return True, None


def _nothing_mapped(kind: Kind, sized: bool) -> Problem:
    if kind == "pmap":
        detail = " (pmap does not take axis_size instead)" if sized else ""
        message = f"pmap: no argument is mapped: every in_axes entry is None{detail}; pmap needs at least one " \
            "array with a mapped axis"
    else:
        message = "vmap: no argument is mapped (every in_axes entry is None, or there is no argument) " \
            "and no axis_size is given, so the mapped size is unknown; map an argument or pass axis_size"
    return Problem(Code.INVALID_AXIS_SPEC, message)


class _Walk:
    """One pass over the arguments and their entries, collecting mapped sizes and problems."""

    def __init__(self, axis: str, kind: Kind, positional: int) -> None:
        self.axis = axis
        self.kind = kind
        self.positional = positional  # operands from here on are keyword arguments
        self.mapped: list[Mapped] = []
        self.problems: list[Problem] = []
        self.maybe_mapped = False  # some leaf may be mapped (an unknown value or entry)

    def map(self, arg: ValueTree, entry: AxisSpec, operand: int, label: str, path: str) -> ValueTree:
        if entry is None:
            return arg
        if isinstance(entry, Unread | BadLeaf):
            self.maybe_mapped = True
            return None
        if isinstance(entry, Entries):
            return self._map_container(arg, entry, operand, label, path)
        if arg is None:
            self.maybe_mapped = True
            return None
        if isinstance(arg, tuple):
            return tuple(self.map(item, entry, operand, label, f"{path}[{i}]") for i, item in enumerate(arg))
        if isinstance(arg, dict):
            return {key: self.map(item, entry, operand, label, f"{path}[{key!r}]") for key, item in arg.items()}
        self.maybe_mapped = True
        return self._map_array(arg, entry, operand, f"{label}{path}")

    def _map_container(self, arg: ValueTree, entry: Entries, operand: int, label: str, path: str) -> ValueTree:
        where = f"{label}{path}"
        if arg is None:
            self.maybe_mapped = True
            return None
        problem: str | None = None
        if isinstance(arg, ArrayType):
            problem = f"is an array, so its entry must be one int or None (one {self.kind} maps one axis; " \
                "nest two maps to map two)"
        elif isinstance(arg, tuple) and (entry.container == "dict" or len(entry.items) != len(arg)):
            problem = f"is a sequence of {len(arg)}, which the entry does not match"
        elif isinstance(arg, dict) and (entry.container != "dict" or sorted(entry.keys) != sorted(arg)):
            keys = ", ".join(repr(k) for k in sorted(arg))
            problem = f"is a dict with keys {keys}, which the entry does not match"
        if problem is not None:
            self.problems.append(Problem(
                Code.INVALID_AXIS_SPEC,
                f"{self.kind}: in_axes entry {entry.text or entry.container} for {where} is not a prefix of "
                f"it: {where} {problem}", origin=entry.origin))
            return None
        if isinstance(arg, tuple):
            return tuple(self.map(item, sub, operand, label, f"{path}[{i}]")
                         for i, (item, sub) in enumerate(zip(arg, entry.items, strict=True)))
        assert isinstance(arg, dict)
        subs = dict(zip(entry.keys, entry.items, strict=True))
        return {key: self.map(item, subs[key], operand, label, f"{path}[{key!r}]") for key, item in arg.items()}

    def _map_array(self, arg: ArrayType, entry: int, operand: int, where: str) -> ValueTree:
        if arg.ellipsis is not None:
            return ArrayType(arg.dtype, (), (*arg.named, (self.axis, None)), 0, True)
        rank = len(arg.dims)
        if not -rank <= entry < rank:
            self.problems.append(_axis_out_of_range(self.kind, where, entry, arg, operand,
                                                    operand >= self.positional))
            return None
        if self.kind == "pmap" and entry < 0:
            # pmap shards a negative axis as axis 0 but removes the negative one: not vmap's meaning.
            return None
        position = entry % rank
        self.mapped.append(Mapped(operand, where, entry, arg.dims[position]))
        named = dict(arg.named)
        named[self.axis] = arg.dims[position]
        return ArrayType(arg.dtype, arg.dims[:position] + arg.dims[position + 1:], tuple(named.items()), None,
                         arg.named_open)


def _axis_out_of_range(kind: Kind, where: str, entry: int, arg: ArrayType, operand: int, keyword: bool) -> Problem:
    rank = len(arg.dims)
    maps = f"{kind} maps axis {entry} of {where} (keyword arguments are always mapped over axis 0)" if keyword \
        else f"{kind}: in_axes maps axis {entry} of {where}"
    if rank == 0:
        fix = "pass it positionally with the in_axes entry None" if keyword else "give it the in_axes entry None"
        message = f"{maps}, a scalar (shape ()), which has no axis to map; {fix} to pass it unmapped to every " \
            "instance"
    else:
        message = f"{maps}, which has rank {rank} (shape {arg.positional_text()}): the axis must be in " \
            f"{-rank}..{rank - 1}"
    return Problem(Code.AXIS_OUT_OF_RANGE, message, axes=(entry,), operands=(operand,))


def _has_axis(tree: ValueTree, axis: str) -> bool:
    if isinstance(tree, ArrayType):
        return axis in tree.named_dict
    if isinstance(tree, tuple):
        return any(_has_axis(item, axis) for item in tree)
    if isinstance(tree, dict):
        return any(_has_axis(item, axis) for item in tree.values())
    return False


def _resize(tree: ValueTree, axis: str) -> ValueTree:
    """`tree` with the axis's size CONFLICT (unknown, and never reported again)."""
    if isinstance(tree, ArrayType):
        return tree.with_named((n, CONFLICT if n == axis else s) for n, s in tree.named)
    if isinstance(tree, tuple):
        return tuple(_resize(item, axis) for item in tree)
    if isinstance(tree, dict):
        return {key: _resize(item, axis) for key, item in tree.items()}
    return tree


def mapped_size(mapped: Sequence[Mapped], axis_size: Dim = None, kind: Kind = "vmap") -> tuple[Dim, list[Problem]]:
    """The mapped axis's size from each mapped array and `axis_size`.

    JAX refuses arrays whose mapped axes differ in size; after the first conflict the size is
    CONFLICT (unknown everywhere downstream), so the conflict is reported once. The problem's
    operands are the argument blamed and the one the other size came from.
    """
    size: Dim = axis_size
    source: Mapped | None = None  # what gave `size`; None: axis_size
    for item in mapped:
        if certainly_differ(size, item.size):
            where = "axis_size" if source is None else f"{source.label} (axis {source.axis})"
            return CONFLICT, [Problem(
                Code.NAMED_SIZE_MISMATCH, f"{kind}: the mapped axes differ in size: {format_dim(item.size)} in "
                f"{item.label} (axis {item.axis}) but {format_dim(size)} in {where}; every mapped "
                "argument needs the same size there",
                sizes=(item.size, size),
                operands=(item.operand,) if source is None else (item.operand, source.operand))]
        if not isinstance(size, int) and isinstance(item.size, int):
            source = item
        size = unify(size, item.size)
    return size, []


def place_out_axes(
    result: ValueTree, out_axes: AxisSpec, axis: str, size: Dim, kind: Kind = "vmap",
) -> tuple[ValueTree, list[Problem]]:
    """The body's result with the named axis `axis` put back where `out_axes` says.

    A result leaf without the axis is broadcast along it (`size`). A None leaf leaves the
    body's value: JAX refuses that for a vmap value that still has the axis (SC002), and pmap
    returns one device's value. The result never keeps `axis`.
    """
    problems: list[Problem] = []
    placed = _place(result, out_axes, axis, size, kind, problems)
    return placed, problems


def _place(result: ValueTree, spec: AxisSpec, axis: str, size: Dim, kind: Kind, problems: list[Problem]) -> ValueTree:
    if result is None or isinstance(spec, Unread | BadLeaf):
        return None
    if isinstance(spec, Entries):
        return _place_container(result, spec, axis, size, kind, problems)
    if isinstance(result, tuple):
        return tuple(_place(item, spec, axis, size, kind, problems) for item in result)
    if isinstance(result, dict):
        return {key: _place(item, spec, axis, size, kind, problems) for key, item in result.items()}
    if spec is None:
        if axis not in result.named_dict:
            return result
        if kind == "vmap":
            # The result depends on a mapped argument: batched along the axis, which out_axes
            # None does not place (JAX: "vmap has mapped output but out_axes is None").
            named = "" if is_invented(axis) else f" {axis!r}"
            problems.append(Problem(
                Code.INVALID_AXIS_SPEC,
                f"vmap: out_axes None returns the result unmapped, but it varies along the mapped "
                f"axis{named} (of size {format_dim(size)}): it depends on a mapped argument; "
                f"map it (out_axes=0){' or reduce it over the axis (jax.lax.psum(x, ' + repr(axis) + '))' if named else ''}",
                axes=(axis,), sizes=(size,)))
            return None
        return result.with_named((n, s) for n, s in result.named if n != axis)
    return _place_array(result, spec, axis, size, kind, problems)


def _place_container(result: ValueTree, spec: Entries, axis: str, size: Dim, kind: Kind,
                     problems: list[Problem]) -> ValueTree:
    what: str | None = None
    if isinstance(result, ArrayType):
        what = "an array"
    elif isinstance(result, tuple) and (spec.container == "dict" or len(spec.items) != len(result)):
        what = f"a sequence of {len(result)}"
    elif isinstance(result, dict) and (spec.container != "dict" or sorted(spec.keys) != sorted(result)):
        what = "a dict with keys " + ", ".join(repr(k) for k in sorted(result))
    if what is not None:
        problems.append(Problem(
            Code.INVALID_AXIS_SPEC,
            f"{kind}: out_axes {spec.text or spec.container} is not a prefix of the result, which is {what}",
            origin=spec.origin))
        return None
    if isinstance(result, tuple):
        return tuple(_place(item, sub, axis, size, kind, problems)
                     for item, sub in zip(result, spec.items, strict=True))
    assert isinstance(result, dict)
    subs = dict(zip(spec.keys, spec.items, strict=True))
    return {key: _place(item, subs[key], axis, size, kind, problems) for key, item in result.items()}


def _place_array(result: ArrayType, out_axis: int, axis: str, size: Dim, kind: Kind,
                 problems: list[Problem]) -> ArrayType | None:
    named = result.named_dict
    own = named.pop(axis, size)
    if result.ellipsis is not None:
        return ArrayType(result.dtype, (), tuple(named.items()), 0, result.named_open)
    rank = len(result.dims) + 1
    if not -rank <= out_axis < rank:
        problems.append(Problem(
            Code.AXIS_OUT_OF_RANGE,
            f"{kind}: out_axes {out_axis} is out of range for a result of rank {rank - 1} (shape "
            f"{result.positional_text()}): the mapped axis can go at {-rank}..{rank - 1}",
            axes=(out_axis,)))
        return None
    if kind == "pmap" and out_axis < 0:
        # pmap assembles a negative out_axes along axis 0: not vmap's meaning.
        return None
    dims = list(result.dims)
    dims.insert(out_axis % rank, own)
    return ArrayType(result.dtype, tuple(dims), tuple(named.items()), None, result.named_open)
