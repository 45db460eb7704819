"""Loop carries and branch outputs: `lax.scan`, `fori_loop`, `while_loop`, `cond`, `switch`.

JAX traces a loop's body and requires the carry it returns to have the pytree structure and the
types (shape and dtype; the weak flag aside) of the carry it was given, and the branches of a
`cond` or `switch` to return equal types; it raises a TypeError otherwise. A weakly typed
initial carry (a Python scalar) whose dtype the body changes is first promoted (`promoted`) and
the body traced again, once: the check is on that second trace. `scan` slices its `xs` along their leading axis, whose sizes must
agree (and agree with `length=`, a ValueError otherwise), and stacks its `ys` along a new one.

Values are pytrees (`Tree`): arrays, nodes (tuples, lists, dicts, None, other registered
classes) and None for what is not known, which is never reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, TypeAlias

from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.promotion import (
    Typed,
    as_shown,
    dtypes_differ,
    possible_dtypes,
    result_type,
)
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim, unify
from shapecheck.dtypes import KINDS
from shapecheck.types import ArrayType


@dataclass(frozen=True, slots=True)
class Node:
    """A pytree node: `kind` is `tuple`, `list`, `dict`, `None` or a class's name; `keys` are the
    members' indices, dict keys or (`fields`) attribute names, in order."""

    kind: str
    keys: tuple[str | int, ...] = ()
    items: tuple[Tree, ...] = ()
    fields: bool = False  # members are read as attributes (`c.h`), not subscripts

    def member(self, path: str, key: str | int) -> str:
        if self.fields:
            return f"{path}.{key}"
        return f"{path}[{key!r}]" if self.kind == "dict" else f"{path}[{key}]"

    def describe(self) -> str:
        if self.kind == "None":
            return "None"
        if self.kind in ("tuple", "list"):
            return f"a {self.kind} of {len(self.items)}"
        if self.kind == "dict":
            return "a dict with keys " + ", ".join(repr(k) for k in sorted(self.keys, key=repr)) if self.keys \
                else "an empty dict"
        return f"a {self.kind}"


Tree: TypeAlias = "ArrayType | Node | None"
"""A pytree of array types; None where nothing is known."""

NONE: Final = Node("None")


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One member where two pytrees certainly differ, as a message shows both sides."""

    path: str
    first: str
    second: str
    structural: bool  # the pytree structure differs there, not a leaf's type


def mismatches(first: Tree, second: Tree, path: str, x64: bool | None = None) -> list[Mismatch]:
    """Where `first` and `second` certainly differ, outermost members first."""
    if first is None or second is None:
        return []
    if isinstance(first, ArrayType) and isinstance(second, ArrayType):
        if _shapes_differ(first, second) or _dtypes_differ(first, second, x64):
            return [Mismatch(path, describe(first, x64), describe(second, x64), False)]
        return []
    if isinstance(first, Node) and isinstance(second, Node) and _same_structure(first, second):
        found: list[Mismatch] = []
        others = dict(zip(second.keys, second.items, strict=True))
        for key, item in zip(first.keys, first.items, strict=True):
            found += mismatches(item, others[key], first.member(path, key), x64)
        return found
    return [Mismatch(path, describe(first, x64), describe(second, x64), True)]


def describe(tree: Tree, x64: bool | None = None) -> str:
    """A member's type or structure as messages show it (`f32[(8, 16)]`, `a tuple of 2`)."""
    if tree is None:
        return "unknown"
    if isinstance(tree, Node):
        return tree.describe()
    shown = str(as_shown(tree, x64))
    return f"weakly typed {shown}" if tree.weak and tree.dtype != "bool_" else shown


_ADVICE: Final = "return it as it came in, or start the loop with what the body makes"


def carry_problems(api: str, first: Tree, second: Tree, path: str, x64: bool | None = None,
                   advice: str = _ADVICE) -> list[Problem]:
    """SC103 where a loop's carry (`first` on entry, after `promoted`) leaves its body as
    `second`: one problem, naming the first member that changed, and what to do (`advice`)."""
    found = mismatches(first, second, path, x64)
    if not found:
        return []
    head = found[0]
    verb = "is" if head.structural else "has type"
    more = f" (and {len(found) - 1} more member{'s' if len(found) > 2 else ''})" if len(found) > 1 else ""
    return [Problem(Code.ANNOTATION_MISMATCH,
                    f"{api} carry `{head.path}` {verb} {head.first} on entry but {head.second} after the body"
                    f"{more}; JAX requires a carry to keep its type ({advice})")]


def branch_problems(api: str, names: tuple[str, str], first: Tree, second: Tree,
                    x64: bool | None = None) -> list[Problem]:
    """SC103 where two branches of a `cond`/`switch` (named `names`) return different pytrees."""
    found = mismatches(first, second, "output", x64)
    if not found:
        return []
    head = found[0]
    verb = "is" if head.structural else "has type"
    where = "the output" if head.path == "output" else f"`{head.path}`"
    more = f" (and {len(found) - 1} more member{'s' if len(found) > 2 else ''})" if len(found) > 1 else ""
    return [Problem(Code.ANNOTATION_MISMATCH,
                    f"{api} branches must return equal types, but {where} {verb} {head.first} from {names[0]} "
                    f"and {head.second} from {names[1]}{more}")]


def promoted(carry: Tree, returned: Tree, x64: bool | None = None) -> Tree:
    """The initial carry JAX traces the body with again when its weakly typed leaves certainly
    differ in dtype from what the body returned: each such leaf has `result_type` of the two
    (`carry` itself when none does; then the body is not traced again)."""
    if isinstance(carry, ArrayType) and isinstance(returned, ArrayType):
        if not carry.weak or not _dtypes_differ(carry, returned, x64):
            return carry
        result = result_type(Typed(carry.dtype, True), Typed(returned.dtype, returned.weak))
        return replace(carry, dtype=result.dtype, weak=result.weak)
    if isinstance(carry, Node) and isinstance(returned, Node) and _same_structure(carry, returned):
        others = dict(zip(returned.keys, returned.items, strict=True))
        return replace(carry, items=tuple(promoted(item, others[key], x64)
                                          for key, item in zip(carry.keys, carry.items, strict=True)))
    return carry


def settled(first: Tree, second: Tree) -> Tree:
    """What is known of a value that has both types: a loop's carry (its type on entry and after
    the body) or a conditional's output (two branches'), once JAX has accepted them as equal.

    Each side may know what the other does not; a weak leaf takes the other's dtype (a promoted
    initial carry, a Python scalar against an array); named axes are the union (a carry a map's
    body makes batched stays batched)."""
    if first is None:
        return second
    if second is None:
        return first
    if isinstance(first, ArrayType) and isinstance(second, ArrayType):
        return _meet(first, second)
    if isinstance(first, Node) and isinstance(second, Node) and _same_structure(first, second):
        others = dict(zip(second.keys, second.items, strict=True))
        return replace(first, items=tuple(settled(item, others[key]) for key, item in zip(first.keys, first.items,
                                                                                              strict=True)))
    return first


def leaves(tree: Tree, path: str) -> list[tuple[str, Tree]]:
    """Every leaf of `tree` with its path (an unknown subtree is one unknown leaf)."""
    if isinstance(tree, Node):
        return [leaf for key, item in zip(tree.keys, tree.items, strict=True)
                for leaf in leaves(item, tree.member(path, key))]
    return [(path, tree)]


# ---------------------------------------------------------------- scan's xs and ys

def sliced(value: ArrayType) -> tuple[ArrayType | None, Dim]:
    """One slice of a scanned leaf along its leading axis, and that axis's size; (None, None)
    when the leaf has no positional dim (`leading_problem`)."""
    if value.ellipsis is None:
        if not value.dims:
            return None, None
        return value.with_dims(value.dims[1:]), value.dims[0]
    if value.ellipsis == 0:
        # `(..., 3)` may be `(3,)`, whose slice is `()`: nothing of the slice's rank is known.
        return value.with_dims((), 0), None
    return value.with_dims(value.dims[1:], value.ellipsis - 1), value.dims[0]


def leading_problem(api: str, path: str, value: ArrayType) -> Problem | None:
    """SC106 for a scanned leaf with no positional dim (JAX fails indexing its shape)."""
    if value.ellipsis is None and not value.dims:
        return Problem(Code.AXIS_OUT_OF_RANGE,
                       f"{api} scans over the leading axis of `{path}`, which has no positional dims "
                       f"({describe(value)}); give it one, or pass it in the carry or close over it",
                       axes=(0,))
    return None


def stacked(value: ArrayType, length: Dim) -> ArrayType:
    """`ys` leaf of a scan: a new leading dim of the scan's length."""
    ellipsis = None if value.ellipsis is None else value.ellipsis + 1
    return value.with_dims((length, *value.dims), ellipsis)


def scan_length(api: str, leading: Sequence[tuple[str, Dim]], length: Dim,
                length_given: bool) -> tuple[Dim, list[Problem]]:
    """The number of iterations: the leading sizes of the scanned leaves (`(path, size)`) and
    `length=`, which must all agree (SC102; JAX raises a ValueError). Problems blame operand 0
    (xs) or 1 (length)."""
    size: Dim = None
    first = leading[0][0] if leading else ""
    for path, dim in leading:
        if certainly_differ(size, dim):
            return size, [Problem(
                Code.NAMED_SIZE_MISMATCH,
                f"{api} scans `{first}` and `{path}` together, but their leading axes have sizes "
                f"{format_dim(size)} and {format_dim(dim)}", sizes=(size, dim), operands=(0,))]
        if unify(size, dim) != size:
            size, first = unify(size, dim), path
    if not length_given:
        return size, []
    if certainly_differ(length, size):
        return size, [Problem(
            Code.NAMED_SIZE_MISMATCH,
            f"{api} is given length={format_dim(length)} but scans `{first}`, whose leading axis has size "
            f"{format_dim(size)}", sizes=(length, size), operands=(1,))]
    return unify(size, length), []


# ---------------------------------------------------------------- scalars the APIs demand

PRED_KINDS: Final = frozenset("biuf")  # cond's pred: a bool or a number compared with 0
INDEX_KINDS: Final = frozenset("iu")  # switch's index
BOOL_KIND: Final = frozenset("b")  # while_loop's cond_fun result


def scalar_problem(what: str, value: ArrayType, kinds: frozenset[str], x64: bool | None = None) -> Problem | None:
    """SC103 when `value` is certainly not a scalar of one of `kinds` (numpy kind letters)."""
    if value.dims:  # at least one positional dim, whatever `...` stands for
        return Problem(Code.ANNOTATION_MISMATCH, f"{what} must be a scalar, but has type {describe(value, x64)}")
    possible = possible_dtypes(Typed(value.dtype), x64)
    if possible is not None and not any(KINDS[d][0] in kinds for d in possible if d in KINDS):
        wanted = {"b": "a bool", "iu": "an integer"}.get("".join(sorted(kinds)), "a bool or a number")
        return Problem(Code.ANNOTATION_MISMATCH,
                       f"{what} must be {wanted} scalar, but has type {describe(value, x64)}")
    return None


# ---------------------------------------------------------------- comparing leaves

def _same_structure(first: Node, second: Node) -> bool:
    if first.kind != second.kind or len(first.keys) != len(second.keys):
        return False
    # JAX flattens a dict by its sorted keys: insertion order never matters.
    return set(first.keys) == set(second.keys) if first.kind == "dict" else first.keys == second.keys


def _shapes_differ(a: ArrayType, b: ArrayType) -> bool:
    if a.ellipsis is None and b.ellipsis is None:
        return len(a.dims) != len(b.dims) or any(certainly_differ(x, y) for x, y in zip(a.dims, b.dims, strict=True))
    # With `...` only a lower bound of the rank is known.
    return any(exact.ellipsis is None and other.ellipsis is not None and len(other.dims) > len(exact.dims)
               for exact, other in ((a, b), (b, a)))


def _dtypes_differ(a: ArrayType, b: ArrayType, x64: bool | None) -> bool:
    # A weak value is traced at its default width (a Python float is f32, f64 with x64), and
    # JAX's comparison ignores the weak flag itself.
    return dtypes_differ(Typed(a.dtype), Typed(b.dtype), x64)


def _meet(a: ArrayType, b: ArrayType) -> ArrayType:
    if a.ellipsis is None and b.ellipsis is None and len(a.dims) == len(b.dims):
        dims: tuple[Dim, ...] = tuple(unify(x, y) for x, y in zip(a.dims, b.dims, strict=True))
        ellipsis = None
    elif a.ellipsis is None or b.ellipsis is not None:
        dims, ellipsis = a.dims, a.ellipsis
    else:
        dims, ellipsis = b.dims, b.ellipsis
    dtype = a.dtype
    if dtype is None or (a.weak and not b.weak and b.dtype is not None):
        dtype = b.dtype
    named = dict(b.named)
    named.update({name: unify(size, named.get(name)) for name, size in a.named})
    return ArrayType(dtype, dims, tuple(named.items()), ellipsis, a.named_open or b.named_open, a.weak and b.weak)
