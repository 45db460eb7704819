"""in_axes/out_axes at run time: parsed by the checker's own parser, matched against real pytrees.

The algebra (`apply_in_axes`/`apply_out_axes`) decides what is wrong, with the same messages
the static checker prints; this module adds what only the runtime needs: which mapping each
flattened leaf gets, in JAX's leaf order, and the per-vmap-level axis positions.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from shapecheck.algebra.axis_mapping import (
    AxisMapping,
    SpecContainer,
    SpecTree,
    ValueTree,
    parse_axis_spec,
)
from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.xmap_options import (
    defined_axes,
    read_axis_resources,
    read_axis_sizes,
    undefined_axes,
)
from shapecheck.codes import Code
from shapecheck.dtypes import NUMPY_NAMES
from shapecheck.literal import Lit, from_value
from shapecheck.runtime.errors import NamedAxisError, raise_problems
from shapecheck.types import ArrayType


@dataclass(frozen=True, slots=True)
class Options:
    """xmap's in_axes, out_axes, axis_sizes and axis_resources, read and checked."""

    in_spec: SpecTree
    out_spec: SpecTree
    axis_sizes: dict[str, int]
    resources: dict[str, tuple[str, ...]]
    defined: tuple[str, ...]  # in order of first mention: the vmap nesting order, outermost first

    @staticmethod
    def read(in_axes: object, out_axes: object, axis_sizes: object, axis_resources: object) -> Options:
        """Every SC002 the static checker would report for these values, raised at once."""
        problems: list[Problem] = []
        in_spec = _parse(in_axes, "in_axes", problems)
        out_spec = _parse(out_axes, "out_axes", problems)
        sizes = read_axis_sizes(literal(axis_sizes), concrete=True)
        resources = read_axis_resources(literal(axis_resources), concrete=True)
        problems += [*sizes.problems, *resources.problems]
        if in_spec is not None:
            problems += undefined_axes(in_spec, out_spec, sizes.sizes, resources.resources)
        raise_problems(problems)
        assert in_spec is not None and out_spec is not None  # else a problem was raised
        # concrete=True leaves no unknown size: every one is an int or a problem raised above.
        known = {name: size for name, size in sizes.sizes.items() if size is not None}
        return Options(in_spec, out_spec, known, resources.resources,
                       tuple(defined_axes(in_spec, known)))


def literal(value: object) -> Lit:
    """A run-time argument as the literal tree the checker reads (numpy ints are ints)."""
    return from_value(_plain(value))


def _plain(value: object) -> object:
    if isinstance(value, Mapping):
        return {_plain(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return value


def _parse(raw: object, what: str, problems: list[Problem]) -> SpecTree | None:
    """The spec tree of a user's in_axes/out_axes value; malformed specs are SC002 problems."""
    tree, found = parse_axis_spec(literal(raw), what)
    problems += found
    if tree is None and not found:
        # The checker is silent on what it cannot read; a run-time value is certainly wrong here.
        problems.append(Problem(Code.INVALID_AXIS_SPEC, f"{what}: `{literal(raw).describe()}` is not an axis mapping "
                                "or a container of them"))
    return tree


def dtype_name(dtype: Any) -> str | None:
    return NUMPY_NAMES.get(np.dtype(dtype).name)


def array_type(value: Any, named: dict[str, int] | None = None) -> ArrayType:
    """The checker's type of a concrete or traced array (its shape is the positional part)."""
    import jax

    aval = jax.typeof(value)
    typed = ArrayType.of(dtype_name(aval.dtype), tuple(int(d) for d in aval.shape), named or {})
    # A value from Python numbers is weakly typed: it adapts to the dtype it meets (SC301).
    return replace(typed, weak=True) if getattr(aval, "weak_type", False) else typed


def value_tree(value: Any) -> ValueTree:
    """A pytree of arrays (or of ArrayTypes) as the algebra's value tree (tuples, str-keyed dicts, ArrayTypes)."""
    if isinstance(value, list | tuple):
        return tuple(value_tree(item) for item in value)
    if isinstance(value, dict):
        return {str(key): value_tree(item) for key, item in value.items()}
    if value is None or isinstance(value, ArrayType):
        return value
    if hasattr(value, "shape") or isinstance(value, int | float | complex | bool):
        return array_type(value)
    return None  # a custom pytree node: the algebra says nothing certain about it


def leaf_mappings(spec: SpecTree, value: Any, what: str) -> list[tuple[AxisMapping, str]]:
    """The mapping of every leaf of `value`, in the order `jax.tree_util` flattens it."""
    import jax

    out: list[tuple[AxisMapping, str]] = []

    def walk(spec: SpecTree, value: Any, where: str) -> None:
        if isinstance(spec, AxisMapping):
            out.extend([(spec, where)] * len(jax.tree_util.tree_leaves(value)))
            return
        if isinstance(spec, SpecContainer) and spec.keys is not None and isinstance(value, dict):
            by_key = dict(zip(spec.keys, spec.items, strict=True))
            if set(by_key) == {str(k) for k in value}:
                # JAX flattens dicts in sorted key order; follow it so leaves line up.
                for key in sorted(value):
                    walk(by_key[str(key)], value[key], f"{where}[{key!r}]")
                return
        elif isinstance(value, list | tuple) and len(value) == len(spec.items):
            for index, (item, sub) in enumerate(zip(spec.items, value, strict=True)):
                walk(item, sub, f"{where}[{index}]")
            return
        raise NamedAxisError(Code.INVALID_AXIS_SPEC, f"xmap {where} does not match the structure of the value "
                             f"({type(value).__name__})")

    walk(spec, value, what)
    return out


def level_in_axis(mapping: AxisMapping, name: str, outer: Sequence[str]) -> int | None:
    """Where `name`'s dim sits once the vmap levels in `outer` have removed their dims."""
    positions = dict((n, p) for p, n in mapping.entries)
    if name not in positions:
        return None
    mine = positions[name]
    return mine - sum(1 for n in outer if n in positions and positions[n] < mine)


def level_out_axis(mapping: AxisMapping, name: str, outer: Sequence[str]) -> int | None:
    """Where the vmap level of `name` inserts its dim so that it lands at its out_axes position.

    Levels insert from the innermost out; the outer levels' dims are not there yet, so the
    position is the final one less the outer names placed before it.
    """
    return level_in_axis(mapping, name, outer)
