"""optax's optimizers: the parameters a training step updates keep their shapes (and
`eqx.apply_updates`, equinox's `optax.apply_updates` for a model).

`opt = optax.adam(1e-3)` (or any of optax's gradient transformations, a `chain` of them) is an
object whose `update(grads, state, params)` returns updates of the gradients' tree and shapes,
and a new state; `optax.apply_updates(params, updates)` returns the parameters, leaf by leaf of
their own dtype. The optimizer's state is not followed. Without this, every parameter a step
returned was unknown, and so was every shape computed from them after the step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra.control_flow import Node
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.pytrees import tree
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Class, Instance, Qual, Seq, Value
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

TRANSFORMATION: Final = "optax.GradientTransformation"
_TRANSFORMATION: Final = Class(TRANSFORMATION, bases=(Qual(TRANSFORMATION),))

# Those whose updates have the gradients' tree and shapes, whatever their settings.
_OPTIMIZERS: Final = (
    "adabelief", "adadelta", "adafactor", "adagrad", "adam", "adamax", "adamaxw", "adamw", "adan", "amsgrad",
    "fromage", "lamb", "lars", "lion", "nadam", "nadamw", "noisy_sgd", "novograd", "radam", "rmsprop", "rprop",
    "sgd", "sign_sgd", "signum", "sm3", "yogi", "chain", "clip", "clip_by_global_norm", "add_decayed_weights",
    "scale", "scale_by_adam", "scale_by_rms", "scale_by_learning_rate", "trace", "identity",
)


@REGISTRY.handles(*each("optax", *_OPTIMIZERS), signature="*args, **kwargs")
def optimizer(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return Instance(_TRANSFORMATION)


@REGISTRY.handles(f"{TRANSFORMATION}.init", signature="self, params")
def init(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return None  # the optimizer's state: not followed


@REGISTRY.handles(f"{TRANSFORMATION}.update", signature="self, updates, state, params=None, **extra_args")
def update(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """(updates, new state): the updates of the gradients' tree and shapes."""
    return Seq((call.arg("updates"), None))


@REGISTRY.handles("optax.apply_updates", signature="params, updates")
def apply_updates(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return applied(call.arg("params"), call.arg("updates"))


@REGISTRY.handles("equinox.apply_updates", signature="model, updates")
def apply_model_updates(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return applied(call.arg("model"), call.arg("updates"))


def applied(params: Value, updates: Value) -> Value:
    """The parameters (equinox: the model), where the updates are unknown or of their tree and
    shapes (each sum is cast to its parameter's dtype); unknown where the updates differ (they
    broadcast)."""
    if updates is None or _shapes(tree(updates)) == _shapes(tree(params)):
        return params
    return None


def _shapes(found: object) -> object:
    """A tree with each leaf's shape only (the dtypes of updates may differ from the params')."""
    if isinstance(found, Node):
        return (found.kind, found.keys, tuple(_shapes(item) for item in found.items))
    if isinstance(found, ArrayType):
        return (found.dims, found.ellipsis)
    return found
