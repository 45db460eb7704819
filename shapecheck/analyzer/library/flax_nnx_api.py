"""flax.nnx: layers built with their sizes (`nnx.Linear(784, 256, rngs=rngs)`) as attributes of a
module's `__init__`, and called in its `__call__` on batched inputs; a module's own parameters
(`nnx.Param`), read as the arrays they hold; and nnx's `jit` and gradients.

An nnx layer makes its parameters when it is built, so a call on an input of another size fails
in JAX: a contraction of different sizes (`Linear`, `Conv`, `MultiHeadAttention`'s projections:
SC104) or a scale and bias that do not fit the input's features (`LayerNorm`, `RMSNorm`,
`BatchNorm`: SC103). Each is reported with the sizes the layer was built with. A module of the
program's own (`class MLP(nnx.Module)`) is an object like any other: its fields hold the layers
`__init__` built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import attention as attention_algebra
from shapecheck.algebra import layers
from shapecheck.algebra.outcome import Problem
from shapecheck.analyzer import containers
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import sharding_api, transforms
from shapecheck.analyzer.library.builtins_api import dict_
from shapecheck.analyzer.library.common import dtype_arg, finish, flag, passed, refused
from shapecheck.analyzer.library.layers_api import (
    LayerRules,
    Parameters,
    attend,
    attend_method,
    attention_mask,
    build,
    chained,
    dot_product_attention,
    flag_setting,
    flax_conv,
    flax_conv_transpose,
    flax_dropout,
    flax_einsum,
    flax_embedding,
    layer_dtype,
    made_if,
    normalized_dtype,
    param_dtype,
    parameter_reader,
    per_group_of,
    shown,
    shown_window,
    window,
)
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Layer, Seq, Value, as_dim, as_str
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_shape
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`
LAYERS = LayerRules()  # how each layer class is called; collected by `layer_calls`

NNX: Final = "flax.nnx"
# What every nnx layer takes besides its sizes (`rngs`, keyword-only in all of them, among the options).
_OPTIONS: Final = "dtype=None, param_dtype=None, **options"

REGISTRY.handles(f"{NNX}.Linear", signature=f"in_features, out_features, *, use_bias=True, {_OPTIONS}")(build)
REGISTRY.handles(f"{NNX}.Embed", signature=f"num_embeddings, features, *, {_OPTIONS}")(build)
REGISTRY.handles(f"{NNX}.Conv", signature="in_features, out_features, kernel_size, strides=1, *, padding='SAME', "
                                          "input_dilation=1, kernel_dilation=1, feature_group_count=1, "
                                          f"use_bias=True, mask=None, {_OPTIONS}")(build)
REGISTRY.handles(f"{NNX}.ConvTranspose", signature="in_features, out_features, kernel_size, strides=None, *, "
                                                   "padding='SAME', kernel_dilation=None, use_bias=True, mask=None, "
                                                   f"transpose_kernel=False, {_OPTIONS}")(build)
REGISTRY.handles(*each(NNX, "LayerNorm", "RMSNorm", "BatchNorm", "InstanceNorm"),
                 signature=f"num_features, *, {_OPTIONS}")(build)
REGISTRY.handles(f"{NNX}.PReLU", signature=f"negative_slope_init=0.01, *, {_OPTIONS}")(build)
REGISTRY.handles(f"{NNX}.Einsum", signature=f"einsum_str, kernel_shape, bias_shape=None, *, {_OPTIONS}")(build)
REGISTRY.handles(f"{NNX}.Dropout", signature="rate, *, broadcast_dims=(), deterministic=False, **options")(build)
REGISTRY.handles(f"{NNX}.Sequential", signature="*fns")(build)


_ATTENTION: Final = f"{NNX}.MultiHeadAttention"


@REGISTRY.handles(_ATTENTION, signature="num_heads, in_features, qkv_features=None, out_features=None, "
                                        f"in_kv_features=None, *, decode=None, {_OPTIONS}")
def attention_layer(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Built with its sizes: heads that do not divide the query/key/value features are refused
    here (a ValueError), before any input."""
    layer = build(interp, call, ctx, scope)
    if not isinstance(layer, Layer):
        return None
    heads, in_features = as_dim(layer.setting("num_heads")), as_dim(layer.setting("in_features"))
    features = _or(layer, "qkv_features", in_features)
    problem = layers.groups_divide(features, heads, _what(layer, heads, in_features), "query/key/value features",
                                   "heads", "it is built with")
    if problem is not None:
        interp.reporter.problems([problem], call.node, call.arg_nodes)
        return None
    return layer


def _or(layer: Layer, name: str, default: Dim) -> Dim:
    """A size setting, `default` where it is not given or given as None."""
    return as_dim(layer.setting(name)) if layer.passed(name) else default


@LAYERS.rule(_ATTENTION, signature="inputs_q, inputs_k=None, inputs_v=None, *, mask=None, deterministic=None, "
                                   "rngs=None, sow_weights=False, decode=None, is_causal=False")
def attention(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """Self-attention, or cross-attention over `inputs_k` (the value is the key unless given),
    and its `mask` (`_masked`). Unknown where `decode` is given nowhere (nnx refuses: not a shape
    rule) or is not False (the decoding cache), and where a value other than the key is given."""
    query = call.arg("inputs_q")
    decode = call.arg("decode") if passed(call, "decode") else layer.setting("decode")
    if not isinstance(query, ArrayType) or decode != Const(False) or call.given("inputs_v"):
        return None
    key = call.arg("inputs_k") if passed(call, "inputs_k") else query
    if not isinstance(key, ArrayType):
        return None
    heads, in_features = as_dim(layer.setting("num_heads")), as_dim(layer.setting("in_features"))
    what = _what(layer, heads, in_features)
    outcome = layers.projected_attention(query, key, in_features, _or(layer, "in_kv_features", in_features),
                                         _or(layer, "out_features", in_features), layer_dtype(layer, query, key), what)
    result = finish(interp, outcome, call, [call.arg_node("inputs_q"), call.arg_node("inputs_k")])
    return None if outcome.problems else _masked(interp, layer, call, query, key, result, what)


def _masked(interp: Interpreter, layer: Layer, call: CallArgs, query: ArrayType, key: ArrayType, result: ArrayType,
            what: str) -> Value:
    """The attention's `mask`, which must broadcast with its weights `(batch..., heads, q_length,
    kv_length)`: as jax.nn's attention takes it where nnx runs that (no dropout, weights not
    sown), else as `jnp.where` broadcasts (a mask that widens the weights widens the output: not
    followed). A causal mask over the latter, and a custom `attention_fn`, are not followed."""
    if not passed(call, "mask") or layer.given("attention_fn"):
        return result
    mask = call.arg("mask")
    if not isinstance(mask, ArrayType) or result.rank is None:
        return result  # a mask of unknown shape is taken to fit, as one of unknown rank is
    rate = layer.setting("dropout_rate") if layer.passed("dropout_rate") else Const(0.0)
    sown = flag(call.arg("sow_weights")) if call.given("sow_weights") else False
    causal = flag(call.arg("is_causal")) if call.given("is_causal") else False
    if not isinstance(rate, Const) or not isinstance(rate.value, int | float) or sown is None or causal is None:
        return None
    batch, heads, target, source = query.dims[:-2], as_dim(layer.setting("num_heads")), query.dims[-2], key.dims[-2]
    if rate.value == 0 and not sown:
        problem = attention_algebra.fused_mask(mask, batch, heads, target, source, what)
        return refused(interp, call, problem) if problem is not None else result
    if causal:
        return None
    problem, widened = attention_algebra.masked_weights(mask, (*batch, heads, target, source), what)
    if problem is not None:
        return refused(interp, call, problem)
    return None if widened else result


# -- variables: a module's own parameters and state -------------------------------------------

_VARIABLES: Final = each(NNX, "Variable", "Param", "BatchStat", "Cache", "Intermediate", "Perturbation")


@REGISTRY.handles(*_VARIABLES, signature="value, **metadata")
def variable(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`self.w = nnx.Param(jax.random.uniform(key, (din, dout)))`: read as the value it holds,
    which nnx's variables stand in for in arithmetic (`x @ self.w + self.b`), indexing
    (`self.w[...]`) and `jnp` functions alike."""
    return call.arg("value")


@REGISTRY.handles("attr:value", signature="a")
@REGISTRY.handles("method:get_value", signature="a")
def held(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`self.w.value`, `self.w.get_value()`: the array an nnx variable holds, which the checker
    reads the variable as (a JAX array itself has neither)."""
    return call.arg("a")


@LAYERS.rule(f"{NNX}.ConvTranspose", signature="inputs")
def conv_transpose(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nnx.ConvTranspose(in_features, out_features, kernel_size)(x)`: as linen's, its kernel built
    for `in_features` (another input's features: SC104)."""
    x = call.arg("inputs")
    if not isinstance(x, ArrayType):
        return None
    in_features, out_features = as_dim(layer.setting("in_features")), as_dim(layer.setting("out_features"))
    output, _ = flax_conv_transpose(interp, layer, call, x, in_features, out_features,
                                    lambda size: f"flax.nnx.ConvTranspose({shown(in_features)}, {shown(out_features)}, "
                                                 f"{shown_window(size)})")
    return output


@REGISTRY.handles(f"{NNX}.GroupNorm", signature="num_features, num_groups=32, group_size=None, *, "
                                               f"use_bias=True, use_scale=True, {_OPTIONS}")
def group_norm_layer(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Built with its features split into groups: a count (`num_groups`, 32 by default) or a size
    (`group_size`, with `num_groups=None`) that does not divide them is refused here (a
    ValueError), before any input. Neither, or both, given is refused too (not a shape rule:
    unknown)."""
    layer = build(interp, call, ctx, scope)
    if not isinstance(layer, Layer) or _groups(layer) is False:
        return None
    features = as_dim(layer.setting("num_features"))
    by_size = layer.passed("group_size")
    problem = layers.groups_divide(features, as_dim(layer.setting("group_size")) if by_size else _or(layer, "num_groups", 32),
                                   _what(layer, features), "features", "channels per group" if by_size else "groups",
                                   "it is built with")
    if problem is not None:
        interp.reporter.problems([problem], call.node, call.arg_nodes)
        return None
    return layer


def _groups(layer: Layer) -> Dim | bool:
    """How many groups a GroupNorm splits its features into: `num_groups` (32 by default), else
    `num_features // group_size`; False where nnx refuses the pair (neither or both given)."""
    counted = layer.passed("num_groups") or not layer.given("num_groups")
    if counted == layer.passed("group_size"):
        return False
    if counted:
        return _or(layer, "num_groups", 32)
    features, size = as_dim(layer.setting("num_features")), as_dim(layer.setting("group_size"))
    return features // size if isinstance(features, int) and isinstance(size, int) and size > 0 else None


@LAYERS.rule(f"{NNX}.GroupNorm", signature="x, *, mask=None")
def group_norm(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`(batch, ..., features)`, its features those it was built with, reshaped into the groups
    (another count: SC105); a batch dim is needed (nnx reduces from axis 1: SC106)."""
    x = call.arg("x")
    groups = _groups(layer)
    if not isinstance(x, ArrayType) or x.rank is None or x.ellipsis is not None or layer.given("reduction_axes") \
            or groups is False or call.given("mask"):
        return None
    features = as_dim(layer.setting("num_features"))
    what = _what(layer, features)
    if x.rank == 0:
        return None  # reshaped into the groups, or refused as that fails: not followed
    if certainly_differ(x.dims[-1], features):
        return refused(interp, call, Problem(
            Code.RESHAPE_MISMATCH, f"{what} splits its input's last dim into its {shown(groups)} groups of its "
            f"{shown(features)} features, but that dim is {shown(x.dims[-1])}", sizes=(x.dims[-1], features)))
    if x.rank == 1:
        return refused(interp, call, Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what} normalises (batch, ..., features) and reduces from axis 1, but its "
            f"input has shape {format_shape(x.dims)}: add a batch dim", axes=(1,)))
    parameters = flag_setting(layer, "use_scale"), flag_setting(layer, "use_bias")
    has = None if None in parameters else any(parameters)
    return ArrayType(normalized_dtype(layer, x, has), x.dims, x.named, None, x.named_open)


# -- a built layer's parameters, read as its attributes (`self.linear.kernel.value`) ------------

def _parameters(layer: Layer) -> Parameters:
    """The parameters nnx builds a layer with, by attribute (`layers_api.Parameters`)."""
    kind = layer.name.rpartition(".")[2]
    if kind == "Linear":
        in_features, out_features = as_dim(layer.setting("in_features")), as_dim(layer.setting("out_features"))
        return {"kernel": (in_features, out_features), "bias": made_if(layer, "use_bias", (out_features,))}
    if kind == "Embed":
        return {"embedding": (as_dim(layer.setting("num_embeddings")), as_dim(layer.setting("features")))}
    if kind == "Conv":
        kernel = window(layer.setting("kernel_size"), None)
        in_features, out_features = as_dim(layer.setting("in_features")), as_dim(layer.setting("out_features"))
        groups = as_dim(layer.setting("feature_group_count")) if layer.given("feature_group_count") else 1
        return {"kernel": (*kernel, per_group_of(in_features, groups), out_features) if kernel is not None else None,
                "bias": made_if(layer, "use_bias", (out_features,))}
    features = (as_dim(layer.setting("num_features")),)
    found: Parameters = {"scale": made_if(layer, "use_scale", features)}
    if kind != "RMSNorm":
        found["bias"] = made_if(layer, "use_bias", features)
    if kind == "BatchNorm":
        found.update(mean=features, var=features)
    return found


def _parameter_dtype(layer: Layer, name: str) -> str | None:
    """`param_dtype`; a BatchNorm's running statistics are float32 whatever it is (nnx makes them so)."""
    return "f32" if name in ("mean", "var") else param_dtype(layer)


_PARAMETERS: Final = {"Linear": ("kernel", "bias"), "Embed": ("embedding",), "Conv": ("kernel", "bias"),
                      "LayerNorm": ("scale", "bias"), "GroupNorm": ("scale", "bias"), "RMSNorm": ("scale",),
                      "BatchNorm": ("scale", "bias", "mean", "var")}
for _name in sorted({name for names in _PARAMETERS.values() for name in names}):
    REGISTRY.handles(*(f"attr:{NNX}.{kind}.{_name}" for kind, names in _PARAMETERS.items() if _name in names),
                     signature="layer")(parameter_reader(_name, _parameters, _parameter_dtype))


REGISTRY.handles(f"attr:{NNX}.Embed.attend", signature="layer")(attend_method)
REGISTRY.handles(f"{NNX}.Embed.attend", signature="self, query, *, out_sharding=None")(attend)


# nnx's jit is JAX's, its options among them; nnx's gradients are JAX's with respect to a
# module's parameters (its arrays: the state nnx returns has their shapes).
REGISTRY.handles(f"{NNX}.jit", signature=f"fun=None, *, {sharding_api.JIT_OPTIONS}, graph=None, graph_updates=None",
                 takes_functions=True, binds_names=True)(sharding_api.jit)


@REGISTRY.handles(*each(NNX, "grad", "value_and_grad"), takes_functions=True,
                  signature="fun=None, *, argnums=0, has_aux=False, holomorphic=False, allow_int=False, "
                            "reduce_axes=(), graph=None, graph_updates=None")
def grad(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """As a decorator factory (no function given): unknown."""
    return transforms.grad(interp, call, ctx, scope) if call.given("fun") else None


def _what(layer: Layer, *sizes: Dim) -> str:
    return f"flax.nnx.{layer.name.rpartition('.')[2]}({', '.join(shown(size) for size in sizes)})"


@LAYERS.rule(f"{NNX}.Linear", signature="inputs, out_sharding=None")
def linear(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    x = call.arg("inputs")
    if not isinstance(x, ArrayType):
        return None
    in_features, out_features = as_dim(layer.setting("in_features")), as_dim(layer.setting("out_features"))
    outcome = layers.kernel_linear(x, in_features, out_features, layer_dtype(layer, x),
                                   _what(layer, in_features, out_features))
    result = finish(interp, outcome, call, [call.arg_node("inputs")])
    return None if outcome.problems else result


@LAYERS.rule(f"{NNX}.Embed", signature="inputs, out_sharding=None")
def embed(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """One row of the table per id; ids of a known dtype that is not an integer one are refused
    by nnx (a ValueError: SC301)."""
    ids = call.arg("inputs")
    if not isinstance(ids, ArrayType):
        return None
    sizes = (as_dim(layer.setting("num_embeddings")), as_dim(layer.setting("features")))
    problem = layers.integer_ids(ids, _what(layer, *sizes))
    if problem is not None:
        return refused(interp, call, problem)
    dtype = layer_dtype(layer)  # the table's, or the `dtype` given: nnx promotes the table alone, ids aside
    return flax_embedding(interp, call, ids, sizes[0], sizes[1], dtype, _what(layer, *sizes))


@LAYERS.rule(f"{NNX}.LayerNorm", signature="x, *, mask=None")
@LAYERS.rule(f"{NNX}.RMSNorm", signature="x, mask=None")
@LAYERS.rule(f"{NNX}.BatchNorm", signature="x, use_running_average=None, *, mask=None")
def normalization(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """Over the last axis, nnx's default (`reduction_axes`, `feature_axes`, BatchNorm's `axis`),
    with a scale and bias of `num_features`."""
    x = call.arg("x")
    if not isinstance(x, ArrayType) or any(layer.given(name) for name in ("reduction_axes", "feature_axes", "axis")):
        return None
    scale = flag_setting(layer, "use_scale")
    bias = False if layer.name.endswith("RMSNorm") else flag_setting(layer, "use_bias")  # RMSNorm has none
    if scale is None or bias is None:
        return None
    output = ArrayType(normalized_dtype(layer, x, bool(scale or bias), statistics=layer.name.endswith("BatchNorm")),
                       x.dims, x.named, x.ellipsis, x.named_open)
    features = as_dim(layer.setting("num_features"))
    # No parameter to fit: a LayerNorm takes any features; a BatchNorm's running statistics
    # still do not broadcast with another count, but do with one feature.
    if not (scale or bias) and (not layer.name.endswith("BatchNorm") or (x.rank and x.dims[-1] == 1)):
        return output
    problem = layers.feature_count(x, features, _what(layer, features))
    if problem is not None:
        interp.reporter.problems([problem], call.node, [call.arg_node("x")])
        return None
    return output


@LAYERS.rule(f"{NNX}.InstanceNorm", signature="x, *, mask=None")
def instance_norm(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """A norm over each example's dims between the batch dim and the features
    (`layers.instance_norm_rank`), then as nnx's other norms of `num_features`."""
    x = call.arg("x")
    problem = layers.instance_norm_rank(x, "flax.nnx.InstanceNorm") \
        if isinstance(x, ArrayType) and not layer.given("feature_axes") else None
    if problem is not None:
        return refused(interp, call, problem)
    return normalization(interp, layer, call, ctx)


@LAYERS.rule(f"{NNX}.Einsum", signature="inputs, einsum_str=None, out_sharding=None")
def einsum_layer(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nnx.Einsum('bi,ij->bj', (i, j), (j,))(x)`: `jnp.einsum` of x and a kernel of
    `kernel_shape`, plus the bias reshaped to the kernel dims the output keeps
    (`layers_api.flax_einsum`); the call's string, where given, is used instead of the layer's."""
    x, kernel = call.arg("inputs"), _dims(layer.setting("kernel_shape"))
    spec = as_str(call.arg("einsum_str") if passed(call, "einsum_str") else layer.setting("einsum_str"))
    bias = _dims(layer.setting("bias_shape")) if layer.passed("bias_shape") else None
    if not isinstance(x, ArrayType) or kernel is None or spec is None or (layer.passed("bias_shape") and bias is None):
        return None
    what = f"flax.nnx.Einsum({spec!r}, {format_shape(kernel)})"
    return flax_einsum(interp, call, x, spec, kernel, layer_dtype(layer, x), what, bias,
                       initialized=not layer.given("kernel_init"))


def _dims(value: Value) -> tuple[Dim, ...] | None:
    """A shape given as a tuple or list of sizes."""
    return tuple(as_dim(item) for item in value.items) if isinstance(value, Seq) else None


@LAYERS.rule(f"{NNX}.PReLU", signature="inputs")
def prelu(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nnx.PReLU()(x)`: x's shape, in its `dtype` where given, else in x's own."""
    x = call.arg("inputs")
    if not isinstance(x, ArrayType):
        return None
    return x.with_dtype(dtype_arg(layer.setting("dtype")), False) if layer.passed("dtype") else x


LAYERS.rule(f"{NNX}.Dropout", signature="inputs, *, deterministic=None, rngs=None")(flax_dropout)


@LAYERS.rule(f"{NNX}.Sequential", signature="*args, **kwargs")
def sequential(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nnx.Sequential(nnx.Linear(3, 4, rngs=r), nnx.relu, ...)(x)`: each layer or function in
    turn, a tuple spread into the next one's arguments; with none, its one argument."""
    fns = layer.setting("fns")
    if fns == Seq(()):
        arguments = call.rest()
        return arguments[0] if len(arguments) == 1 else None
    return chained(interp, fns, call, ctx, spread=True)


@LAYERS.rule(f"{NNX}.Conv", signature="inputs, out_sharding=None")
def conv(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nnx.Conv(in_features, out_features, kernel_size)(x)`: x is `(*batch, *spatial,
    in_features)`, the kernel `(*kernel_size, in_features // groups, out_features)`; an int
    kernel size is one spatial dim. No batch dim is allowed, several are flattened."""
    x = call.arg("inputs")
    in_features, out_features = as_dim(layer.setting("in_features")), as_dim(layer.setting("out_features"))
    groups = as_dim(layer.setting("feature_group_count")) if layer.given("feature_group_count") else 1
    if not isinstance(x, ArrayType) or not isinstance(groups, int) or groups <= 0:
        return None  # nnx refuses to build a conv of no groups, or a negative count: not a shape
    kernel = window(layer.setting("kernel_size"), None)
    what = f"flax.nnx.Conv({shown(in_features)}, {shown(out_features)}, {shown_window(kernel or ())})"
    # nnx builds the kernel with `in_features // groups` and asserts that the groups divide the
    # features only when it is called, whatever the input (an AssertionError).
    problem = layers.groups_divide(in_features, groups, what, "input features", "groups", "it is built with")
    if problem is not None:
        return refused(interp, call, problem)
    output, _ = flax_conv(interp, layer, call, x, in_features, out_features,
                          lambda size: f"flax.nnx.Conv({shown(in_features)}, {shown(out_features)}, "
                                       f"{shown_window(size)})")
    return output


# -- nnx's containers of layers ---------------------------------------------------------------

@REGISTRY.handles(f"{NNX}.List", signature="it=None, /")
def module_list(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`nnx.List([...])`: a module holding layers (or arrays) as a list does, followed as one
    (`for layer in self.layers`, `self.layers[0]`, `append`)."""
    if not passed(call, "it"):
        return Seq((), True)
    items = containers.iteration(call.arg("it"))
    return Seq(items, True) if items is not None else None


# `nnx.Dict({...})`, `nnx.Dict(topic=...)`: a module holding layers as a dict does (`self.heads['topic']`).
REGISTRY.handles(f"{NNX}.Dict", signature="*args, **kwargs")(dict_)


# -- nnx's attention functions: flax's, linen's twins (`layers_api`) ----------------------------

REGISTRY.handles(f"{NNX}.dot_product_attention",
                 signature="query, key, value, bias=None, mask=None, broadcast_dropout=True, dropout_rng=None, "
                           "dropout_rate=0.0, deterministic=False, dtype=None, precision=None, module=None, "
                           "promote_dtype=None, is_causal=False")(dot_product_attention)
REGISTRY.handles(f"{NNX}.make_attention_mask",
                 signature="query_input, key_input, pairwise_fn=None, extra_batch_dims=0, dtype=None")(attention_mask)
REGISTRY.handles(f"{NNX}.make_causal_mask", signature="x, extra_batch_dims=0, dtype=None")(attention_mask)
