"""optax's optimizers: the parameters a training step updates keep their shapes (and
`eqx.apply_updates`, equinox's `optax.apply_updates` for a model).

`opt = optax.adam(1e-3)` (or any of optax's gradient transformations, a `chain` of them) is an
object whose `update(grads, state, params)` returns updates of the gradients' tree and shapes,
and a new state; `optax.apply_updates(params, updates)` returns the parameters, leaf by leaf of
their own dtype. Of the optimizer's state, only what an optimizer keeping a moment per parameter
was initialised with is followed, which its `update` compares the gradients with. Without this,
every parameter a step returned was unknown, and so was every shape computed from them after
the step.
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
from shapecheck.analyzer.values import Class, Const, Function, Instance, Partial, Qual, Seq, Value
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


# Those that keep a moment per parameter (its tree and shapes), which `update` combines with the
# gradients leaf by leaf: gradients of another tree or shape than the parameters `init` saw are
# refused there (optax's tree map, or the broadcast of `g` with its moment).
_MOMENTS: Final = frozenset({
    "adabelief", "adagrad", "adam", "adamax", "adamaxw", "adamw", "amsgrad", "lion", "nadam", "nadamw", "radam",
    "rmsprop", "yogi", "scale_by_adam", "scale_by_rms", "trace",
})
_STATE: Final = Class("optax.OptState", bases=(Qual("optax.OptState"),))  # a moment per parameter


@REGISTRY.handles(*each("optax", *_OPTIMIZERS), signature="*args, **kwargs")
def optimizer(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return Instance(_TRANSFORMATION, (("moments", Const(_keeps_moments(call))),))


def _keeps_moments(call: CallArgs) -> bool | None:
    """Whether the optimizer keeps a moment per parameter: True, False, or None (not known)."""
    name = call.short_name
    if name in _MOMENTS:
        return True
    if name == "sgd":  # `sgd(lr, momentum)`: a trace where momentum is given and not None
        momentum = call.args[1] if len(call.args) > 1 else call.kwargs.get("momentum", Const(None))
        return None if momentum is None else momentum != Const(None)
    if name == "chain":
        members = [_moments_of(member) for member in call.args]
        return True if True in members else None if None in members else False
    return False if name in ("clip", "clip_by_global_norm", "scale", "identity", "scale_by_learning_rate",
                             "add_decayed_weights") else None


@REGISTRY.handles("optax.masked", signature="inner, mask, *, mask_compatible_extra_args=False")
@REGISTRY.handles("optax.multi_transform", signature="transforms, param_labels, *, mask_compatible_extra_args=False")
def partitioned(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """An optimizer over the parameters a mask (or a tree of labels) picks: the tree is matched
    with the parameters in `init`, as a prefix of theirs (a callable is not read)."""
    tree = call.arg("mask" if call.short_name == "masked" else "param_labels")
    return Instance(_TRANSFORMATION, (("moments", Const(None)), ("prefix", tree), ("api", Const(call.name))))


@REGISTRY.handles("optax.MultiSteps", signature="opt, every_k_schedule, use_grad_mean=True, should_skip_update_fn=None")
def multi_steps(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Gradient accumulation: it keeps the accumulated gradients, one per parameter, whatever
    the optimizer it wraps keeps."""
    return Instance(_TRANSFORMATION, (("moments", Const(True)),))


def _moments_of(value: Value) -> bool | None:
    moments = value.get("moments") if isinstance(value, Instance) and value.cls is _TRANSFORMATION else None
    return moments.value if isinstance(moments, Const) and isinstance(moments.value, bool) else None


@REGISTRY.handles(f"{TRANSFORMATION}.init", signature="self, params")
def init(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The optimizer's state: where it keeps a moment per parameter, the parameters' tree (what
    `update` compares the gradients with); otherwise not followed."""
    optimizer, params = call.arg("self"), call.arg("params")
    if not isinstance(optimizer, Instance):
        return None
    prefix = optimizer.get("prefix") if optimizer.has("prefix") else None
    if prefix is not None and params is not None and not isinstance(prefix, Function | Partial | Qual):
        # optax matches the mask (labels) with the parameters as a prefix of their tree.
        api = optimizer.get("api")
        name = api.value if isinstance(api, Const) and isinstance(api.value, str) else "optax.masked"
        tree = "mask" if name.endswith("masked") else "param_labels"
        problems: list[Problem] = []
        map_trees([prefix, params], lambda pair: pair[1], problems,
                  what=f"{name}'s {tree} (tree 1) and the parameters (tree 2)")
        interp.reporter.problems(problems[:1], call.node, call.arg_nodes)
    if _moments_of(optimizer) is not True or params is None:
        return None
    return Instance(_STATE, (("moments", params),))


@REGISTRY.handles(f"{TRANSFORMATION}.update", signature="self, updates, state, params=None, **extra_args")
def update(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """(updates, new state): the updates of the gradients' tree and shapes, which must be those
    of the parameters the state's moments were made for (SC103 for another tree, SC101 for a
    gradient that does not broadcast with its moment); the state stays as it was."""
    state, updates = call.arg("state"), call.arg("updates")
    if isinstance(state, Instance) and state.cls is _STATE and updates is not None:
        problems: list[Problem] = []
        leaf_problems: list[Problem] = []

        def combine(pair: list[Value]) -> Value:
            gradient, moment = pair
            if isinstance(gradient, ArrayType) and isinstance(moment, ArrayType):
                leaf_problems.extend(broadcast([gradient, moment], ["the gradient", "its moment"]).problems)
            return gradient

        map_trees([updates, state.get("moments")], combine, problems,
                  what="GradientTransformation.update (tree 1: the updates, tree 2: the state's moments)")
        what = "GradientTransformation.update (the optimizer's moments have the shapes init was given)"
        _report_first(interp, call, problems, leaf_problems, what)
    return Seq((updates, state))


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
    _report_first(interp, call, problems, leaf_problems, what)
    return result


def _report_first(interp: Interpreter, call: CallArgs, structure: list[Problem], leaves: list[Problem],
                  what: str) -> None:
    """One report: the first structure the trees break, else the first leaf that does not fit
    (named by the API: the broadcast's own message does not say where it is)."""
    first = structure[:1] or [replace(p, message=f"{what}: {p.message}") for p in leaves[:1]]
    interp.reporter.problems(first, call.node, call.arg_nodes)
