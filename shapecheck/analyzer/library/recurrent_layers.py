"""Recurrent layers: flax.linen's and flax.nnx's cells (`LSTMCell`, `GRUCell`, ...), their
`initialize_carry`, the `RNN` that scans one over time and the `Bidirectional` that runs two;
equinox's `GRUCell` and `LSTMCell`.

A cell is called on its carry and one time step (flax: `cell(carry, x)` gives `(carry, y)`;
equinox: `cell(x, hidden)` gives the new hidden state) and follows `algebra.recurrent`. A flax
`RNN` scans its cell as `lax.scan` does, so a cell that changes its carry's shape or dtype (an
initial carry of other batch dims, parameters narrower than the input) is refused as a scan's
carry is (SC103).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import layers, recurrent
from shapecheck.algebra.layout import concatenate
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import control_api, model_params
from shapecheck.analyzer.library.common import flag, passed, refused
from shapecheck.analyzer.library.layers_api import (
    LayerRules,
    build,
    layer_dtype,
    param_dtype,
    shown,
    weights_dtype,
)
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    BoundFunction,
    Const,
    Function,
    Instance,
    Layer,
    Partial,
    Qual,
    Seq,
    Value,
    as_dim,
    dim_value,
)
from shapecheck.dims import Dim
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`
LAYERS = LayerRules()  # how each layer class is called; collected by `layer_calls`

LINEN: Final = "flax.linen"
NNX: Final = "flax.nnx"
EQX_NN: Final = "equinox.nn"

# Each flax cell's kind (`algebra.recurrent`): what its carry holds and how its gates make it.
_KINDS: Final = {"LSTMCell": recurrent.LSTM, "OptimizedLSTMCell": recurrent.LSTM, "GRUCell": recurrent.GATED,
                 "MGUCell": recurrent.GATED, "SimpleCell": recurrent.SIMPLE}
_LINEN_CELLS: Final = tuple(f"{LINEN}.{name}" for name in _KINDS)
_NNX_CELLS: Final = tuple(f"{NNX}.{name}" for name in _KINDS if name != "MGUCell")  # nnx has no MGU cell

REGISTRY.handles(*_LINEN_CELLS, signature="features, **options")(build)
REGISTRY.handles(*_NNX_CELLS, signature="in_features, hidden_features, **options")(build)
_RNN_OPTIONS: Final = "time_major=False, return_carry=False, reverse=False, keep_order=False, unroll=1"
REGISTRY.handles(f"{LINEN}.RNN", signature=f"cell, {_RNN_OPTIONS}, **options")(build)
REGISTRY.handles(f"{NNX}.RNN", signature=f"cell, *, {_RNN_OPTIONS}, **options")(build)
REGISTRY.handles(*each(EQX_NN, "GRUCell", "LSTMCell"), signature="input_size, hidden_size, use_bias=True, "
                                                                 "dtype=None, *, key")(build)


def _kind(layer: Layer) -> str:
    return _KINDS[layer.name.rpartition(".")[2]]


_SHORT: Final = {LINEN: "nn", NNX: "nnx", EQX_NN: "eqx.nn"}


def _what(layer: Layer) -> str:
    """The layer's class as a program writes it (`nn.LSTMCell`)."""
    library, _, name = layer.name.rpartition(".")
    return f"{_SHORT.get(library, library)}.{name}"


def _compute_dtype(layer: Layer, operand: ArrayType) -> str | None:
    """What a flax cell's dense layers compute in: `layer_dtype`, except nnx's SimpleCell, whose
    `dtype` is float32 unless given."""
    if layer.name == f"{NNX}.SimpleCell" and not layer.passed("dtype"):
        return "f32"
    return layer_dtype(layer, operand)


def _carry_arrays(layer: Layer, carry: Value) -> tuple[ArrayType, ...] | None:
    """The arrays of a cell's carry: `(c, h)` for an LSTM, else one array (None where it is not
    that: Python fails to unpack it, or it is unknown)."""
    if _kind(layer) == recurrent.LSTM:
        if isinstance(carry, Seq) and len(carry.items) == 2 and all(isinstance(item, ArrayType) for item in carry.items):
            return tuple(item for item in carry.items if isinstance(item, ArrayType))
        return None
    return (carry,) if isinstance(carry, ArrayType) else None


def _residual(layer: Layer) -> bool | None:
    return flag(layer.setting("residual"), False) if layer.given("residual") else False


@LAYERS.rule(*_LINEN_CELLS, *_NNX_CELLS, signature="carry, inputs")
def flax_cell(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`cell(carry, x)`: `(new_carry, y)`. A linen cell reads its hidden features from the carry
    and takes any input features; an nnx cell is built for both, and refuses others (SC104)."""
    x, carry = call.arg("inputs"), _carry_arrays(layer, call.arg("carry"))
    residual = _residual(layer)
    if not isinstance(x, ArrayType) or carry is None or residual is None:
        return None
    what = _what(layer)
    nnx = layer.name.startswith(f"{NNX}.")
    hidden: Dim | Problem
    if nnx:
        hidden = as_dim(layer.setting("hidden_features"))
        inputs = as_dim(layer.setting("in_features"))
    else:
        hidden = recurrent.hidden_features(carry[-1], what)
        if isinstance(hidden, Problem):
            return refused(interp, call, hidden)

    def project(value: ArrayType, is_input: bool) -> Outcome:
        dtype = _compute_dtype(layer, value)
        if not nnx:
            return layers.dense(value, hidden, dtype, what)
        source = inputs if is_input else hidden
        return layers.kernel_linear(value, source, hidden, dtype,
                                    f"{what}'s {'input' if is_input else 'hidden'} projection "
                                    f"({shown(source)} to {shown(hidden)} features)")

    step = recurrent.flax_step(_kind(layer), x, carry, project, what, residual=residual)
    if step.problems or step.carry is None or step.output is None:
        interp.reporter.problems(step.problems, call.node, call.arg_nodes)
        return None
    if not nnx and x.rank and carry[-1].rank and x.ellipsis is None and carry[-1].ellipsis is None:
        _created(interp, layer, x.dims[-1], carry[-1].dims[-1])
    new_carry: Value = Seq(step.carry) if _kind(layer) == recurrent.LSTM else step.carry[0]
    return Seq((new_carry, step.output))


# The gates of each linen cell: its dense layers are `i<gate>` on the input, `h<gate>` on the
# hidden state (flax's names), each kernel made from what it is applied to.
_GATES: Final = {"LSTMCell": "ifgo", "OptimizedLSTMCell": "ifgo", "GRUCell": "rzn", "MGUCell": "fn", "SimpleCell": ""}


def _created(interp: Interpreter, layer: Layer, features: Dim, hidden: Dim) -> None:
    """The kernels a linen cell makes from its input's features and its carry's, for `init` and
    `apply` to be compared (`model_params`): flax refuses an `apply` whose inputs make other ones."""
    gates = _GATES[layer.name.rpartition(".")[2]]
    names = [(f"i{gate}", f"h{gate}") for gate in gates] if gates else [("i", "h")]
    params: dict[str, tuple[Dim, ...] | None] = {}
    for source, recurrent_name in names:
        params[f"{source}/kernel"] = (features, hidden)
        params[f"{recurrent_name}/kernel"] = (hidden, hidden)
    model_params.layer_created(interp, layer, "nn", params)


@REGISTRY.handles(*(f"attr:{cell}.initialize_carry" for cell in (*_LINEN_CELLS, *_NNX_CELLS)), signature="layer")
def initialize_carry_method(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`cell.initialize_carry`, waiting for its arguments."""
    layer = call.arg("layer")
    return Partial(Qual(f"{layer.name}.initialize_carry"), (layer,)) if isinstance(layer, Layer) else None


@REGISTRY.handles(*(f"{cell}.initialize_carry" for cell in _LINEN_CELLS), signature="self, rng, input_shape")
@REGISTRY.handles(*(f"{cell}.initialize_carry" for cell in _NNX_CELLS),
                  signature="self, input_shape, rngs=None, carry_init=None")
def initialize_carry(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`cell.initialize_carry(key, x.shape)` (nnx: `(x.shape)`): zeros of `x.shape[:-1] +
    (features,)` in the parameters' dtype; `(c, h)` for an LSTM. The shape is a tuple (a list
    fails in Python's `+`)."""
    layer, given = call.arg("self"), call.arg("input_shape")
    if not isinstance(layer, Layer) or not isinstance(given, Seq) or given.is_list:
        return None
    if layer.name.startswith(f"{NNX}.") and not passed(call, "rngs") and not (
            layer.given("keep_rngs") and flag(layer.setting("keep_rngs"), False)):
        return None  # nnx raises: no random stream for the carry's initializer (not a shape)
    return _initial_carry(layer, tuple(as_dim(item) for item in given.items))


def _initial_carry(layer: Layer, input_shape: tuple[Dim, ...]) -> Value:
    features = as_dim(layer.setting("hidden_features" if layer.name.startswith(f"{NNX}.") else "features"))
    made = recurrent.initial_carry(input_shape, features, param_dtype(layer), _kind(layer))
    return Seq(made) if len(made) == 2 else made[0]


# -- RNN ----------------------------------------------------------------------------------------

_RNN_CALL: Final = ("inputs, *, initial_carry=None, seq_lengths=None, return_carry=None, time_major=None, "
                    "reverse=None, keep_order=None")


@LAYERS.rule(f"{LINEN}.RNN", signature=f"{_RNN_CALL}, init_key=None")
@LAYERS.rule(f"{NNX}.RNN", signature=f"{_RNN_CALL}, rngs=None")
def rnn(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nn.RNN(cell)(x)`: the cell scanned over x's time axis (`(*batch, time, features)`, or time
    first where time-major), its outputs stacked there; `(carry, outputs)` with `return_carry`.
    The carry is the cell's `initialize_carry` for one step's shape unless `initial_carry` is
    given."""
    x, cell = call.arg("inputs"), layer.setting("cell")
    time_major, return_carry = _option(layer, call, "time_major"), _option(layer, call, "return_carry")
    if not isinstance(x, ArrayType) or time_major is None or return_carry is None:
        return None
    axis = recurrent.time_axis(x, time_major)
    if axis is None:
        return None
    sliced = recurrent.without_time(x, axis)
    if isinstance(sliced, Problem):
        return refused(interp, call, sliced)
    step, length = sliced
    init_node = None
    if passed(call, "initial_carry"):
        carry, init_node = call.arg("initial_carry"), call.arg_node("initial_carry")
    else:
        carry = _carry_for(interp, cell, step, call, ctx, nnx=layer.name.startswith(f"{NNX}."))
    if carry is None:
        return None
    scanned = control_api.scan_cell(
        interp, call, ctx, _what(layer), cell, carry, [step], init_node,
        advice="start from the cell's initialize_carry for one step's shape, or give the initial carry the "
               "input's batch dims, and a param_dtype the input does not widen")
    if scanned is None:
        return None
    final, y = scanned
    outputs = recurrent.with_time(y, axis, length) if isinstance(y, ArrayType) else None
    return Seq((final, outputs)) if return_carry else outputs


REGISTRY.handles(f"{LINEN}.Bidirectional", signature="forward_rnn, backward_rnn, merge_fn=None, time_major=False, "
                                                    "return_carry=False, **options")(build)
REGISTRY.handles(f"{NNX}.Bidirectional", signature="forward_rnn, backward_rnn, *, merge_fn=None, time_major=False, "
                                                   "return_carry=False, **options")(build)


@LAYERS.rule(f"{LINEN}.Bidirectional", signature=f"{_RNN_CALL}, init_key=None")
@LAYERS.rule(f"{NNX}.Bidirectional", signature=f"{_RNN_CALL}, rngs=None")
def bidirectional(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nn.Bidirectional(forward_rnn, backward_rnn)(x)`: both RNNs on x (the second backwards, its
    outputs kept in order), their outputs merged (concatenated along the features unless
    `merge_fn` says otherwise); `((forward carry, backward carry), outputs)` with `return_carry`."""
    x = call.arg("inputs")
    time_major, return_carry = _option(layer, call, "time_major"), _option(layer, call, "return_carry")
    if not isinstance(x, ArrayType) or time_major is None or return_carry is None:
        return None
    carries: list[Value] = [None, None]
    if passed(call, "initial_carry"):
        given = call.arg("initial_carry")
        if not (isinstance(given, Seq) and len(given.items) == 2):
            return None
        carries = list(given.items)
    results: list[Seq] = []
    for rnn_layer, carry in zip((layer.setting("forward_rnn"), layer.setting("backward_rnn")), carries, strict=True):
        options: dict[str, Value] = {"return_carry": Const(True), "time_major": Const(time_major)}
        if carry is not None:
            options["initial_carry"] = carry
        out = interp.call(rnn_layer, CallArgs(call.node, [x], [call.arg_node("inputs")], options,
                                              {name: call.node for name in options}), ctx, interp.scope)
        if not (isinstance(out, Seq) and len(out.items) == 2):
            return None
        results.append(out)
    forward, backward = results[0].items[1], results[1].items[1]
    merge = layer.setting("merge_fn") if layer.passed("merge_fn") else None
    if merge is not None:
        merged = interp.call(merge, CallArgs(call.node, [forward, backward], [call.node] * 2), ctx, interp.scope)
    elif isinstance(forward, ArrayType) and isinstance(backward, ArrayType):
        outcome = concatenate([forward, backward], -1, ("the forward RNN's outputs", "the backward RNN's outputs"))
        if outcome.problems:
            interp.reporter.problems(outcome.problems, call.node, call.arg_nodes)
            return None
        merged = outcome.type
    else:
        merged = None
    return Seq((Seq((results[0].items[0], results[1].items[0])), merged)) if return_carry else merged


def _option(layer: Layer, call: CallArgs, name: str) -> bool | None:
    """An RNN option, as the call overrides the layer's setting (False where neither gives it)."""
    if passed(call, name):
        return flag(call.arg(name), False)
    return flag(layer.setting(name), False) if layer.given(name) else False


def _carry_for(interp: Interpreter, cell: Value, step: ArrayType, call: CallArgs, ctx: Context, *,
               nnx: bool) -> Value:
    """The carry an RNN starts from: its cell's `initialize_carry` for one step's input shape
    (a program's own cell: its method of that name, called as the RNN's library calls it:
    linen's `(key, shape)`, nnx's `(shape, rngs)`)."""
    input_shape = tuple(step.dims)
    if isinstance(cell, Layer) and cell.name in (*_LINEN_CELLS, *_NNX_CELLS):
        return _initial_carry(cell, input_shape) if step.ellipsis is None else None
    if not isinstance(cell, Instance) or step.ellipsis is not None:
        return None
    method = cell.get("initialize_carry")
    if not isinstance(method, Function):
        return None
    shape = Seq(tuple(dim_value(dim) for dim in input_shape))
    args: list[Value] = [shape, None] if nnx else [None, shape]
    return interp.call(BoundFunction(cell, method), CallArgs(call.node, args, [call.node] * len(args)), ctx,
                       interp.scope)


# -- equinox ------------------------------------------------------------------------------------

@LAYERS.rule(*each(EQX_NN, "GRUCell", "LSTMCell"), signature="input, hidden, *, key=None")
def equinox_cell(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`cell(x, hidden)`: the new hidden state (an LSTM's `(h, c)`), one example at a time."""
    x, hidden = call.arg("input"), call.arg("hidden")
    lstm = layer.name.endswith("LSTMCell")
    carry: tuple[ArrayType, ...] | None = None
    if lstm and isinstance(hidden, Seq) and len(hidden.items) == 2:
        carry = tuple(item for item in hidden.items if isinstance(item, ArrayType))
    elif not lstm and isinstance(hidden, ArrayType):
        carry = (hidden,)
    use_bias = flag(layer.setting("use_bias"), True) if layer.given("use_bias") else True
    if not isinstance(x, ArrayType) or carry is None or len(carry) != (2 if lstm else 1) or use_bias is None:
        return None
    step = recurrent.equinox_step(recurrent.LSTM if lstm else recurrent.GATED, x, carry,
                                  as_dim(layer.setting("input_size")), as_dim(layer.setting("hidden_size")),
                                  weights_dtype(layer), use_bias, _what(layer))
    if step.problems or step.carry is None:
        interp.reporter.problems(step.problems, call.node, call.arg_nodes)
        return None
    return Seq(step.carry) if lstm else step.carry[0]
