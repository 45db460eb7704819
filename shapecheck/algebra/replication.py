"""Replication inside `shard_map` (`check_vma=True`): which mesh axes a value varies over.

A value inside a shard_map body may differ between the devices along a mesh axis (it
"varies" over it) or be the same on all of them. JAX 0.10 tracks this statically: a value
varies over the mesh axes its arguments' in_specs split, and over `axis_index`'s axis; psum,
pmean, pmax and pmin over an axis make it the same along it; `all_gather`'s result varies over
the gathered axis even when its argument did not (`gathered`); other ops keep what their
inputs vary over. An out_spec must name every mesh axis its value varies over, since the
value it does not name is taken from one device as if all held it (SC207).

The body is analysed with each varying mesh axis as a named axis of the value (sized by the
mesh), hidden from annotations like vmap's axes: the named-axis algebra then carries the rule
(broadcasting joins names, named reductions such as `lax.psum(x, 'data')` remove them), and
these functions put the axes on at the arguments and take them off at the results.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from shapecheck.algebra.control_flow import Node, Tree
from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.partition_spec import PartitionSpec, Varying
from shapecheck.algebra.sharding_types import typeof
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.types import ArrayType


def vary(block: ArrayType, spec: PartitionSpec, manual: Mapping[str, int | None]) -> ArrayType:
    """The per-device block of an argument split as `spec` says, varying over the manual mesh
    axes (`manual`: name -> size) the spec splits it over."""
    axes = sorted(axis for axis in spec.axes() if axis in manual)
    if not axes:
        return block
    named = dict(block.named)
    named.update((axis, manual[axis]) for axis in axes)
    return block.with_named(named)


def gathered(value: ArrayType, axis: str, size: Dim) -> ArrayType:
    """`lax.all_gather`'s result over the manual mesh axis `axis` (of `size`): varying over it.

    Every device then holds the same data, yet JAX 0.10.2 types the result as varying over the
    gathered axis even when the argument was invariant (`float32[4]` gathers to
    `float32[2,4]{V:x}`), so `out_specs=P()` is refused (SC207), unlike after `psum`.
    """
    return value.with_named((*((n, s) for n, s in value.named if n != axis), (axis, size)))


def settle(value: ArrayType, manual: Mapping[str, int | None]) -> tuple[ArrayType, Varying]:
    """A body result without the mesh axes it varies over, and those axes.

    Only the axes certainly present count: an open named shape may vary over more, which is
    never reported.
    """
    varying = frozenset(name for name, _ in value.named if name in manual)
    if not varying:
        return value, Varying()
    return value.with_named((n, s) for n, s in value.named if n not in manual), Varying(varying)


def unreplicated(spec: PartitionSpec, varying: Varying, what: str) -> list[Problem]:
    """SC207: the mesh axes `varying` names that the out_spec `spec` does not.

    An out_spec with an entry the front end could not read may name any axis: nothing is
    reported for it.
    """
    if not spec.fully_known:
        return []
    missing = sorted(varying.axes - spec.axes())
    if not missing:
        return []
    listed = ", ".join(repr(axis) for axis in missing)
    axes_word = "mesh axis" if len(missing) == 1 else "mesh axes"
    reducer = f"lax.psum(..., {missing[0]!r})" if len(missing) == 1 else f"lax.psum(..., ({listed}))"
    return [Problem(
        Code.UNREPLICATED_OUTPUT,
        f"{what} varies over {axes_word} {listed}, but out_specs {spec.shown} does not name "
        f"{'it' if len(missing) == 1 else 'them'}: reduce it first ({reducer} or pmean/pmax/pmin), "
        f"or name {'it' if len(missing) == 1 else 'them'} in out_specs",
        axes=tuple(missing), origin=spec.origin)]


# ---------------------------------------------------------------- the varying type (check_vma)

def varying(value: ArrayType, manual: Iterable[str]) -> frozenset[str]:
    """The manual mesh axes `value` certainly varies over (its hidden named axes among them)."""
    axes = frozenset(manual)
    return frozenset(name for name, _ in value.named if name in axes)


def vma_text(axes: Iterable[str], order: Sequence[str] = ()) -> str:
    """The varying axes as `jax.typeof` prints them after the shape: `{V:X}`, `{V:(X,Y)}`, or
    nothing for a value that varies over no axis. `order` is the mesh's (JAX prints in it)."""
    listed = ordered(axes, order)
    if not listed:
        return ""
    return "{V:" + (listed[0] if len(listed) == 1 else "(" + ",".join(listed) + ")") + "}"


def ordered(axes: Iterable[str], order: Sequence[str] = ()) -> tuple[str, ...]:
    """`axes` in the mesh's order (those it does not list after, by name)."""
    rank = {name: index for index, name in enumerate(order)}
    return tuple(sorted(set(axes), key=lambda name: (rank.get(name, len(rank)), name)))


def axes_literal(axes: Sequence[str]) -> str:
    """A tuple of axis names as Python writes it: `('X',)`, `('X', 'Y')`."""
    return "(" + ", ".join(repr(axis) for axis in axes) + ("," if len(axes) == 1 else "") + ")"


def pcast_call(axes: Sequence[str], operand: str = "...") -> str:
    """The cast that makes a value vary over `axes`: `jax.lax.pcast(..., ('X',), to='varying')`."""
    return f"jax.lax.pcast({operand}, {axes_literal(axes)}, to='varying')"


def pcast(value: ArrayType, axes: Sequence[str], sizes: Mapping[str, Dim], checked: Sequence[str],
          shown: str) -> tuple[ArrayType, list[Problem]]:
    """`lax.pcast(x, axes, to='varying')`: `value` varying over `axes` too (`sizes`: each manual
    axis's size). Under check_vma (`checked`: the axes JAX tracks) an axis the value already
    varies over is SC210: JAX 0.10.2 raises `ValueError: Unsupported pcast from=varying,
    to='varying'`. `shown` is the argument as written."""
    already = [axis for axis in ordered(varying(value, checked), checked) if axis in axes]
    problems: list[Problem] = []
    if already:
        rest = [axis for axis in axes if axis not in already]
        advice = (f"{RECAST}{pcast_call(rest)}" if rest else f"{UNCAST}: it varies over "
                  f"{'them' if len(already) > 1 else 'it'} already")
        problems.append(Problem(
            Code.VARYING_AXES_MISMATCH,
            f"lax.pcast to 'varying' over {_axes_words(already)}, but `{shown}` already varies over "
            f"{'them' if len(already) > 1 else 'it'} ({typed(value, checked)}): JAX refuses a cast from varying to "
            f"varying; {advice}", axes=tuple(already)))
    named = dict(value.named)
    named.update((axis, named.get(axis, sizes.get(axis))) for axis in axes)
    return value.with_named(named), problems


def mixed_reduction(value: ArrayType, axes: Sequence[str], checked: Sequence[str], api: str,
                    shown: str) -> Problem | None:
    """SC210: `psum` or `pmean` over manual axes of which the value varies over some but not
    all (`pmax` and `pmin` take them). JAX 0.10.2 reduces either the axes a value varies over or those it does not
    ("ValueError: jax.lax.psum can only accept axis_name which corresponds to one of varying,
    unreduced, reduced or invarying state of the input"); casting it to vary over the others first
    gives the same sum."""
    if value.named_open:
        return None  # it may vary over the others too
    vary = varying(value, checked)
    named = [axis for axis in axes if axis in checked]
    over = ordered((a for a in named if a in vary), checked)
    not_over = ordered((a for a in named if a not in vary), checked)
    if not over or not not_over:
        return None
    listed = ", ".join(repr(axis) for axis in named)
    return Problem(
        Code.VARYING_AXES_MISMATCH,
        f"{api} over mesh axes {listed}, but `{shown}` varies over {', '.join(map(repr, over))} and not over "
        f"{', '.join(map(repr, not_over))} ({typed(value, checked)}): JAX reduces over the axes a value varies "
        f"over or over those it does not, never both at once; make it vary over all of them first, cast it: "
        f"{pcast_call(not_over)}", axes=not_over)


def typed(value: ArrayType, order: Sequence[str]) -> str:
    """`value` as `jax.typeof` prints it in a shard_map body: `float32[4,4]{V:(X,Y)}`."""
    return typeof(value.with_sharding(None)) + vma_text(varying(value, order), order)


@dataclass(frozen=True, slots=True)
class VaryingMismatch:
    """One leaf of two pytrees (a carry before and after a loop's body, or two branches'
    outputs) whose varying manual axes certainly differ. `keys` lead to it from the root."""

    path: str
    keys: tuple[str | int, ...]
    first: ArrayType
    second: ArrayType
    gained: tuple[str, ...]  # axes the second varies over and the first does not
    lost: tuple[str, ...]  # axes the first varies over and the second does not


def varying_mismatches(first: Tree, second: Tree, path: str, checked: Sequence[str],
                       keys: tuple[str | int, ...] = ()) -> list[VaryingMismatch]:
    """Where two pytrees of the same structure certainly vary over different manual axes
    (`checked`, in mesh order). An open named shape may vary over more: only its certain axes
    count against a closed one."""
    if isinstance(first, ArrayType) and isinstance(second, ArrayType):
        a, b = varying(first, checked), varying(second, checked)
        gained = ordered(b - a, checked) if not first.named_open else ()
        lost = ordered(a - b, checked) if not second.named_open else ()
        return [VaryingMismatch(path, keys, first, second, gained, lost)] if gained or lost else []
    if isinstance(first, Node) and isinstance(second, Node) and first.kind == second.kind \
            and set(first.keys) == set(second.keys):
        others = dict(zip(second.keys, second.items, strict=True))
        return [found for key, item in zip(first.keys, first.items, strict=True)
                for found in varying_mismatches(item, others[key], first.member(path, key), checked, (*keys, key))]
    return []


def _axes_words(axes: Sequence[str]) -> str:
    if not axes:
        return "no mesh axis"
    listed = ", ".join(repr(axis) for axis in axes)
    return f"mesh axis {listed}" if len(axes) == 1 else f"mesh axes {listed}"


def carry_problem(api: str, mismatch: VaryingMismatch, checked: Sequence[str], *, exact: bool) -> Problem:
    """SC210: a loop carry whose varying manual axes the body changes (JAX's TypeError: "carry
    input and carry output must have equal types ... the manual axis types do not match").

    A body that adds axes is fixed at the initial carry, cast to vary over them from the start;
    one that removes axes (a psum of the carry) where the body returns it, cast back. `exact`:
    the problem is reported at that very value (the fix casts it), not at a pytree around it."""
    before, after = varying(mismatch.first, checked), varying(mismatch.second, checked)
    head = (f"{api} carry `{mismatch.path}` varies over {_axes_words(ordered(before, checked))} on entry "
            f"({typed(mismatch.first, checked)}) but over {_axes_words(ordered(after, checked))} after the body "
            f"({typed(mismatch.second, checked)}); JAX requires a carry to keep its varying manual axes")
    if mismatch.gained:
        axes = mismatch.gained
        what = "it" if exact else f"the initial value of `{mismatch.path}`"
        fix = f"start it varying over {'it' if len(axes) == 1 else 'them'}, cast {what}: {pcast_call(axes)}"
    else:
        axes = mismatch.lost
        what = "it" if exact else f"the `{mismatch.path}` the body returns"
        fix = f"the body makes it invariant there, cast {what} back: {pcast_call(axes)}"
    return Problem(Code.VARYING_AXES_MISMATCH, f"{head}: {fix}", axes=axes)


def branch_problem(api: str, names: tuple[str, str], mismatch: VaryingMismatch, missing: Sequence[str],
                   checked: Sequence[str], *, exact: bool) -> Problem:
    """SC210: two branches of a `cond`/`switch` whose outputs vary over different manual axes
    (JAX's TypeError: "branches must have equal output types ... the manual axis types do not
    match"). The branch `names[1]` lacks `missing`, and casting its output to vary over them fixes
    it; `exact`: the problem is reported at that output's very value."""
    where = "the output" if mismatch.path == "output" else f"`{mismatch.path}`"
    first, second = varying(mismatch.first, checked), varying(mismatch.second, checked)
    what = "it" if exact else f"{where} of {names[1]}"
    return Problem(
        Code.VARYING_AXES_MISMATCH,
        f"{api} branches must return equal types, but {where} varies over {_axes_words(ordered(first, checked))} "
        f"from {names[0]} ({typed(mismatch.first, checked)}) and over {_axes_words(ordered(second, checked))} "
        f"from {names[1]} ({typed(mismatch.second, checked)}): make {names[1]}'s vary over "
        f"{'it' if len(missing) == 1 else 'them'} too, cast {what}: {pcast_call(missing)}", axes=tuple(missing))


RECAST: Final = "cast over the others only: "
"""An SC210 message on a `pcast` over axes some of which its value varies over already ends with
this and the cast to write instead (`UNCAST` where none is left to cast over)."""
UNCAST: Final = "drop the pcast"

FIXABLE: Final = re.compile(r"cast it(?: back)?: jax\.lax\.pcast\(\.\.\., \(([^()]*)\), to='varying'\)$")
"""What an SC210 message ends with when it is reported at the very value to cast: the axes."""
