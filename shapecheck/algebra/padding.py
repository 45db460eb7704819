"""`jnp.pad`: the forms of `pad_width`, and what each adds to the dims.

JAX reads `pad_width` as an array (jax/_src/numpy/lax_numpy.py, `_broadcast_to_pairs`) whose shape
must be `(rank, 2)` (before and after, per axis), `(1, 2)` or `(2,)` (one pair for every axis), or
`(1,)` or `()` (one width on both sides of every axis); a width may not be negative (a 0-d array
is returned as it is, unchecked), and the modes that copy from the array (`wrap`, `reflect`,
`symmetric`, `edge`) cannot widen an empty axis. Each is a ValueError: SC107.
"""

from __future__ import annotations

from typing import TypeAlias

from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.codes import Code
from shapecheck.dims import Dim, format_dim
from shapecheck.types import ArrayType

PadWidth: TypeAlias = "int | tuple[PadWidth, ...] | None"
"""`pad_width` as written: ints (None for an int whose value is not known), nested in tuples."""

Pair = tuple[int | None, int | None]

COPYING_MODES = frozenset(("wrap", "reflect", "symmetric", "edge"))
"""Modes that fill the padding from the array's own elements: an empty axis has none to copy."""


def pad(value: ArrayType, pad_width: PadWidth, mode: str | None = "constant") -> Outcome:
    """`jnp.pad(value, pad_width, mode)`; `mode` None where it is not known."""
    shape = _shape(pad_width)
    if shape is None:
        return _refused(value, f"pad: the entries of pad_width {_text(pad_width)} are not all the same shape")
    pairs = _pairs(pad_width, shape)
    rank = value.rank
    if rank is not None and shape not in ((rank, 2), (1, 2), (2,), (1,), ()):
        return _refused(value, f"pad: pad_width {_text(pad_width)} has shape {shape}, which does not fit "
                        f"{rank} positional dim{'s' if rank != 1 else ''}; write one width, one "
                        f"(before, after) pair, or {rank} pairs")
    if rank is None and not (shape in ((1, 2), (2,), (1,), ()) or (len(shape) == 2 and shape[1] == 2)):
        return _refused(value, f"pad: pad_width {_text(pad_width)} has shape {shape}, which fits no rank; write "
                        "one width, one (before, after) pair, or one pair per positional dim")
    if rank is None and len(shape) == 2 and shape[0] != 1 and len(value.dims) > shape[0]:
        return _refused(value, f"pad: pad_width has {shape[0]} pairs, but the value has at least "
                        f"{len(value.dims)} positional dims")
    if rank == 0:
        return Outcome(value)  # JAX returns a 0-d array as it is, whatever the widths
    if (rank is not None or value.dims or (len(shape) == 2 and shape[0] > 1)) and any(
            isinstance(w, int) and w < 0 for pair in pairs for w in pair):
        return _refused(value, f"pad: pad_width {_text(pad_width)} holds a negative width")
    if value.ellipsis is not None and len(pairs) > 1:
        # One pair per dim of a rank `...` leaves open: the known dims are the head and the tail.
        head, tail = value.dims[:value.ellipsis], value.dims[value.ellipsis:]
        dims: list[Dim] = [*head, *[None] * (len(pairs) - len(value.dims)), *tail]
        return Outcome(value.with_dims(_widened(d, p) for d, p in zip(dims, pairs, strict=True)))
    per_dim = pairs if len(pairs) > 1 else pairs * len(value.dims)
    if mode in COPYING_MODES:
        for axis, (size, (before, after)) in enumerate(zip(value.dims, per_dim, strict=True)):
            if size == 0 and ((isinstance(before, int) and before > 0) or (isinstance(after, int) and after > 0)):
                if value.ellipsis is not None and axis >= value.ellipsis:
                    axis -= len(value.dims)
                return _refused(value, f"pad: mode {mode!r} copies from the array, but axis {axis} is empty")
    return Outcome(value.with_dims((_widened(d, p) for d, p in zip(value.dims, per_dim, strict=True)),
                                   value.ellipsis))


def _refused(value: ArrayType, message: str) -> Outcome:
    unknown = value.with_dims([None] * len(value.dims), value.ellipsis)
    return Outcome(unknown, (Problem(Code.SIZE_ARGUMENT_MISMATCH, message),))


def _shape(width: PadWidth) -> tuple[int, ...] | None:
    """The shape of `np.asarray(width)`; None where the nesting is ragged."""
    if not isinstance(width, tuple):
        return ()
    inner = [_shape(item) for item in width]
    if any(s is None for s in inner) or len(set(inner)) > 1:
        return None
    return (len(width), *(inner[0] or ())) if inner else (0,)


def _pairs(width: PadWidth, shape: tuple[int, ...]) -> list[Pair]:
    """The (before, after) pairs: one per axis for `(n, 2)`, else one pair for every axis."""
    if shape == ():
        assert not isinstance(width, tuple)
        return [(width, width)]
    assert isinstance(width, tuple)
    if shape == (1,):
        only = _int(width[0])
        return [(only, only)]
    if shape == (2,):
        return [(_int(width[0]), _int(width[1]))]
    if len(shape) == 2 and shape[1] == 2:
        return [(_int(_at(row, 0)), _int(_at(row, 1))) for row in width]
    return []


def _at(row: PadWidth, index: int) -> PadWidth:
    return row[index] if isinstance(row, tuple) else None


def _int(width: PadWidth) -> int | None:
    return width if isinstance(width, int) else None


def _widened(size: Dim, pair: Pair) -> Dim:
    before, after = pair
    if before == 0 and after == 0:
        return size
    if isinstance(size, int) and isinstance(before, int) and isinstance(after, int):
        return size + before + after
    return None


def _text(width: PadWidth) -> str:
    if isinstance(width, tuple):
        return "(" + ", ".join(_text(w) for w in width) + ("," if len(width) == 1 else "") + ")"
    return format_dim(width)
