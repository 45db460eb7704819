"""equinox.nn: layers built with their sizes (`eqx.nn.Linear(3, 4, key=k)`) and called on one
example (unbatched: a batch is `jax.vmap`'s); and `eqx.filter`, `partition` and `combine`, which
a training step splits a model's arrays from the rest with; and `eqx.filter_vmap`, `jax.vmap` with
in_axes and out_axes read leaf by leaf (`eqx.if_array`: arrays mapped, other leaves passed whole):
a layer built under it is an ensemble, its arrays stacked along out_axes, which a map along
that axis calls one member at a time (`ensembles`).

An equinox layer's parameters are made when it is built, so a call on an input of another size
fails in JAX (a contraction of different sizes, SC104) or in equinox (`LayerNorm`'s shape
check, SC103); both are reported with the sizes the layer was built with.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Final

from shapecheck.algebra import convolution, lax_rules, layers
from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.promotion import Typed, default, dtypes_differ, result_type
from shapecheck.analyzer import walk
from shapecheck.analyzer.calls import CallArgs, Signature
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import ensembles, vmap_api
from shapecheck.analyzer.library.common import (
    check_bound,
    finish,
    finished,
    flag,
    forwarded,
    passed,
    refused,
    reported,
)
from shapecheck.analyzer.library.layers_api import (
    LayerRules,
    Parameters,
    build,
    chained,
    floating,
    made_if,
    padding_of,
    parameter_reader,
    per_group_of,
    shown,
    shown_window,
    weights_dtype,
    window,
)
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.library.trees import no_leaves
from shapecheck.analyzer.qualnames import canonical
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Dict,
    Function,
    Layer,
    Partial,
    Qual,
    Seq,
    Value,
    Vmap,
    as_dim,
    as_int,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`
LAYERS = LayerRules()  # how each layer class is called; collected by `layer_calls`

EQX_NN: Final = "equinox.nn"
_CONV_OPTIONS: Final = "stride=1, padding=0, dilation=1, groups=1, use_bias=True, padding_mode='ZEROS', dtype=None, *, key"
_SPATIAL: Final = {f"{EQX_NN}.Conv1d": 1, f"{EQX_NN}.Conv2d": 2, f"{EQX_NN}.Conv3d": 3}
_TRANSPOSED: Final = {f"{EQX_NN}.ConvTranspose1d": 1, f"{EQX_NN}.ConvTranspose2d": 2, f"{EQX_NN}.ConvTranspose3d": 3}
_CONVOLUTIONS: Final = {**_SPATIAL, **_TRANSPOSED}

REGISTRY.handles(f"{EQX_NN}.Linear", signature="in_features, out_features, use_bias=True, dtype=None, *, key")(build)
REGISTRY.handles(f"{EQX_NN}.MLP", signature="in_size, out_size, width_size, depth, activation=None, "
                                           "final_activation=None, use_bias=True, use_final_bias=True, dtype=None, *, key")(build)
REGISTRY.handles(*_SPATIAL, signature=f"in_channels, out_channels, kernel_size, {_CONV_OPTIONS}")(build)
REGISTRY.handles(*_TRANSPOSED, signature=f"in_channels, out_channels, kernel_size, stride=1, output_padding=0, "
                                         f"{_CONV_OPTIONS.partition(', ')[2]}")(build)
REGISTRY.handles(f"{EQX_NN}.LayerNorm", signature="shape=None, eps=1e-05, use_weight=True, use_bias=True, dtype=None, "
                                                 "*, elementwise_affine=None")(build)
REGISTRY.handles(f"{EQX_NN}.Embedding", signature="num_embeddings=None, embedding_size=None, weight=None, dtype=None, "
                                                 "*, key=None")(build)
REGISTRY.handles(f"{EQX_NN}.Sequential", signature="layers")(build)
REGISTRY.handles(f"{EQX_NN}.Lambda", signature="fn")(build)
REGISTRY.handles(f"{EQX_NN}.Identity", signature="*args, **kwargs")(build)
REGISTRY.handles(f"{EQX_NN}.Dropout", signature="p=0.5, inference=False, *, deterministic=None")(build)
REGISTRY.handles(f"{EQX_NN}.MultiheadAttention",
                 signature="num_heads, query_size, key_size=None, value_size=None, output_size=None, qk_size=None, "
                           "vo_size=None, use_query_bias=False, use_key_bias=False, use_value_bias=False, "
                           "use_output_bias=False, dropout_p=0.0, inference=False, dtype=None, *, key")(build)


def _computed(layer: Layer, x: ArrayType) -> str | None:
    """What `weight @ x` computes in: the input's dtype promoted with the weights'."""
    weights = weights_dtype(layer)
    return result_type(Typed(x.dtype, x.weak), Typed(weights)).dtype if weights is not None else None


def _size(value: Value) -> Dim | str:
    """An int size, or "scalar" (a 0-d input or output)."""
    text = as_str(value)
    return text if text == "scalar" else as_dim(value)


@LAYERS.rule(f"{EQX_NN}.Linear", signature="x, *, key=None")
def linear(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    x = call.arg("x")
    if not isinstance(x, ArrayType):
        return None
    use_bias = flag(layer.setting("use_bias"), True) if layer.given("use_bias") else True
    outcome = layers.linear(x, _size(layer.setting("in_features")), _size(layer.setting("out_features")),
                            _computed(layer, x), bias=use_bias)
    return finish(interp, outcome, call, [call.arg_node("x")])


@LAYERS.rule(f"{EQX_NN}.MLP", signature="x, *, key=None")
def mlp(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """The first linear layer takes `in_size` features, and gives `width_size` (`out_size` where
    `depth` is 0); the last gives `out_size`."""
    x = call.arg("x")
    if not isinstance(x, ArrayType):
        return None
    depth, width = as_int(layer.setting("depth")), as_dim(layer.setting("width_size"))
    in_size, out_size = _size(layer.setting("in_size")), _size(layer.setting("out_size"))
    use_bias = flag(layer.setting("use_bias"), True) if layer.given("use_bias") else True
    final_bias = flag(layer.setting("use_final_bias"), True) if layer.given("use_final_bias") else True
    if not depth or width is None:
        return finish(interp, layers.linear(x, in_size, out_size, _computed(layer, x), "equinox.nn.MLP",
                                            bias=final_bias if depth == 0 else None), call, [call.arg_node("x")])
    first = finish(interp, layers.linear(x, in_size, width, _computed(layer, x), "equinox.nn.MLP's first Linear",
                                         bias=use_bias), call, [call.arg_node("x")])
    if not isinstance(first, ArrayType) or first.rank is None or first.rank == 0:
        return None
    # The hidden layers keep `first`'s shape (width first, a batch given by mistake after it);
    # the last one is a Linear of its own, with its own bias.
    last = layers.linear(first, width, out_size, _computed(layer, x), "equinox.nn.MLP's last Linear", bias=final_bias)
    return finish(interp, last, call, [call.arg_node("x")])


@LAYERS.rule(*_SPATIAL, signature="x, *, key=None")
def conv(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`x` is `(in_channels, *spatial)`; the kernel `(out_channels, in_channels // groups, *kernel)`."""
    x = call.arg("x")
    spatial = _SPATIAL[layer.name]
    if not isinstance(x, ArrayType) or x.rank != spatial + 1:
        return None  # another rank: equinox raises a ValueError, not reported
    kernel = window(layer.setting("kernel_size"), spatial)
    strides = window(layer.setting("stride"), spatial) if layer.given("stride") else (1,) * spatial
    dilation = window(layer.setting("dilation"), spatial) if layer.given("dilation") else (1,) * spatial
    padding = padding_of(layer.setting("padding"), spatial) if layer.given("padding") else ((0, 0),) * spatial
    padding_text = as_str(layer.setting("padding"))
    if padding_text is not None and padding_text.upper() == "SAME_LOWER":
        padding = "SAME_LOWER"
    groups = as_dim(layer.setting("groups")) if layer.given("groups") else 1
    in_channels, out_channels = as_dim(layer.setting("in_channels")), as_dim(layer.setting("out_channels"))
    if kernel is None or padding is None or not isinstance(groups, int) or groups <= 0:
        return None
    per_group = per_group_of(in_channels, groups)
    lhs = ArrayType(x.dtype, (1, *x.dims), x.named, None, x.named_open)
    rhs = ArrayType(weights_dtype(layer), (out_channels, per_group, *kernel))
    name = layer.name.rpartition(".")[2]
    # lax's convolution converts nothing: an input of another dtype than the weights is refused.
    if reported(interp, call, lax_rules.dtypes([x, rhs], f"equinox.nn.{name}", ["its input", "its weight"])):
        return None
    outcome = convolution.conv_general_dilated(
        lhs, rhs, strides, padding, rhs_dilation=dilation, feature_group_count=groups,
        what=f"equinox.nn.{name}({shown(in_channels)}, {shown(out_channels)}, {shown_window(kernel)})")
    result = finish(interp, outcome, call, [call.arg_node("x")] * 2)
    if outcome.problems or result.rank is None:
        return None
    return ArrayType(x.dtype, result.dims[1:], x.named, None, x.named_open)


@LAYERS.rule(*_TRANSPOSED, signature="x, *, key=None")
def conv_transpose(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`x` is `(in_channels, *spatial)`: equinox runs `lax.conv_general_dilated` with the input
    dilated by the stride and the padding transposed (`(k - 1) * dilation - p`, the output
    padding added at the end); 'SAME' pads to give `n * stride`."""
    x = call.arg("x")
    spatial = _TRANSPOSED[layer.name]
    if not isinstance(x, ArrayType) or x.rank != spatial + 1:
        return None  # another rank: equinox raises a ValueError, not reported
    kernel = window(layer.setting("kernel_size"), spatial)
    ones = (1,) * spatial
    strides = window(layer.setting("stride"), spatial) if layer.given("stride") else ones
    dilation = window(layer.setting("dilation"), spatial) if layer.given("dilation") else ones
    extra = window(layer.setting("output_padding"), spatial) if layer.given("output_padding") else (0,) * spatial
    given = layer.setting("padding") if layer.given("padding") else Const(0)
    mode = as_str(layer.setting("padding_mode")) if layer.given("padding_mode") else "ZEROS"
    groups = as_dim(layer.setting("groups")) if layer.given("groups") else 1
    in_channels, out_channels = as_dim(layer.setting("in_channels")), as_dim(layer.setting("out_channels"))
    if kernel is None or strides is None or dilation is None or extra is None or mode is None \
            or mode.upper() != "ZEROS" or not isinstance(groups, int) or groups <= 0:
        return None
    text = as_str(given)
    padding = convolution.gradient_padding(kernel, strides, dilation, extra,
                                           text if text is not None else padding_of(given, spatial))
    if padding is None:
        return None
    lhs = ArrayType(x.dtype, (1, *x.dims), x.named, None, x.named_open)
    rhs = ArrayType(weights_dtype(layer), (out_channels, per_group_of(in_channels, groups), *kernel))
    name = layer.name.rpartition(".")[2]
    if reported(interp, call, lax_rules.dtypes([x, rhs], f"equinox.nn.{name}", ["its input", "its weight"])):
        return None
    outcome = convolution.conv_general_dilated(
        lhs, rhs, ones, padding, lhs_dilation=strides, rhs_dilation=dilation, feature_group_count=groups,
        what=f"equinox.nn.{name}({shown(in_channels)}, {shown(out_channels)}, {shown_window(kernel)})")
    result = finish(interp, outcome, call, [call.arg_node("x")] * 2)
    if outcome.problems or result.rank is None:
        return None
    return ArrayType(x.dtype, result.dims[1:], x.named, None, x.named_open)


@LAYERS.rule(f"{EQX_NN}.LayerNorm", f"{EQX_NN}.RMSNorm", signature="x, state=None, *, key=None")
def layer_norm(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`eqx.nn.LayerNorm(shape)(x)`, `eqx.nn.RMSNorm(shape)(x)`: x of exactly that shape (one
    example; a batch is vmapped), given back in its dtype; `(output, state)` where a state is
    passed (as BatchNorm takes one)."""
    x = call.arg("x")
    if not isinstance(x, ArrayType):
        return None
    raw = layer.setting("shape")
    declared: tuple[Dim, ...] | None = None
    if isinstance(raw, Const) and raw.is_int:
        declared = (as_dim(raw),)
    elif isinstance(raw, Seq):
        declared = tuple(as_dim(item) for item in raw.items)
    if declared is not None:
        problem = layers.layer_norm_shape(x, declared, f"equinox.nn.{layer.name.rpartition('.')[2]}")
        if problem is not None:
            interp.reporter.problems([problem], call.node, [call.arg_node("x")])
            return None
    elif layer.passed("shape"):
        return None
    return _with_state(call, x)


def _with_state(call: CallArgs, out: ArrayType) -> Value:
    """A norm's result: `(output, state)` where a state was passed, the state unchanged."""
    return Seq((out, call.arg("state"))) if call.given("state") else out


REGISTRY.handles(f"{EQX_NN}.BatchNorm", signature="input_size, axis_name, eps=1e-05, channelwise_affine=True, "
                                                 "momentum=0.99, inference=False, dtype=None, mode='legacy'")(build)


@LAYERS.rule(f"{EQX_NN}.BatchNorm", signature="x, state, *, key=None, inference=None")
def batch_norm(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`eqx.nn.BatchNorm(input_size, axis_name)(x, state)`: `(output, state)`, x one example of
    `(input_size, ...)` under a `jax.vmap` that binds `axis_name`: in training its statistics
    are `lax.pmean` over that axis (SC202 where no map binds it), and each channel is normalised
    with its own (x's first dim is the layer's channels, SC103)."""
    x = call.arg("x")
    inference = flag(call.arg("inference"), False) if passed(call, "inference") else (
        flag(layer.setting("inference"), False) if layer.given("inference") else False)
    affine = flag(layer.setting("channelwise_affine"), True) if layer.given("channelwise_affine") else True
    mode = as_str(layer.setting("mode")) if layer.given("mode") else "legacy"
    if not isinstance(x, ArrayType) or x.rank is None or x.ellipsis is not None or None in (inference, affine, mode):
        return None
    size = as_dim(layer.setting("input_size"))
    what = f"equinox.nn.BatchNorm({shown(size)})"
    if x.rank == 0:
        return refused(interp, call, Problem(Code.AXIS_OUT_OF_RANGE, f"{what} normalises each channel of its input's "
                                             "first dim, but its input is a scalar", axes=(0,), operands=(0,)))
    if not inference:
        raw = layer.setting("axis_name")
        names = [as_str(raw)] if as_str(raw) is not None else [as_str(item) for item in raw.items] \
            if isinstance(raw, Seq) else []
        if names and None not in names and check_bound(interp, [name for name in names if name is not None], call,
                                                       ctx, call.node, f"{what}'s statistics (lax.pmean)"):
            return None
    # Its channels are vmapped together with the layer's statistics and weights (equal sizes);
    # only batch statistics of one channel, in 'batch' mode without weights, broadcast.
    broadcasts = x.dims[0] == 1 and not affine and not inference and mode == "batch"
    if certainly_differ(x.dims[0], size) and not broadcasts:
        return refused(interp, call, Problem(
            Code.ANNOTATION_MISMATCH, f"{what} normalises {shown(size)} channels, but its input {x.positional_text()} "
            f"has {shown(x.dims[0])} (its first dim: one example, vmapped over the batch)", operands=(0,)))
    statistics, stored = floating(x), weights_dtype(layer)
    if not inference:
        # Training mixes the batch's statistics (of the input's float type) into the running
        # ones (of the layer's dtype): 'ema' selects between the two and stores the mix, 'batch'
        # stores it; equinox's State keeps a value's dtype, lax.select takes one.
        mixed = result_type(Typed(statistics), Typed(stored)).dtype
        clash = dtypes_differ(Typed(statistics if mode != "batch" else mixed), Typed(stored))
        if clash:
            into = f", into {mixed}" if mode == "batch" else ""
            return refused(interp, call, Problem(
                Code.DTYPE_MISMATCH, f"{what} in training ({mode!r} mode) mixes its input's statistics, {statistics}, "
                f"with its running statistics, {stored}{into}, and keeps them as {stored}: equinox refuses the "
                "change of dtype (build it with the input's dtype, `dtype=`, or cast the input)", operands=(0,)))
    # The input less the statistics used (the running ones, but the batch's in 'batch' training),
    # scaled by the weights.
    used = statistics if mode == "batch" and not inference else stored
    dtype = result_type(Typed(x.dtype), Typed(used), *([Typed(stored)] if affine else [])).dtype
    return Seq((ArrayType(dtype, x.dims, x.named, None, x.named_open), call.arg("state")))



@REGISTRY.handles(f"{EQX_NN}.make_with_state", signature="make_model")
def make_with_state(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`eqx.nn.make_with_state(Model)`, waiting for the model's arguments."""
    return Partial(Qual(f"{EQX_NN}.make_with_state.made"), (call.arg("make_model"),))


@REGISTRY.handles(f"{EQX_NN}.make_with_state.made", signature="make_model, *args, **kwargs")
def made_with_state(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`eqx.nn.make_with_state(Model)(*args)`: `(model, state)`, the model as built (its state,
    the layers' running statistics, is not followed)."""
    model = interp.call(call.arg("make_model"), forwarded(call, call.rest()), ctx, scope)
    return Seq((model, None)) if model is not None else None


REGISTRY.handles(f"{EQX_NN}.RMSNorm", signature="shape, eps=1e-05, use_weight=True, use_bias=True, dtype=None")(build)


@REGISTRY.handles(f"{EQX_NN}.GroupNorm", signature="groups, channels=None, eps=1e-05, channelwise_affine=True, "
                                                  "dtype=None")
def group_norm_layer(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Built with its groups and channels: groups that do not divide the channels are refused here
    (a ValueError), before any input."""
    layer = build(interp, call, ctx, scope)
    if not isinstance(layer, Layer):
        return None
    groups = as_dim(layer.setting("groups"))
    if layer.passed("channels"):
        channels = as_dim(layer.setting("channels"))
        problem = layers.groups_divide(channels, groups, f"equinox.nn.GroupNorm({shown(groups)}, {shown(channels)})",
                                       where="it is built for")
        if problem is not None:
            interp.reporter.problems([problem], call.node, call.arg_nodes)
            return None
    return layer


@LAYERS.rule(f"{EQX_NN}.GroupNorm", signature="x, state=None, *, key=None")
def group_norm(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`eqx.nn.GroupNorm(groups, channels)(x)`: x is `(channels, ...)`, one example; its channels
    reshaped into the groups (which must divide them), and, with the affine weights, of the
    channels the layer was built for. Given back in its dtype."""
    x = call.arg("x")
    groups = as_dim(layer.setting("groups"))
    affine = flag(layer.setting("channelwise_affine"), True) if layer.given("channelwise_affine") else True
    if not isinstance(x, ArrayType) or x.rank is None or x.ellipsis is not None or affine is None:
        return None
    what = f"equinox.nn.GroupNorm({shown(groups)})"
    if x.rank == 0:
        return refused(interp, call, Problem(Code.AXIS_OUT_OF_RANGE, f"{what} reads the channels from the input's "
                                             "first dim, but its input is a scalar", axes=(0,), operands=(0,)))
    problem = layers.groups_divide(x.dims[0], groups, what, where="of its input's first dim")
    if problem is not None:
        return refused(interp, call, problem)
    channels = as_dim(layer.setting("channels")) if layer.passed("channels") else None
    if affine and isinstance(channels, int) and channels != 1 and certainly_differ(channels, x.dims[0]):
        return refused(interp, call, Problem(
            Code.BROADCAST_MISMATCH, f"equinox.nn.GroupNorm({shown(groups)}, {channels}) scales {channels} channels, "
            f"but its input {x.positional_text()} has {shown(x.dims[0])} (its first dim; vmap it over a batch)",
            operands=(0,)))
    return _with_state(call, x)


@LAYERS.rule(f"{EQX_NN}.Embedding", signature="x, *, key=None")
def embedding(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """A scalar index gives one row `(embedding_size,)` (more indices: equinox raises)."""
    x = call.arg("x")
    if not isinstance(x, ArrayType) or x.rank != 0 or layer.given("weight") or not layer.given("embedding_size"):
        return None
    dtype = weights_dtype(layer) if layer.given("dtype") else None
    return ArrayType(dtype, (as_dim(layer.setting("embedding_size")),), x.named, None, x.named_open)


@LAYERS.rule(f"{EQX_NN}.Sequential", signature="x, state=None, *, key=None")
def sequential(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """Each layer on what the one before returned; with a `state`, (output, state): not followed."""
    if call.given("state"):
        return None
    first = CallArgs(call.node, [call.arg("x")], [call.arg_node("x")])
    return chained(interp, layer.setting("layers"), call, ctx, spread=False, first=first)


@LAYERS.rule(f"{EQX_NN}.Lambda", signature="x, *, key=None")
def lambda_(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`eqx.nn.Lambda(fn)(x)` is `fn(x)`."""
    return interp.call(layer.setting("fn"), CallArgs(call.node, [call.arg("x")], [call.arg_node("x")]), ctx,
                       interp.scope)


@LAYERS.rule(f"{EQX_NN}.Identity", signature="x, *, key=None")
def identity(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    return call.arg("x")


@LAYERS.rule(f"{EQX_NN}.Dropout", signature="x, *, key=None, inference=None, deterministic=None")
def dropout(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """The input's shape; its dtype too where no element is dropped (`inference`, or `p=0`),
    else that of `x / (1 - p)`: a float input's, an integer's promoted to the default float."""
    x = call.arg("x")
    if not isinstance(x, ArrayType):
        return None
    # The call's `deterministic` (deprecated), else its `inference`, else the layer's.
    inference: Value = Const(None)
    for name in ("deterministic", "inference"):
        if passed(call, name):
            inference = call.arg(name)
            break
    if inference == Const(None):
        inference = layer.setting("inference") if layer.given("inference") else Const(False)
    p = layer.setting("p") if layer.given("p") else Const(0.5)
    if inference == Const(True) or (isinstance(p, Const) and isinstance(p.value, int | float) and p.value == 0):
        return x
    kept = result_type(Typed(x.dtype, x.weak), Typed(default("f").dtype, True))
    return ArrayType(kept.dtype, x.dims, x.named, x.ellipsis, x.named_open, kept.weak)


@LAYERS.rule(f"{EQX_NN}.MultiheadAttention",
             signature="query, key_, value, mask=None, *, key=None, inference=None, deterministic=None, "
                       "process_heads=None")
def multihead_attention(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`eqx.nn.MultiheadAttention(num_heads, query_size)(q, k, v)`: unbatched `(length, features)`
    sequences, their features those the projections were built for (`key_size` and
    `value_size` default to `query_size`); `(query length, output_size)` out, `output_size`
    defaulting to `query_size`. The dtype is the inputs' and the parameters' promoted."""
    query, key, value, mask = (call.arg(name) for name in ("query", "key_", "value", "mask"))
    if not (isinstance(query, ArrayType) and isinstance(key, ArrayType) and isinstance(value, ArrayType)):
        return None
    query_size = as_dim(layer.setting("query_size"))

    def size(name: str) -> Dim:
        given = layer.setting(name) if layer.given(name) else Const(None)
        return query_size if given == Const(None) else as_dim(given)

    dtype = result_type(*(Typed(x.dtype, x.weak) for x in (query, key, value)), Typed(weights_dtype(layer))).dtype
    heads = as_dim(layer.setting("num_heads"))
    outcome = layers.unbatched_attention(
        query, key, value, mask if isinstance(mask, ArrayType) else None, heads,
        (query_size, size("key_size"), size("value_size")), size("output_size"), dtype,
        f"equinox.nn.MultiheadAttention({shown(heads)}, {shown(query_size)})")
    return finished(interp, call, outcome, [call.arg_node(name) for name in ("query", "key_", "value", "mask")])


# -- a built layer's parameters, read as its attributes (`model.layers[0].weight`) -------------

def _parameters(layer: Layer) -> Parameters:
    """The arrays equinox builds a layer with, by attribute (`layers_api.Parameters`)."""
    kind = layer.name.rpartition(".")[2]
    if kind == "Linear":
        in_features, out_features = _size(layer.setting("in_features")), _size(layer.setting("out_features"))
        if isinstance(in_features, str) or isinstance(out_features, str):
            return {}  # "scalar" sizes: not followed
        return {"weight": (out_features, in_features), "bias": made_if(layer, "use_bias", (out_features,))}
    if kind == "Embedding":
        if layer.passed("weight"):
            return {}
        return {"weight": (as_dim(layer.setting("num_embeddings")), as_dim(layer.setting("embedding_size")))}
    if kind == "LayerNorm":
        raw = layer.setting("shape")
        shape = (as_dim(raw),) if isinstance(raw, Const) and raw.is_int else \
            tuple(as_dim(item) for item in raw.items) if isinstance(raw, Seq) else None
        return {"weight": made_if(layer, "use_weight", shape), "bias": made_if(layer, "use_bias", shape)}
    spatial = _CONVOLUTIONS[layer.name]
    kernel = window(layer.setting("kernel_size"), spatial)
    in_channels, out_channels = as_dim(layer.setting("in_channels")), as_dim(layer.setting("out_channels"))
    groups = as_dim(layer.setting("groups")) if layer.given("groups") else 1
    return {"weight": (out_channels, per_group_of(in_channels, groups), *kernel) if kernel is not None else None,
            "bias": made_if(layer, "use_bias", (out_channels, *(1,) * spatial))}


_PARAMETERS: Final = (f"{EQX_NN}.Linear", f"{EQX_NN}.LayerNorm", *_CONVOLUTIONS)
REGISTRY.handles(*(f"attr:{kind}.weight" for kind in (*_PARAMETERS, f"{EQX_NN}.Embedding")),
                 signature="layer")(parameter_reader("weight", _parameters, lambda layer, name: weights_dtype(layer)))
REGISTRY.handles(*(f"attr:{kind}.bias" for kind in _PARAMETERS),
                 signature="layer")(parameter_reader("bias", _parameters, lambda layer, name: weights_dtype(layer)))


_ARRAY_FILTERS: Final = frozenset({"equinox.is_array", "equinox.is_inexact_array"})


def _arrays_of(call: CallArgs) -> Value:
    """The tree itself where the filter keeps its arrays (the rest is None in equinox, and no
    shape is read from it); unknown under another filter."""
    spec = call.arg("filter_spec")
    if isinstance(spec, Qual) and canonical(spec.name) in _ARRAY_FILTERS:
        return call.arg("pytree")
    return None


@REGISTRY.handles("equinox.filter", signature="pytree, filter_spec, inverse=False, replace=None, is_leaf=None")
def filter_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _arrays_of(call) if not call.given("inverse") else None  # the inverse keeps the rest


@REGISTRY.handles("equinox.partition", signature="pytree, filter_spec, replace=None, is_leaf=None")
def partition(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`params, static = eqx.partition(model, eqx.is_array)`: the arrays, and the rest (unknown)."""
    arrays = _arrays_of(call)
    return Seq((arrays, None)) if arrays is not None else None


@REGISTRY.handles("equinox.combine", signature="*pytrees, is_leaf=None")
def combine(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`eqx.combine(params, static)`: the model again, its arrays those of the first tree."""
    trees = call.rest()
    return trees[0] if trees else None


# -- filter_vmap ------------------------------------------------------------------------------

FILTER_VMAP: Final = "equinox.filter_vmap"
FILTER_PMAP: Final = "equinox.filter_pmap"
IF_ARRAY: Final = "equinox.if_array"
# `eqx.filter_vmap(f)` and `eqx.if_array(axis)` are partial applications of these names (no
# program can write them): calling one reaches its handler with what it holds.
_FILTER_VMAPPED: Final = f"{FILTER_VMAP}()"
_FILTER_VMAP_BODY: Final = f"{FILTER_VMAP}().body"  # the function, as `ensembles.unstacking` wraps it
_IF_ARRAY_CALL: Final = f"{IF_ARRAY}()"
_IF_ARRAY_0: Final = Partial(Qual(_IF_ARRAY_CALL), (Const(0),))
_MAP_SIGNATURE: Final = Signature.parse(vmap_api.VMAP_SIGNATURE)
_PMAP_SIGNATURE: Final = Signature.parse(vmap_api.PMAP_SIGNATURE)


@REGISTRY.handles(IF_ARRAY, signature="axis")
def if_array(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`eqx.if_array(axis)`: a callable, held until it is called or `filter_vmap` reads it."""
    return Partial(Qual(_IF_ARRAY_CALL), (call.arg("axis"),))


@REGISTRY.handles(_IF_ARRAY_CALL, signature="axis, /, x")
def if_array_call(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`eqx.if_array(axis)(x)`: the axis for an array, None for anything else."""
    x = call.arg("x")
    return call.arg("axis") if isinstance(x, ArrayType) else Const(None) if isinstance(x, Const) else None


@REGISTRY.handles(FILTER_VMAP, takes_functions=True, binds_names=True,
                  signature="fun=None, *, in_axes=if_array(0), out_axes=if_array(0), axis_name=None, axis_size=None, "
                            "**vmapkwargs")
# `filter_pmap`: the same resolution of in_axes, over devices (its axis_name bound as pmap's).
@REGISTRY.handles(FILTER_PMAP, takes_functions=True, binds_names=True,
                  signature="fun=None, *, in_axes=if_array(0), out_axes=if_array(0), axis_name=None, axis_size=None, "
                            "donate='none', **pmapkwargs")
def filter_vmap(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`jax.vmap`'s map of `fun`, called through `filter_vmapped`, which reads in_axes against the
    arguments; without `fun` (`@eqx.filter_vmap(in_axes=...)`), the options, waiting for it."""
    if call.opaque:
        return None
    if not call.given("fun"):
        return Partial(Qual(call.name), (), tuple(call.kwargs.items()))
    options = {name: call.arg(name) for name in ("out_axes", "axis_name", "axis_size") if call.given(name)}
    nodes = {name: call.arg_node(name) for name in options}
    options.setdefault("out_axes", _IF_ARRAY_0)
    bound = CallArgs(call.node, [call.arg("fun")], [call.arg_node("fun")], options, nodes)
    pmap = call.name == FILTER_PMAP
    bound.signature, bound.name = _PMAP_SIGNATURE if pmap else _MAP_SIGNATURE, call.name
    mapped = vmap_api.batch_map(interp, bound, "pmap" if pmap else "vmap")
    in_axes = call.arg("in_axes") if call.given("in_axes") else _IF_ARRAY_0
    return Partial(Qual(_FILTER_VMAPPED), (mapped, in_axes)) if mapped is not None else None


@REGISTRY.handles(_FILTER_VMAPPED, signature="map, in_axes, /, *args, **kwargs")
def filter_vmapped(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The map with in_axes and out_axes read leaf by leaf, as equinox resolves them: arrays
    mapped, other leaves passed whole and returned as they are. Where nothing is mapped and no
    axis_size given, equinox runs the function once, and refuses array outputs (SC002)."""
    vm, in_axes, args = call.arg("map"), call.arg("in_axes"), call.rest()
    if call.opaque or not isinstance(vm, Vmap):
        return None
    api = FILTER_PMAP if vm.kind == "pmap" else FILTER_VMAP
    if call.keywords():
        return refused(interp, call, Problem(
            Code.INVALID_AXIS_SPEC, f"{api}: a function it wraps takes no keyword arguments (a "
            f"RuntimeError); pass {', '.join(f'`{name}`' for name in call.keywords())} by position"))
    if vmap_api.listed_in_axes(interp, in_axes, call.node, api):
        return None
    if isinstance(in_axes, Dict):
        in_axes = _named_in_axes(interp, call, vm.fun, in_axes, len(args))
    if isinstance(in_axes, Seq) and len(in_axes.items) != len(args):
        entries = len(in_axes.items)
        return refused(interp, call, Problem(
            Code.INVALID_AXIS_SPEC, f"{api}: in_axes has {entries} entr{'y' if entries == 1 else 'ies'}, "
            f"but the call passes {len(args)} argument{'' if len(args) == 1 else 's'}; give one entry per argument"))
    if in_axes is None:
        return None
    resolved = _resolved(in_axes, Seq(tuple(args)))
    given = forwarded(call, args)
    if vm.axis_size is None and not vm.axis_size_unread and no_leaves(resolved):
        out = interp.call(vm.fun, given, ctx, scope)
        if _maps_arrays(_resolved(vm.out_axes, out), out):
            return refused(interp, call, Problem(
                Code.INVALID_AXIS_SPEC, f"{api} maps no argument (no array leaf has an in_axes entry) "
                "and is given no axis_size, so it cannot size the axis its array outputs are mapped along; map an "
                "array or give axis_size="))
        return out
    # A module the function builds comes back stacked (an ensemble); one mapped in, unstacked.
    wrapped, given = ensembles.unstacking(replace(vm, in_axes=resolved), given, ctx, _FILTER_VMAP_BODY)
    result = vmap_api.map_call(interp, wrapped, given, ctx, scope, out_axes=lambda out: _resolved(vm.out_axes, out))
    return ensembles.restacked(result, _resolved(vm.out_axes, result))


REGISTRY.handles(_FILTER_VMAP_BODY, signature=ensembles.BODY_SIGNATURE)(ensembles.body)


def _named_in_axes(interp: Interpreter, call: CallArgs, fun: Value, in_axes: Dict, count: int) -> Value:
    """A dict in_axes by parameter name, as a tuple (`if_array(0)` for the arguments it does not
    name); a name no argument passed has is refused (SC002)."""
    keyed = {as_str(key): value for key, value in in_axes.items}
    if not isinstance(fun, Function) or None in keyed:
        return None
    names = [param.node.arg for param in walk.parameters(fun.node.args)][:count]
    entries = tuple(keyed.pop(name, _IF_ARRAY_0) for name in names)
    if keyed:
        refused(interp, call, Problem(
            Code.INVALID_AXIS_SPEC, f"equinox.filter_vmap: in_axes names {', '.join(repr(name) for name in keyed)}, "
            "but no argument passed binds that parameter"))
        return None
    return Seq(entries)


def _resolved(spec: Value, value: Value) -> Value:
    """An axis spec for `value`, as equinox resolves it: `if_array(k)` is k on each array leaf and
    None on the others; an int or None stands for its whole subtree; a container is matched
    with `value`'s (where they differ, left to JAX's rules, which refuse it)."""
    if isinstance(spec, Partial) and spec.func == Qual(_IF_ARRAY_CALL) and len(spec.args) == 1:
        return _on_leaves(spec.args[0], value)
    if isinstance(spec, Seq) and isinstance(value, Seq) and spec.is_list == value.is_list \
            and len(spec.items) == len(value.items):
        return replace(spec, items=tuple(_resolved(s, v) for s, v in zip(spec.items, value.items, strict=True)))
    if isinstance(spec, Dict) and isinstance(value, Dict):
        members = {as_str(key): item for key, item in value.items}
        if len(members) == len(spec.items) and all(as_str(key) in members for key, _ in spec.items):
            return replace(spec, items=tuple((key, _resolved(item, members[as_str(key)])) for key, item in spec.items))
    return spec


def _on_leaves(axis: Value, value: Value) -> Value:
    """`if_array(axis)` on each leaf of `value`."""
    if isinstance(value, ArrayType):
        return axis
    if isinstance(value, Const):
        return Const(None)  # a number, a string, None: not an array
    if isinstance(value, Seq):
        return Seq(tuple(_on_leaves(axis, item) for item in value.items), value.is_list)
    if isinstance(value, Dict):
        return Dict(tuple((key, _on_leaves(axis, item)) for key, item in value.items))
    return axis  # a module, or unknown: its arrays, if any, are mapped (and it is unknown inside)


def _maps_arrays(spec: Value, value: Value) -> bool:
    """Whether a resolved out_axes certainly gives an array of `value` an axis (not weakly typed:
    a Python number the checker folded into an array is not one)."""
    if isinstance(spec, Seq) and isinstance(value, Seq) and len(spec.items) == len(value.items):
        return any(_maps_arrays(s, v) for s, v in zip(spec.items, value.items, strict=True))
    if as_int(spec) is None:
        return False
    if isinstance(value, Seq):
        return any(_maps_arrays(spec, item) for item in value.items)
    return isinstance(value, ArrayType) and not value.weak
