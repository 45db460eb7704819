"""`x[...]`: indexing with ints, slices, None, `...`, integer arrays and boolean masks.

NumPy's rules, as JAX follows them (checked against JAX 0.10.2): basic items (ints, slices,
None, `...`) index one dim each, or none; integer arrays and masks are advanced indices, and so
are ints in an index that holds an array. The shapes of the advanced indices broadcast together
(a mask counts as the one-dim array of its true positions, of a length known only at run time);
the broadcast dims replace the dims they index where the advanced indices are adjacent, and come
first where a slice, None or `...` separates them.

Where JAX departs from NumPy: an int beyond a non-empty axis is clamped, never an error (only an
empty axis refuses every int: IndexError), and an array index is never checked against the axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shapecheck.algebra.broadcast import broadcast, union_named
from shapecheck.algebra.outcome import Outcome, Problem, label
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim, product
from shapecheck.types import ArrayType


@dataclass(frozen=True, slots=True)
class Slice:
    """A slice in an index; None bounds are omitted ones, `unknown` marks non-literal bounds."""

    start: int | None = None
    stop: int | None = None
    step: int | None = None
    unknown: bool = False


class NewAxis:
    """`None` in an index."""


class Ellipsis_:
    """`...` in an index."""


class Opaque:
    """An index item the checker cannot read (a variable, an array of unknown dtype)."""


@dataclass(frozen=True, slots=True)
class ArrayIndex:
    """An array in an index: integers pick along one dim; a boolean `mask` covers as many dims as
    it has and keeps the elements where it is true."""

    index: ArrayType
    mask: bool = False


@dataclass(frozen=True, slots=True)
class UntypedArray:
    """An array of unknown dtype in an index: integers, or a boolean mask (`index` decides)."""

    index: ArrayType


@dataclass(frozen=True, slots=True)
class InexactIndex:
    """A float or complex array, or a Python float, in an index: JAX refuses it ("Indexer must
    have integer or boolean type"), where NumPy's own arrays would refuse it too."""

    dtype: str  # as a message names it: `float32`, `a Python float`


NEW_AXIS = NewAxis()
ELLIPSIS = Ellipsis_()
OPAQUE = Opaque()
IndexItem = int | Slice | NewAxis | Ellipsis_ | Opaque | ArrayIndex | UntypedArray | InexactIndex


def _resolved(value: ArrayType, items: Sequence[IndexItem]) -> list[IndexItem]:
    """`items` with each array of unknown dtype read as integers where it cannot be a mask.

    A mask must have the shape of the dims it covers; an array whose shape cannot be that (more
    dims than remain, or a known size unlike the dim's) is either integers or an error at run
    time (IndexError for a misfit mask, TypeError for floats), and a program that fails there
    is not one a report after it could wrong. Otherwise it stays unread: a mask and integers
    give different shapes."""
    resolved: list[IndexItem] = []
    position: int | None = 0  # the dim the next item starts at; None once it is not known
    for item in items:
        if isinstance(item, UntypedArray):
            covered = len(item.index.dims)
            # An empty array runs as a mask of any shape (JAX and NumPy take it as no index at
            # all), covering as many dims as it has: read as integers only with one dim.
            fits = (position is None or item.index.ellipsis is not None or not item.index.dims
                    or (covered > 1 and 0 in item.index.dims)
                    or (position + covered <= len(value.dims)
                        and not any(certainly_differ(size, value.dims[position + k])
                                    for k, size in enumerate(item.index.dims))))
            item = OPAQUE if fits else ArrayIndex(item.index)
        resolved.append(item)
        if position is not None:
            if isinstance(item, Ellipsis_ | Opaque):
                position = None
            else:
                position += _consumes(item)
    return resolved


def index(value: ArrayType, items: Sequence[IndexItem], labels: Sequence[str] | None = None) -> Outcome:
    """`value[items]`; `labels` name the items in messages. Anything unread leaves the shape unknown."""
    unknown = Outcome(value.with_dims((), 0))
    inexact = inexact_index(items, labels)
    if inexact is not None:
        return Outcome(value.with_dims((), 0), (inexact,))
    if value.ellipsis is not None:
        return unknown
    items = _resolved(value, items)
    if any(isinstance(item, Opaque) for item in items):
        return unknown
    arrays = [item for item in items if isinstance(item, ArrayIndex)]
    if any(a.index.ellipsis is not None or (a.mask and not a.index.dims) for a in arrays):
        return unknown  # how many dims it covers, or adds, is not known
    consumed = [_consumes(item) for item in items]
    rank = len(value.dims)
    if sum(isinstance(item, Ellipsis_) for item in items) > 1:
        return Outcome(value.with_dims((), 0), (Problem(Code.AXIS_OUT_OF_RANGE, "an index can only have one `...`"),))
    if sum(consumed) > rank:
        return Outcome(value.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE, f"too many indices: {sum(consumed)} for {value.positional_text()}, which "
            f"has {rank} positional dim{'s' if rank != 1 else ''}"),))
    if arrays:
        return _advanced(value, items, consumed, labels)
    problems: list[Problem] = []
    dims: list[Dim] = []
    position = 0
    for item in items:
        if isinstance(item, NewAxis):
            dims.append(1)
        elif isinstance(item, Ellipsis_):
            skip = rank - sum(consumed)
            dims.extend(value.dims[position:position + skip])
            position += skip
        elif isinstance(item, int):
            if value.dims[position] == 0:
                # JAX clamps an int into a non-empty axis; an empty one has nothing to clamp to.
                problems.append(Problem(
                    Code.AXIS_OUT_OF_RANGE, f"index {item} is out of bounds for axis {position} with size 0",
                    axes=(position,), sizes=(0,)))
            position += 1
        elif isinstance(item, Slice):
            dims.append(_slice_len(value.dims[position], item))
            position += 1
    dims.extend(value.dims[position:])
    return Outcome(value.with_dims(dims), tuple(problems))


def inexact_index(items: Sequence[IndexItem], labels: Sequence[str] | None = None) -> Problem | None:
    """SC301 for the first index item that is not of an integer or boolean type (JAX checks the
    index's types before its shape)."""
    for position, item in enumerate(items):
        if isinstance(item, InexactIndex):
            which = labels[position] if labels is not None and position < len(labels) else f"index {position}"
            fix = "write an int" if item.dtype == "a Python float" else "cast it: `.astype(jnp.int32)`"
            return Problem(Code.DTYPE_MISMATCH, (
                f"an index must be of an integer or boolean type, but {which} is {item.dtype} ({fix})"))
    return None


def _consumes(item: IndexItem) -> int:
    if isinstance(item, ArrayIndex):
        return len(item.index.dims) if item.mask else 1
    return 1 if isinstance(item, int | Slice) else 0


def _advanced(value: ArrayType, items: Sequence[IndexItem], consumed: Sequence[int],
              labels: Sequence[str] | None) -> Outcome:
    problems: list[Problem] = []
    rank = len(value.dims)
    dims: list[Dim] = []
    shapes: list[ArrayType] = []
    shape_labels: list[str] = []
    block: int | None = None  # where the broadcast dims go when the advanced indices are adjacent
    separated = False
    last_advanced: int | None = None
    position = 0
    for number, item in enumerate(items):
        advanced = isinstance(item, int | ArrayIndex)
        if advanced:
            if block is None:
                block = len(dims)
            elif last_advanced is not None and last_advanced != number - 1:
                separated = True
            last_advanced = number
            shape_labels.append(label(labels, number))
        if isinstance(item, NewAxis):
            dims.append(1)
        elif isinstance(item, Ellipsis_):
            skip = rank - sum(consumed)
            dims.extend(value.dims[position:position + skip])
            position += skip
        elif isinstance(item, Slice):
            dims.append(_slice_len(value.dims[position], item))
            position += 1
        elif isinstance(item, int):
            shapes.append(ArrayType(None))
            position += 1
        elif isinstance(item, ArrayIndex) and item.mask:
            covered = value.dims[position:position + consumed[number]]
            mask = item.index
            for offset, (size, covering) in enumerate(zip(covered, mask.dims, strict=True)):
                if certainly_differ(size, covering):
                    problems.append(Problem(
                        Code.BROADCAST_MISMATCH, f"boolean index {label(labels, number)} of shape "
                        f"{mask.positional_text()} does not match the dims it covers, "
                        f"{_dims_text(covered)} (axis {position + offset} differs)",
                        axes=(position + offset,), sizes=(size, covering)))
                    break
            # The number of true elements is known only when there are none.
            shapes.append(ArrayType(None, (0 if product(mask.dims) == 0 else None,), mask.named))
            position += consumed[number]
        elif isinstance(item, ArrayIndex):
            shapes.append(item.index)
            position += 1
    dims.extend(value.dims[position:])
    together = broadcast(shapes, shape_labels)
    problems.extend(together.problems)
    picked = list(together.type.dims)
    assert block is not None
    dims = picked + dims if separated else dims[:block] + picked + dims[block:]
    named = union_named([value.named, together.type.named], None, problems)
    open_named = value.named_open or any(s.named_open for s in shapes)
    return Outcome(ArrayType(value.dtype, tuple(dims), named, None, open_named, value.weak), tuple(problems))


def _dims_text(dims: Sequence[Dim]) -> str:
    return "(" + ", ".join(format_dim(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def _slice_len(size: Dim, item: Slice) -> Dim:
    if item.unknown:
        return None
    if item.start is None and item.stop is None and item.step in (None, 1):
        return size
    if not isinstance(size, int):
        return None
    if item.step == 0:
        return None
    return len(range(size)[slice(item.start, item.stop, item.step)])
