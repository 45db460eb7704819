"""haiku's recurrent cores: `hk.LSTM`, `hk.GRU`, `hk.VanillaRNN` and `hk.DeepRNN`, their
`initial_state`, `hk.LSTMState`, and `hk.dynamic_unroll` and `hk.static_unroll`, which run a
core over time.

A core is called on one time step and its state, `core(x, state)`, and gives `(output,
state)`; its formulas are haiku's (`algebra.recurrent`). `hk.dynamic_unroll` is `lax.scan` over
the sequence's leading axis (its second where `time_major=False`), so a core that changes its
state (a state without the input's batch dim, of another dtype) is refused as a scan's carry is
(SC103).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import layers, recurrent
from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.promotion import default
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import control_api, model_params
from shapecheck.analyzer.library.common import flag, passed, refused
from shapecheck.analyzer.library.layers_api import LayerRules, build
from shapecheck.analyzer.library.pytrees import map_leaves
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Class,
    Const,
    Instance,
    Layer,
    Partial,
    Qual,
    Seq,
    Value,
    as_dim,
)
from shapecheck.dims import Dim
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`
LAYERS = LayerRules()  # how each layer class is called; collected by `layer_calls`

HK: Final = "haiku"
LSTM_STATE: Final = f"{HK}.LSTMState"
_STATE: Final = Class(LSTM_STATE, record="namedtuple", fields=("hidden", "cell"))
_CORES: Final = tuple(f"{HK}.{name}" for name in ("LSTM", "GRU", "VanillaRNN"))

REGISTRY.handles(*each(HK, "LSTM", "GRU"), signature="hidden_size, name=None, **options")(build)
REGISTRY.handles(f"{HK}.VanillaRNN", signature="hidden_size, double_bias=True, name=None")(build)
REGISTRY.handles(f"{HK}.DeepRNN", signature="layers, name=None")(build)


@REGISTRY.handles(LSTM_STATE, signature="hidden, cell")
def lstm_state(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`hk.LSTMState(hidden, cell)`: the namedtuple an LSTM's state is."""
    return _state(call.arg("hidden"), call.arg("cell"))


def _state(hidden: Value, cell: Value) -> Instance:
    return Instance(_STATE, (("hidden", hidden), ("cell", cell)))


@LAYERS.rule(*_CORES, signature="inputs, prev_state")
def core(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`core(x, state)`: `(output, new_state)`; an LSTM's state is an `LSTMState`."""
    x, state = call.arg("inputs"), call.arg("prev_state")
    size = as_dim(layer.setting("hidden_size"))
    kind = layer.name.rpartition(".")[2]
    if not isinstance(x, ArrayType):
        return None
    if kind == "LSTM":
        hidden, cell = _lstm_parts(state)
        if hidden is None or cell is None:
            return None
        step = recurrent.haiku_lstm(x, hidden, cell, size)
    elif not isinstance(state, ArrayType):
        return None
    elif kind == "GRU":
        step = recurrent.haiku_gru(x, state, size)
    else:
        step = recurrent.flax_step(recurrent.SIMPLE, x, (state,),
                                   lambda value, _: layers.haiku_linear(value, size, "hk.VanillaRNN"), "hk.VanillaRNN")
    if step.problems or step.carry is None or step.output is None:
        interp.reporter.problems(step.problems, call.node, call.arg_nodes)
        return None
    if x.rank and x.ellipsis is None:
        _created(interp, layer, kind, x.dims[-1], size)
    new_state: Value = _state(*step.carry) if kind == "LSTM" else step.carry[0]
    return Seq((step.output, new_state))


def _created(interp: Interpreter, layer: Layer, kind: str, features: Dim, size: Dim) -> None:
    """The weights a core makes from its input's features (haiku's names), for `init` and
    `apply` to be compared (`model_params`): haiku refuses parameters of another shape."""
    def times(count: int) -> Dim:
        return count * size if isinstance(size, int) else None

    joined = features + size if isinstance(features, int) and isinstance(size, int) else None
    params: dict[str, tuple[Dim, ...] | None] = (
        {"linear/w": (joined, times(4))} if kind == "LSTM"
        else {"w_i": (features, times(3)), "w_h": (size, times(3))} if kind == "GRU"
        else {"linear/w": (features, size), "linear_1/w": (size, size)})
    model_params.layer_created(interp, layer, "hk", params)


@LAYERS.rule(f"{HK}.DeepRNN", signature="inputs, state")
def deep_rnn(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`hk.DeepRNN([core, fn, core, ...])(x, state)`: each core on what came before and its own
    entry of the state (a tuple, one per core), each other layer a function of it;
    `(output, new states)`."""
    layers, state = layer.setting("layers"), call.arg("state")
    if not isinstance(layers, Seq) or not isinstance(state, Seq):
        return None
    cores = [item for item in layers.items if _is_core(item)]
    if len(cores) != len(state.items):
        return None  # another count of states: a Python error, not a shape
    current, states, index = call.arg("inputs"), [], 0
    for item in layers.items:
        if current is None:
            return None
        if _is_core(item):
            out = interp.call(item, CallArgs(call.node, [current, state.items[index]], list(call.arg_nodes)), ctx,
                              interp.scope)
            if not (isinstance(out, Seq) and len(out.items) == 2):
                return None
            current, next_state = out.items
            states.append(next_state)
            index += 1
        else:
            current = interp.call(item, CallArgs(call.node, [current], [call.node]), ctx, interp.scope)
    return Seq((current, Seq(tuple(states))))


def _is_core(value: Value) -> bool:
    """A haiku core (one of haiku's, or a `DeepRNN`): called with a state."""
    return isinstance(value, Layer) and value.name in (*_CORES, f"{HK}.DeepRNN")


def _lstm_parts(state: Value) -> tuple[ArrayType | None, ArrayType | None]:
    """An LSTM state's hidden and cell arrays: an `LSTMState` or a pair (haiku reads the
    fields by name, so a plain tuple fails: unknown)."""
    if isinstance(state, Instance) and state.cls == _STATE:
        hidden, cell = state.get("hidden"), state.get("cell")
        return (hidden if isinstance(hidden, ArrayType) else None, cell if isinstance(cell, ArrayType) else None)
    return None, None


@REGISTRY.handles(*(f"attr:{name}.initial_state" for name in (*_CORES, f"{HK}.DeepRNN")), signature="layer")
def initial_state_method(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`core.initial_state`, waiting for its batch size."""
    layer = call.arg("layer")
    return Partial(Qual(f"{layer.name}.initial_state"), (layer,)) if isinstance(layer, Layer) else None


@REGISTRY.handles(*(f"{name}.initial_state" for name in (*_CORES, f"{HK}.DeepRNN")), signature="self, batch_size")
def initial_state(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`core.initial_state(batch_size)`: zeros of `(hidden_size,)`, `(batch_size, hidden_size)`
    with a batch size; an `LSTMState` of two for an LSTM."""
    layer, batch = call.arg("self"), call.arg("batch_size")
    if not isinstance(layer, Layer):
        return None
    size = None if batch == Const(None) else as_dim(batch)
    if batch != Const(None) and size is None:
        return None
    if layer.name == f"{HK}.DeepRNN":  # each core's, in a tuple
        layers = layer.setting("layers")
        if not isinstance(layers, Seq):
            return None
        return Seq(tuple(interp.call(Partial(Qual(f"{item.name}.initial_state"), (item,)),
                                     CallArgs(call.node, [batch], [call.arg_node("batch_size")]), ctx, scope)
                         for item in layers.items if isinstance(item, Layer) and _is_core(item)))
    lstm = layer.name.endswith(".LSTM")
    made = recurrent.haiku_initial_state(as_dim(layer.setting("hidden_size")), size, default("f").dtype,
                                         2 if lstm else 1)
    return _state(*made) if lstm else made[0]


@REGISTRY.handles(f"{HK}.static_unroll", takes_functions=True,
                  signature="core, input_sequence, initial_state, time_major=True")
@REGISTRY.handles(f"{HK}.dynamic_unroll", takes_functions=True,
                  signature="core, input_sequence, initial_state, time_major=True, reverse=False, "
                            "return_all_states=False, unroll=1")
def dynamic_unroll(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`(outputs, final_state)`: the core scanned over the sequence's time axis, its outputs
    stacked there; `(outputs, states)` with `return_all_states`."""
    time_major = flag(call.arg("time_major"), True) if passed(call, "time_major") else True
    all_states = (flag(call.arg("return_all_states"), False)
                  if call.signature is not None and call.signature.accepts("return_all_states")
                  and passed(call, "return_all_states") else False)
    if time_major is None or all_states is None or call.opaque:
        return None
    what = f"hk.{call.name.rpartition('.')[2]}"
    xs = call.arg("input_sequence")
    if not time_major:
        problems: list[Problem] = []
        xs = map_leaves(xs, lambda x: _swapped(x, what, problems))
        if problems:
            return refused(interp, call, problems[0])
    lengths: list[Dim] = []
    step, ok = control_api.sliced_steps(interp, call, xs, 0, what, "(time, ...) leaves", lengths)
    if not ok:
        return None
    length, problem = recurrent.step_count(what, lengths)
    if problem is not None:
        return refused(interp, call, problem)
    core, state = call.arg("core"), call.arg("initial_state")
    log = interp.params_log
    if call.name.endswith("static_unroll") or (log is not None and log.initializing):
        # haiku's `init` runs the first step outside its scan (`hk.scan`), which starts from the
        # state that step returns; a sequence of one step is not scanned at all. `static_unroll`
        # is a Python loop: the state may change on its first step, its outputs then stacked.
        first = interp.call(core, CallArgs(call.node, [step, state], [call.node, call.arg_node("initial_state")]),
                            ctx, scope)
        if not (isinstance(first, Seq) and len(first.items) == 2):
            return None
        if length == 1:
            return Seq((map_leaves(first.items[0], lambda y: _stacked(y, time_major, length, what)),
                        map_leaves(first.items[1], lambda y: _stacked(y, time_major, length, what))
                        if all_states else first.items[1]))
        state = first.items[1]
    scanned = control_api.scan_cell(interp, call, ctx, what, core, state, [step], call.arg_node("initial_state"),
                                    input_first=True, advice="start from core.initial_state(batch_size), with the "
                                    "sequence's batch size, in the input's dtype")
    if scanned is None:
        return None
    final, y = scanned
    outputs = map_leaves(y, lambda value: _stacked(value, time_major, length, what))
    return Seq((outputs, map_leaves(final, lambda value: _stacked(value, time_major, length, what))
                if all_states else final))


def _stacked(value: ArrayType, time_major: bool, length: Dim, what: str) -> Value:
    """A step's output stacked over time, batch-major again where the sequence was."""
    out = recurrent.with_time(value, 0, length)
    if time_major or out is None:
        return out
    back = recurrent.swapped(out, what)
    return back if isinstance(back, ArrayType) else None


def _swapped(x: ArrayType, what: str, problems: list[Problem]) -> Value:
    found = recurrent.swapped(x, what)
    if isinstance(found, Problem):
        problems.append(found)
        return None
    return found
