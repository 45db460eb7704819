"""optax's losses: the classification and regression losses model code calls on its logits and
labels (`optax.softmax_cross_entropy`, `optax.l2_loss`, ...), also under `optax.losses`.

The shape rules are `algebra.losses`; an axis that is not a literal int (a tuple of axes) leaves
the loss unknown. optax refuses logits or predictions that are not floating point, and float
labels for integer ones (a TypeError): those are left unknown here, and reported only where
their shapes are wrong too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from shapecheck.algebra import losses
from shapecheck.algebra.outcome import Outcome
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, finished
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Value, as_int
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

OPTAX: Final = "optax"  # `optax.losses.X` is the same function (qualnames' aliases)
_AXIS: Final = "axis=-1, where=None"


@REGISTRY.handles(f"{OPTAX}.softmax_cross_entropy", signature=f"logits, labels, {_AXIS}")
def softmax_cross_entropy(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    pair = _floating_first(call, "logits", "labels")
    axis = _axis(call)
    if pair is None or axis is False:
        return None
    return finished(interp, call, losses.cross_entropy(*pair, axis, _name(call)))


@REGISTRY.handles(f"{OPTAX}.softmax_cross_entropy_with_integer_labels", signature=f"logits, labels, {_AXIS}")
def integer_cross_entropy(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    pair = _floating_first(call, "logits", "labels")
    axis = _axis(call)
    if pair is None or axis is False or axis is None:
        return None  # axis=None raises in optax (neither an int nor a tuple): not a shape rule
    logits, labels = pair
    outcome = losses.integer_cross_entropy(logits, labels, axis, _name(call))
    if kind_of(labels.dtype) == "f" and not outcome.problems:
        return None  # optax refuses float labels (a TypeError), whatever their shape: not a shape rule
    # One-hot labels, float as `jax.nn.one_hot` makes them, are the usual mistake: their shape
    # is what the message is about.
    return finished(interp, call, outcome)


@REGISTRY.handles(f"{OPTAX}.sigmoid_binary_cross_entropy", signature="logits, labels")
def sigmoid_binary_cross_entropy(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    pair = _floating_first(call, "logits", "labels")
    if pair is None:
        return None
    # The labels are cast to the logits' dtype first.
    return finished(interp, call, losses.elementwise(*pair, ("logits", "labels"), _name(call), dtype_of_first=True))


@REGISTRY.handles(f"{OPTAX}.squared_error", f"{OPTAX}.l2_loss", signature="predictions, targets=None")
def squared_error(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _regression(interp, call, lambda predictions, targets: losses.same_shape(predictions, targets, _name(call)))


@REGISTRY.handles(f"{OPTAX}.huber_loss", signature="predictions, targets=None, delta=1.0")
@REGISTRY.handles(f"{OPTAX}.log_cosh", signature="predictions, targets=None")
def broadcast_loss(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _regression(interp, call, lambda predictions, targets: losses.elementwise(
        predictions, targets, ("predictions", "targets"), _name(call)))


def _regression(interp: Interpreter, call: CallArgs, rule: Callable[[ArrayType, ArrayType], Outcome]) -> Value:
    """A regression loss: the predictions' type without targets (they are zeros), `rule` with."""
    if not call.given("targets") or call.arg("targets") == Const(None):
        predictions = array(call.arg("predictions"))
        return predictions if predictions is not None and _floating(predictions) else None
    pair = _floating_first(call, "predictions", "targets")
    return None if pair is None else finished(interp, call, rule(*pair))


@REGISTRY.handles(f"{OPTAX}.cosine_similarity", f"{OPTAX}.cosine_distance",
                  signature=f"predictions, targets, *, epsilon=0.0, {_AXIS}")
def cosine(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    pair = _floating_first(call, "predictions", "targets")
    axis = _axis(call)
    if pair is None or axis is False:
        return None
    return finished(interp, call, losses.similarity(*pair, axis, _name(call)))


def _floating_first(call: CallArgs, first: str, second: str) -> tuple[ArrayType, ArrayType] | None:
    """Both arrays, the first floating point (or of a dtype not known); None otherwise."""
    a, b = array(call.arg(first)), array(call.arg(second))
    if a is None or b is None or not _floating(a):
        return None
    return a, b


def _floating(value: ArrayType) -> bool:
    """False only for a dtype certainly not floating point (optax's `check_subdtype`)."""
    return kind_of(value.dtype) in (None, "f")


def _axis(call: CallArgs) -> int | bool | None:
    """The `axis` argument: an int, None, or False where it is not a literal int or None."""
    if not call.given("axis"):
        return -1
    value = call.arg("axis")
    if value == Const(None):
        return None
    found = as_int(value)
    return False if found is None else found


def _name(call: CallArgs) -> str:
    return f"optax.{call.short_name}"

