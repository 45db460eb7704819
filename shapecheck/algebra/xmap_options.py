"""xmap's `axis_sizes` and `axis_resources`, and which axes a definition may name (SC002).

The analyzer hands these functions the literal syntax it read (with what its interpreter knows
of names folded in); the runtime hands them its arguments through `literal.from_value` with
`concrete=True`, because at run time every value is known and anything outside the language
is certainly wrong. Both report the problems returned here, so each rule has one message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from shapecheck.algebra.axis_mapping import SpecTree, spec_names
from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.literal import Kind, Lit

# What a front end could not evaluate (a parameter, a call): it may be any value.
_UNKNOWN = (Kind.NAME, Kind.OTHER)


@dataclass(frozen=True, slots=True)
class AxisSizes:
    """The sizes an `axis_sizes` argument gives; None where a size is not known statically."""

    sizes: dict[str, int | None] = field(default_factory=dict)
    origins: dict[str, object] = field(default_factory=dict)  # the size's node, for notes
    complete: bool = True  # False when an unknown key may define any axis
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True, slots=True)
class AxisResources:
    """Named axis -> the mesh axes it is partitioned over, from an `axis_resources` argument."""

    resources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    origins: dict[str, object] = field(default_factory=dict)  # the entry's value node
    problems: tuple[Problem, ...] = ()


def read_axis_sizes(node: Lit | None, *, concrete: bool = False) -> AxisSizes:
    """`{name: size}` with string names and non-negative int sizes; anything else is SC002."""
    if node is None or node.kind is Kind.NONE:
        return AxisSizes()
    if node.kind is not Kind.DICT:
        return AxisSizes(complete=False, problems=_not_a_dict(node, "axis_sizes", concrete))
    sizes: dict[str, int | None] = {}
    origins: dict[str, object] = {}
    problems: list[Problem] = []
    complete = True
    for key, size in node.pairs:
        name = _axis_name(key, "axis_sizes", concrete, problems)
        if name is None:
            complete = False
            continue
        if size.kind is Kind.INT and isinstance(size.value, int) and size.value >= 0:
            sizes[name] = size.value
        elif size.kind in _UNKNOWN and not concrete:
            sizes[name] = None
        else:
            problems.append(Problem(
                Code.INVALID_AXIS_SPEC, f"axis_sizes[{name!r}] must be a non-negative int; got {size.describe()}",
                axes=(name,), origin=size.origin))
            continue
        origins[name] = size.origin
    return AxisSizes(sizes, origins, complete, tuple(problems))


def read_axis_resources(node: Lit | None, *, concrete: bool = False) -> AxisResources:
    """`{name: mesh_axis}` or `{name: (mesh_axis, ...)}` with string names; else SC002."""
    if node is None or node.kind is Kind.NONE:
        return AxisResources()
    if node.kind is not Kind.DICT:
        return AxisResources(problems=_not_a_dict(node, "axis_resources", concrete))
    resources: dict[str, tuple[str, ...]] = {}
    origins: dict[str, object] = {}
    problems: list[Problem] = []
    for key, target in node.pairs:
        name = _axis_name(key, "axis_resources", concrete, problems)
        if name is None:
            continue
        targets = target.items if target.kind in (Kind.TUPLE, Kind.LIST) else (target,)
        if all(item.kind is Kind.STR for item in targets):
            resources[name] = tuple(str(item.value) for item in targets)
            origins[name] = target.origin
        elif concrete or any(item.kind not in _UNKNOWN for item in targets if item.kind is not Kind.STR):
            problems.append(Problem(
                Code.INVALID_AXIS_SPEC, f"axis_resources[{name!r}] must be a mesh axis name or a tuple of them; "
                f"got {target.describe()}", axes=(name,), origin=target.origin))
    return AxisResources(resources, origins, tuple(problems))


def defined_axes(in_tree: SpecTree | None, axis_sizes: Iterable[str]) -> list[str]:
    """The axes an xmap defines, in order of first mention: in_axes names, then axis_sizes keys."""
    order: list[str] = []
    for name, _ in spec_names(in_tree):
        if name not in order:
            order.append(name)
    return order + [name for name in axis_sizes if name not in order]


def undefined_axes(in_tree: SpecTree, out_tree: SpecTree | None, axis_sizes: Iterable[str],
                   resources: Mapping[str, object]) -> list[Problem]:
    """SC002: out_axes names and axis_resources keys must be axes in_axes or axis_sizes define.

    `resources` maps each axis_resources key to its node (the problem's origin).
    """
    defined = defined_axes(in_tree, axis_sizes)
    known = ", ".join(repr(name) for name in sorted(defined)) or "none"
    problems: list[Problem] = []
    for name, mapping in spec_names(out_tree):
        if name not in defined:
            problems.append(Problem(
                Code.INVALID_AXIS_SPEC, f"out_axes uses axis {name!r}, which neither in_axes nor axis_sizes defines "
                f"(defined: {known})", axes=(name,), origin=mapping.origin))
    for name, origin in resources.items():
        if name not in defined:
            problems.append(Problem(
                Code.INVALID_AXIS_SPEC, f"axis_resources maps {name!r}, which neither in_axes nor axis_sizes defines "
                f"(defined: {known})", axes=(name,), origin=origin))
    return problems


def _axis_name(key: Lit, what: str, concrete: bool, problems: list[Problem]) -> str | None:
    """The axis name a key gives; a key that is certainly not a string is SC002."""
    if key.kind is Kind.STR:
        return str(key.value)
    if concrete or key.kind not in _UNKNOWN:
        problems.append(Problem(Code.INVALID_AXIS_SPEC, f"{what}: axis name `{key.describe()}` must be a string",
                                origin=key.origin))
    return None


def _not_a_dict(node: Lit, what: str, concrete: bool) -> tuple[Problem, ...]:
    if node.kind in _UNKNOWN and not concrete:
        return ()
    return (Problem(Code.INVALID_AXIS_SPEC, f"{what} must be a dict from axis names; got {node.describe()}",
                    origin=node.origin),)
