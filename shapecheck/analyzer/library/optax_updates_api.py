"""optax's optimizers: the parameters a training step updates keep their shapes (and
`eqx.apply_updates`, equinox's `optax.apply_updates` for a model).

`opt = optax.adam(1e-3)` (or any of optax's gradient transformations, a `chain` of them) is an
object whose `update(grads, state, params)` returns updates of the gradients' tree and shapes,
and a new state; `optax.apply_updates(params, updates)` returns the parameters, leaf by leaf of
their own dtype. The optimizer's state is not followed. Without this, every parameter a step
returned was unknown, and so was every shape computed from them after the step.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Final

from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.outcome import Problem
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.library.trees_api import map_trees
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Class, Const, Instance, Qual, Seq, Value
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
    return applied(interp, call, call.arg("params"), call.arg("updates"), "optax.apply_updates")


@REGISTRY.handles("equinox.apply_updates", signature="model, updates")
def apply_model_updates(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return applied(interp, call, call.arg("model"), call.arg("updates"), "equinox.apply_updates")


def applied(interp: Interpreter, call: CallArgs, params: Value, updates: Value, what: str,
            trees: str = "(params, updates)") -> Value:
    """The parameters (equinox: the model) after `p + u` leaf by leaf over the parameters' tree,
    each sum cast to its parameter's dtype, as optax and equinox compute it: updates of another
    structure are refused as `jax.tree.map` refuses them (SC103), and a leaf that does not
    broadcast with its parameter is SC101. A None update, or a parameter that is no array (a
    module's function), leaves the parameter as it is."""
    if updates is None:
        return params
    problems: list[Problem] = []
    leaf_problems: list[Problem] = []

    def step(pair: list[Value]) -> Value:
        param, update = pair
        if not isinstance(param, ArrayType):
            return param
        if update is None or update == Const(None) or not isinstance(update, ArrayType):
            return param if update == Const(None) else None
        summed = broadcast([param, update], ["the parameter", "its update"])
        if summed.problems:
            leaf_problems.extend(summed.problems)
            return None
        return summed.type.with_dtype(param.dtype, param.weak)

    result = map_trees([params, updates], step, problems, what=f"{what}{trees}")
    # One report: the first structure the updates break, else the first leaf that does not fit.
    first = problems[:1] or [replace(p, message=f"{what}: {p.message}") for p in leaf_problems[:1]]
    interp.reporter.problems(first, call.node, call.arg_nodes)
    return result
