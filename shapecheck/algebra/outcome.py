"""What an algebra function returns: the result type and the problems found on the way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.types import ArrayType


@dataclass(frozen=True, slots=True)
class Problem:
    """One certain error: a DESIGN.md section 4 code, a message, and the axes and sizes involved.

    `operands` are indices into the operands of the call, so a front end can point notes at
    the places that contributed.
    """

    code: Code
    message: str
    axes: tuple[str | int, ...] = ()
    sizes: tuple[Dim, ...] = ()
    operands: tuple[int, ...] = ()
    origin: object = field(default=None, compare=False, hash=False)
    """The literal node at fault (`Lit.origin`), when the problem is in a spec the user wrote."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """A best-effort result type (so inference goes on) and the problems found."""

    type: ArrayType
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


def label(labels: Sequence[str] | None, index: int) -> str:
    """The front end's name for operand `index`, or a neutral one."""
    if labels is not None and index < len(labels):
        return labels[index]
    return f"operand {index + 1}"


def normalize_axis(axis: int, rank: int) -> int | None:
    """A possibly negative axis index made non-negative, or None when out of range."""
    if -rank <= axis < rank:
        return axis % rank
    return None


def out_of_range(axis: int, rank: int, what: str, operand: int = 0) -> Problem:
    return Problem(
        Code.AXIS_OUT_OF_RANGE,
        f"axis {axis} is out of range for {what}, which has {rank} positional "
        f"dim{'s' if rank != 1 else ''}",
        axes=(axis,),
        operands=(operand,),
    )


@dataclass(frozen=True, slots=True)
class Pieces:
    """The results of an API that returns several arrays (`jnp.split`, `lax.top_k`), and the
    problems found; `types` is None where how many is not known."""

    types: tuple[ArrayType, ...] | None
    problems: tuple[Problem, ...] = ()


def axis_position(value: ArrayType, axis: int, what: str) -> int | Problem | None:
    """Where positional `axis` of `value` is in `value.dims`: an index; the SC106 problem when it
    is beyond the known rank; None where `...` hides which dim it is."""
    if value.ellipsis is None:
        position = normalize_axis(axis, len(value.dims))
        return out_of_range(axis, len(value.dims), what) if position is None else position
    if 0 <= axis < value.ellipsis:
        return axis
    if axis < 0 and -axis <= len(value.dims) - value.ellipsis:
        return len(value.dims) + axis
    return None
