"""Loss functions' shapes (optax's): which logits, labels, predictions and targets go together,
and the shape of the loss.

Each rule is what the library computes, written out: `softmax_cross_entropy` is
`-(labels * log_softmax(logits)).sum(axis)`, so its labels broadcast with the logits (one-hot
labels, or probabilities, over the classes) and the loss drops `axis`; its integer-labels twin
indexes the class axis with one integer per example, so its labels have the logits' shape
without that axis. The classic bug, integer labels given to the one-hot loss, is named as such.
"""

from __future__ import annotations

from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.outcome import Outcome, Problem, normalize_axis
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_shape
from shapecheck.types import ArrayType


def cross_entropy(logits: ArrayType, labels: ArrayType, axis: int | None, what: str) -> Outcome:
    """`softmax_cross_entropy(logits, labels, axis)`: labels broadcast with the logits; the loss
    is their broadcast shape without `axis` (None: every positional axis)."""
    beyond = _beyond(axis, ((logits, "logits"),), what)
    if beyond is not None:
        return Outcome(logits.with_dims((), 0), (beyond,))
    product = broadcast([labels, logits], ["`labels`", "`logits`"])
    if product.problems:
        hint = ""
        if _without(logits, axis) == labels.dims and logits.ellipsis is None and labels.ellipsis is None:
            hint = ("; these look like integer class labels, which "
                    f"{what}_with_integer_labels takes (this one takes labels over the classes: one-hot "
                    f"labels of the logits' shape {format_shape(logits.dims)})")
        return Outcome(logits.with_dims((), 0), tuple(
            Problem(p.code, f"{what}: {p.message}{hint}", p.axes, p.sizes, p.operands) for p in product.problems))
    return Outcome(_reduced(product.type, axis))


def integer_cross_entropy(logits: ArrayType, labels: ArrayType, axis: int, what: str) -> Outcome:
    """`softmax_cross_entropy_with_integer_labels(logits, labels, axis)`: one integer class per
    example, so labels have the logits' rank less one and broadcast with the logits without
    `axis`; the loss has their broadcast shape, in the logits' dtype."""
    if logits.ellipsis is not None or labels.ellipsis is not None:
        return Outcome(logits.with_dims((), 0))
    rank = len(logits.dims)
    place = normalize_axis(axis, rank)
    if place is None:
        return Outcome(logits.with_dims((), 0), (Problem(
            Code.AXIS_OUT_OF_RANGE,
            f"{what}: axis {axis} is out of range for logits of shape {format_shape(logits.dims)} (rank {rank})",
            axes=(axis,), operands=(0,)),))
    batch = logits.with_dims(logits.dims[:place] + logits.dims[place + 1:])
    if len(labels.dims) != rank - 1:
        hint = (f"; these look like one-hot labels, which {what.removesuffix('_with_integer_labels')} takes"
                if len(labels.dims) == rank and not any(certainly_differ(a, b) for a, b in
                                                        zip(labels.dims, logits.dims, strict=True)) else "")
        return Outcome(logits.with_dims((), 0), (Problem(
            Code.BROADCAST_MISMATCH,
            f"{what} takes one integer class per example: labels of shape {format_shape(batch.dims)} for logits "
            f"of shape {format_shape(logits.dims)} (the logits without their class axis {axis}), but the labels "
            f"have shape {format_shape(labels.dims)}{hint}",
            operands=(1,)),))
    paired = broadcast([labels, batch], ["`labels`", "the logits' examples"])
    if paired.problems:
        return Outcome(logits.with_dims((), 0), tuple(
            Problem(p.code, f"{what}: {p.message} (the logits without their class axis {axis})", p.axes, p.sizes,
                    p.operands) for p in paired.problems))
    return Outcome(ArrayType(logits.dtype, paired.type.dims, paired.type.named, None,
                             paired.type.named_open, logits.weak))


def elementwise(first: ArrayType, second: ArrayType, names: tuple[str, str], what: str,
                dtype_of_first: bool = False) -> Outcome:
    """A loss computed element by element (`sigmoid_binary_cross_entropy`, `huber_loss`,
    `log_cosh`): the two broadcast; the loss has their shape, in the first's dtype where the
    second is cast to it."""
    paired = broadcast([first, second], [f"`{names[0]}`", f"`{names[1]}`"])
    if paired.problems:
        return Outcome(first.with_dims((), 0), tuple(
            Problem(p.code, f"{what}: {p.message}", p.axes, p.sizes, p.operands) for p in paired.problems))
    if dtype_of_first:
        return Outcome(paired.type.with_dtype(first.dtype))
    return paired


def same_shape(predictions: ArrayType, targets: ArrayType, what: str) -> Outcome:
    """`squared_error` and `l2_loss`: targets of the predictions' very shape (optax compares the
    shapes rather than broadcast them); the loss has the predictions' type."""
    if predictions.ellipsis is None and targets.ellipsis is None and (
            len(predictions.dims) != len(targets.dims)
            or any(certainly_differ(a, b) for a, b in zip(predictions.dims, targets.dims, strict=False))):
        return Outcome(predictions.with_dims((), 0), (Problem(
            Code.BROADCAST_MISMATCH,
            f"{what} takes targets of the predictions' shape (it does not broadcast them): predictions "
            f"{format_shape(predictions.dims)}, targets {format_shape(targets.dims)}",
            operands=(0, 1)),))
    difference = broadcast([predictions, targets])  # their dtypes promote (`predictions - targets`)
    return Outcome(predictions.with_dtype(difference.type.dtype, difference.type.weak))


def similarity(predictions: ArrayType, targets: ArrayType, axis: int | None, what: str) -> Outcome:
    """`cosine_similarity` and `cosine_distance`: each is normalised over `axis`, then the two
    broadcast; the loss drops `axis`."""
    beyond = _beyond(axis, ((predictions, "predictions"), (targets, "targets")), what)
    if beyond is not None:
        return Outcome(predictions.with_dims((), 0), (beyond,))
    paired = elementwise(predictions, targets, ("predictions", "targets"), what)
    if paired.problems:
        return paired
    return Outcome(_reduced(paired.type, axis))


def _beyond(axis: int | None, values: tuple[tuple[ArrayType, str], ...], what: str) -> Problem | None:
    """SC106 where `axis` is not an axis of one of `values` (each is reduced over it)."""
    for index, (value, name) in enumerate(values):
        if axis is not None and value.ellipsis is None and normalize_axis(axis, len(value.dims)) is None:
            return Problem(Code.AXIS_OUT_OF_RANGE,
                           f"{what}: axis {axis} is out of range for `{name}` of shape {format_shape(value.dims)}",
                           axes=(axis,), operands=(index,))
    return None


def _reduced(value: ArrayType, axis: int | None) -> ArrayType:
    if value.ellipsis is not None:
        return value.with_dims((), 0)
    if axis is None:
        return value.with_dims(())
    place = normalize_axis(axis, len(value.dims))
    if place is None:
        return value.with_dims((), 0)  # JAX refuses the sum's axis: reported where the rank is read
    return value.with_dims(value.dims[:place] + value.dims[place + 1:])


def _without(value: ArrayType, axis: int | None) -> tuple[Dim, ...] | None:
    if axis is None or value.ellipsis is not None:
        return None
    place = normalize_axis(axis, len(value.dims))
    return None if place is None else value.dims[:place] + value.dims[place + 1:]


