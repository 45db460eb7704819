"""flax.training's `TrainState`: the object most flax training loops carry their parameters in.

`TrainState.create(apply_fn=model.apply, params=params, tx=tx)` is a record of its fields, so
`state.params` is the parameters it was given and `state.apply_fn(...)` is `model.apply(...)`,
checked as written there (`flax_api`, `model_params`). `state.apply_gradients(grads=g)` is the
state after an optimizer step: the parameters keep their shapes (optax updates leaf by leaf),
the step and the optimizer's state are not followed. A subclass with fields of its own
(`batch_stats`) is created and stepped alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import optax_updates_api
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Class, Const, Instance, Qual, Value

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

TRAIN_STATE: Final = "flax.training.train_state.TrainState"

# The class itself, for states created from it directly; its pytree fields are the ones JAX
# maps over (`apply_fn` and `tx` are static fields, `pytree_node=False`).
_STATE: Final = Class(TRAIN_STATE, bases=(Qual(TRAIN_STATE),), record="struct", fields=("step", "params", "opt_state"))


@REGISTRY.handles(f"{TRAIN_STATE}.create", signature="*args, apply_fn, params, tx, **kwargs")
def create(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The new state's fields; `*args` holds the subclass it is created from, where it is one
    (`MyState.create(...)`, read as a call of this method with the class first)."""
    given = call.rest()
    cls = given[0] if len(given) == 1 and isinstance(given[0], Class) else _STATE if not given else None
    if cls is None:
        return None
    fields = (("step", Const(0)), ("apply_fn", call.arg("apply_fn")), ("params", call.arg("params")),
              ("tx", call.arg("tx")), ("opt_state", None), *call.keywords().items())
    return Instance(cls, tuple(fields))


@REGISTRY.handles(f"{TRAIN_STATE}.apply_gradients", signature="self, *, grads, **kwargs")
def apply_gradients(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The state after one step: its parameters of the same shapes, the rest as given."""
    state = call.arg("self")
    if not isinstance(state, Instance):
        return None
    # optax's `apply_updates` of the updates made from the gradients, which have their tree and
    # shapes: gradients of another structure or shape than the parameters are refused there.
    params = optax_updates_api.applied(interp, call, state.get("params"), call.arg("grads"),
                                       "TrainState.apply_gradients", " (tree 1: its params, tree 2: grads)")
    state = state.with_field("step", None).with_field("opt_state", None).with_field("params", params)
    for name, value in call.keywords().items():
        state = state.with_field(name, value)
    return state
