"""flax.linen: layers in `@nn.compact` modules, `self.param`, and a module's `apply`/`init`.

A layer built and called in a module's `__call__` (`nn.Dense(128)(x)`) gives its output's
shape by the library's formula (`algebra.layers`, `algebra.convolution` for `nn.Conv`); what
flax refuses at trace time with known shapes is reported. `model.apply(variables, x)` and
`model.init(key, x)` run the module's `setup` and `__call__` on `x`, or a built layer's call
(`nn.Dense(5).apply(variables, x)`); the variables themselves are unknown (a layer's
parameters are made from its input).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import attention as attention_algebra
from shapecheck.algebra import convolution, layers
from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.promotion import default
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import initializers, model_params
from shapecheck.analyzer.library.common import (
    code_of,
    dtype_arg,
    finish,
    forwarded,
    passed,
    refused,
    shape,
)
from shapecheck.analyzer.library.initializers import INITIALIZERS
from shapecheck.analyzer.library.layers_api import (
    LayerRules,
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
    normalized_dtype,
    padding_of,
    shown,
    shown_window,
    window,
)
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import canonical
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    BoundFunction,
    Class,
    Const,
    Function,
    Instance,
    Layer,
    Partial,
    Qual,
    Seq,
    Value,
    as_dim,
    as_int,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`
LAYERS = LayerRules()  # how each layer class is called; collected by `layer_calls`

LINEN: Final = "flax.linen"
MODULE: Final = f"{LINEN}.Module"
_OPTIONS: Final = "dtype=None, param_dtype=None, **options"


# -- layers -----------------------------------------------------------------------------------

REGISTRY.handles(f"{LINEN}.Dense", signature=f"features, use_bias=True, {_OPTIONS}")(build)
REGISTRY.handles(f"{LINEN}.DenseGeneral", signature=f"features, axis=-1, batch_dims=(), use_bias=True, {_OPTIONS}")(build)
REGISTRY.handles(f"{LINEN}.Embed", signature=f"num_embeddings, features, {_OPTIONS}")(build)
REGISTRY.handles(f"{LINEN}.Conv", signature="features, kernel_size, strides=1, padding='SAME', input_dilation=1, "
                                            f"kernel_dilation=1, feature_group_count=1, use_bias=True, mask=None, {_OPTIONS}")(build)
REGISTRY.handles(f"{LINEN}.ConvTranspose", signature="features, kernel_size, strides=None, padding='SAME', "
                                                     "kernel_dilation=None, use_bias=True, mask=None, "
                                                     f"{_OPTIONS}")(build)
REGISTRY.handles(*each(LINEN, "LayerNorm", "RMSNorm", "BatchNorm"), signature="**options")(build)
REGISTRY.handles(f"{LINEN}.GroupNorm", signature="num_groups=32, group_size=None, **options")(build)
REGISTRY.handles(f"{LINEN}.InstanceNorm", signature="**options")(build)
REGISTRY.handles(f"{LINEN}.Einsum", signature=f"shape, einsum_str=None, use_bias=True, {_OPTIONS}")(build)
REGISTRY.handles(f"{LINEN}.PReLU", signature="param_dtype=None, negative_slope_init=0.01, **options")(build)
REGISTRY.handles(f"{LINEN}.Dropout", signature="rate, broadcast_dims=(), deterministic=None, **options")(build)
REGISTRY.handles(f"{LINEN}.Sequential", signature="layers, **options")(build)
REGISTRY.handles(*each(LINEN, "MultiHeadDotProductAttention", "MultiHeadAttention", "SelfAttention"),
                 signature=f"num_heads, {_OPTIONS}")(build)


@LAYERS.rule(f"{LINEN}.Dense", signature="inputs")
def dense(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    x = call.arg("inputs")
    if not isinstance(x, ArrayType):
        return None
    features = as_dim(layer.setting("features"))
    if x.rank:
        _created(interp, layer, kernel=(x.dims[-1], features), bias=(features,))
    return finish(interp, layers.dense(x, features, layer_dtype(layer, x)), call)


@LAYERS.rule(f"{LINEN}.DenseGeneral", signature="inputs")
def dense_general(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    x = call.arg("inputs")
    if not isinstance(x, ArrayType) or (layer.given("batch_dims") and layer.setting("batch_dims") != Seq(())):
        return None
    features = _sizes(layer.setting("features"))
    axis = _sizes(layer.setting("axis")) if layer.given("axis") else (-1,)
    if features is None or axis is None or not all(isinstance(a, int) for a in axis):
        return None
    if x.rank is not None and x.ellipsis is None and all(isinstance(a, int) and -x.rank <= a < x.rank for a in axis):
        _created(interp, layer, kernel=(*(x.dims[a] for a in axis if isinstance(a, int)), *features), bias=features)
    return finish(interp, layers.dense_general(x, features, [a for a in axis if isinstance(a, int)],
                                               layer_dtype(layer, x)), call)


@LAYERS.rule(f"{LINEN}.Embed", signature="inputs")
def embed(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    ids = call.arg("inputs")
    if not isinstance(ids, ArrayType):
        return None
    sizes = (as_dim(layer.setting("num_embeddings")), as_dim(layer.setting("features")))
    what = f"flax.linen.Embed({', '.join(shown(size) for size in sizes)})"
    problem = layers.integer_ids(ids, what)
    if problem is not None:
        return refused(interp, call, problem)
    _created(interp, layer, embedding=sizes)
    return flax_embedding(interp, call, ids, *sizes, layer_dtype(layer), what)  # the table's dtype, or `dtype`


@LAYERS.rule(*each(LINEN, "LayerNorm", "RMSNorm", "BatchNorm"),
             signature="x, use_running_average=None, *, mask=None")
def normalization(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    x = call.arg("x")
    if not isinstance(x, ArrayType):
        return None
    # Over the last axis, flax's default (`reduction_axes`, `feature_axes`, BatchNorm's `axis`).
    if x.rank and not any(layer.given(name) for name in ("reduction_axes", "feature_axes", "axis")):
        features = (x.dims[-1],)
        _created(interp, layer, scale=features,
                 bias=None if layer.name.endswith("RMSNorm") else features)
    return ArrayType(normalized_dtype(layer, x, _parameters(layer)), x.dims, x.named, x.ellipsis, x.named_open)


@LAYERS.rule(f"{LINEN}.GroupNorm", signature="x, *, mask=None")
def group_norm(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    x = call.arg("x")
    if not isinstance(x, ArrayType):
        return None
    if layer.passed("group_size"):
        return None  # groups of a size: the count follows from the channels
    groups = as_dim(layer.setting("num_groups")) if layer.given("num_groups") else 32
    if x.rank is not None and x.rank > 0:
        problem = layers.groups_divide(x.dims[-1], groups, f"flax.linen.GroupNorm(num_groups={groups})")
        if problem is not None:
            interp.reporter.problems([problem], call.node, call.arg_nodes)
            return None
        _created(interp, layer, scale=(x.dims[-1],), bias=(x.dims[-1],))
    return ArrayType(normalized_dtype(layer, x, _parameters(layer)), x.dims, x.named, x.ellipsis, x.named_open)


@LAYERS.rule(f"{LINEN}.InstanceNorm", signature="x, *, mask=None")
def instance_norm(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nn.InstanceNorm()(x)`: each example normalised over its dims between the batch dim and
    the features (the last dim, flax's default `feature_axes`; `layers.instance_norm_rank`)."""
    x = call.arg("x")
    if not isinstance(x, ArrayType) or x.rank is None or x.ellipsis is not None or layer.given("feature_axes"):
        return None
    problem = layers.instance_norm_rank(x, "flax.linen.InstanceNorm")
    if problem is not None:
        return refused(interp, call, problem)
    _created(interp, layer, scale=(x.dims[-1],), bias=(x.dims[-1],))
    return ArrayType(normalized_dtype(layer, x, _parameters(layer)), x.dims, x.named, None, x.named_open)


@LAYERS.rule(f"{LINEN}.Einsum", signature="inputs, einsum_str=None")
def einsum_layer(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nn.Einsum(shape, 'bi,ij->bj')(x)`: `jnp.einsum` of x and a kernel of `shape`
    (`layers_api.flax_einsum`); the string is the layer's or the call's (not both)."""
    x, kernel = call.arg("inputs"), _sizes(layer.setting("shape"))
    given = [value for value, set_there in ((layer.setting("einsum_str"), layer.passed("einsum_str")),
                                            (call.arg("einsum_str"), passed(call, "einsum_str"))) if set_there]
    spec = as_str(given[0]) if len(given) == 1 else None  # both, or neither: flax raises (not a shape)
    if not isinstance(x, ArrayType) or kernel is None or spec is None:
        return None
    what = f"flax.linen.Einsum({', '.join(shown(size) for size in kernel)})"
    return flax_einsum(interp, call, x, spec, kernel, layer_dtype(layer, x), what, initialized=not layer.given("kernel_init"))


@LAYERS.rule(f"{LINEN}.PReLU", signature="inputs")
def prelu(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nn.PReLU()(x)`: x where positive, x times a learned slope (cast to x's dtype) elsewhere."""
    x = call.arg("inputs")
    return x if isinstance(x, ArrayType) else None


def _parameters(layer: Layer) -> bool | None:
    """Whether a norm has a scale or a bias (`use_scale`, `use_bias`: True unless given); None
    where a flag is not a known bool."""
    names = ("use_scale",) if layer.name.endswith("RMSNorm") else ("use_scale", "use_bias")
    flags = [flag_setting(layer, name) for name in names]
    return None if None in flags else any(flags)


LAYERS.rule(f"{LINEN}.Dropout", signature="inputs, deterministic=None, rng=None")(flax_dropout)


@LAYERS.rule(f"{LINEN}.MultiHeadDotProductAttention", f"{LINEN}.MultiHeadAttention",
             signature="inputs_q, inputs_k=None, inputs_v=None, *, inputs_kv=None, mask=None, "
                       "deterministic=None, dropout_rng=None, sow_weights=False")
@LAYERS.rule(f"{LINEN}.SelfAttention",
             signature="inputs_q, mask=None, deterministic=None, dropout_rng=None, sow_weights=False")
def attention(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    query = call.arg("inputs_q")
    if not isinstance(query, ArrayType):
        return None
    qkv = as_dim(layer.setting("qkv_features")) if layer.given("qkv_features") else None
    out = as_dim(layer.setting("out_features")) if layer.given("out_features") else None
    if (layer.passed("qkv_features") and qkv is None) or (layer.passed("out_features") and out is None):
        return None
    what = f"flax.linen.{layer.name.rpartition('.')[2]}"
    # The key and value, where given, are promoted with the query (and the parameters).
    given = [value for name in ("inputs_k", "inputs_v", "inputs_kv") if call.signature is not None
             and call.signature.accepts(name) and isinstance(value := call.arg(name), ArrayType)]
    heads = as_dim(layer.setting("num_heads"))
    outcome = layers.multi_head_attention(query, None, heads, qkv, out, layer_dtype(layer, query, *given), what)
    result = finish(interp, outcome, call)
    if outcome.problems or not passed(call, "mask") or layer.given("attention_fn") or (
            layer.given("decode") and layer.setting("decode") != Const(False)):
        return result  # a decoding cache's mask, or another attention's: not followed
    # The weights are (batch..., heads, q_length, kv_length), the key's length that of the
    # first of inputs_k, inputs_kv and the query given (flax asserts their batch dims equal).
    key = next((call.arg(name) for name in ("inputs_k", "inputs_kv") if call.signature is not None
                and call.signature.accepts(name) and passed(call, name)), query)
    mask = call.arg("mask")
    if not isinstance(mask, ArrayType) or not isinstance(key, ArrayType) or query.rank is None:
        return result  # a mask of unknown shape is taken to fit, as one of unknown rank is
    source = key.dims[-2] if key.rank is not None and key.rank >= 2 else None
    problem, widened = attention_algebra.masked_weights(mask, (*query.dims[:-2], heads, query.dims[-2], source), what)
    if problem is not None:
        return refused(interp, call, problem)
    return None if widened else result


REGISTRY.handles(f"attr:{LINEN}.Embed.attend", signature="layer")(attend_method)
REGISTRY.handles(f"{LINEN}.Embed.attend", signature="self, query")(attend)
REGISTRY.handles(f"{LINEN}.dot_product_attention",
                 signature="query, key, value, bias=None, mask=None, broadcast_dropout=True, dropout_rng=None, "
                           "dropout_rate=0.0, deterministic=False, dtype=None, precision=None, module=None, "
                           "force_fp32_for_softmax=False, einsum_dot_general=None, qk_attn_weights_einsum=None, "
                           "attn_weights_value_einsum=None")(dot_product_attention)
REGISTRY.handles(f"{LINEN}.make_attention_mask",
                 signature="query_input, key_input, pairwise_fn=None, extra_batch_dims=0, dtype=None")(attention_mask)
REGISTRY.handles(f"{LINEN}.make_causal_mask", signature="x, extra_batch_dims=0, dtype=None")(attention_mask)


@LAYERS.rule(f"{LINEN}.Sequential", signature="*args, **kwargs")
def sequential(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nn.Sequential([nn.Dense(4), nn.relu, nn.Dense(2)])(x)`: each layer or function in turn."""
    return chained(interp, layer.setting("layers"), call, ctx, spread=True)


@LAYERS.rule(f"{LINEN}.Conv", f"{LINEN}.ConvTranspose", signature="inputs")
def conv(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`nn.Conv(features, kernel_size)(x)`: x is `(*batch, *spatial, in_features)` (NHWC), the
    kernel `(*kernel_size, in_features // groups, features)`; no batch dim is allowed, several
    are flattened. `nn.ConvTranspose` takes the same, the upsampling convolution of decoders
    (`layers_api.flax_conv_transpose`)."""
    x = call.arg("inputs")
    if not isinstance(x, ArrayType) or x.rank is None:
        return None
    features = as_dim(layer.setting("features"))
    name = layer.name.rpartition(".")[2]
    if name == "Conv" and x.rank and layer.given("feature_group_count"):
        # flax asserts the groups divide the input's features before it convolves (an AssertionError).
        groups = as_dim(layer.setting("feature_group_count"))
        kernel = window(layer.setting("kernel_size"), None)
        problem = layers.groups_divide(x.dims[-1], groups, f"flax.linen.Conv({shown(features)}, "
                                       f"{shown_window(kernel or ())}, feature_group_count={shown(groups)})",
                                       "features", where="of its input's last dim")
        if problem is not None:
            return refused(interp, call, problem)
    run = flax_conv_transpose if name == "ConvTranspose" else flax_conv
    output, kernel = run(interp, layer, call, x, x.dims[-1] if x.rank else None, features,
                         lambda size: f"flax.linen.{name}({shown(features)}, {shown_window(size)})")
    if kernel is not None:
        _created(interp, layer, kernel=kernel, bias=(features,))
    return output


def _created(interp: Interpreter, layer: Layer, **params: tuple[Dim, ...] | None) -> None:
    """The parameters a layer creates when called, where a module run is logged for `init` or
    `apply`: each of `params` the layer has with its settings (`use_bias`, `use_scale`). A flag
    that is not a known bool leaves that parameter out."""
    if interp.params_log is None:
        return  # the settings are read only where a run is logged

    def kept(name: str) -> bool:
        flag = {"bias": "use_bias", "scale": "use_scale"}.get(name)
        return flag is None or not layer.given(flag) or layer.setting(flag) == Const(True)

    made = {name: dims for name, dims in params.items() if kept(name)}
    if interp.params_log.initializers_run:
        # Each parameter's initializer (`kernel_init`, `bias_init`) runs at `init`.
        line = getattr(layer.node, "lineno", "?")
        for name, dims in made.items():
            if dims is None:
                continue
            problem = initializers.rank_problem(layer.setting(f"{name}_init"), dims,
                                                f"parameter `{name}` of nn.{layer.name.rpartition('.')[2]} (line {line})")
            if problem is not None:
                interp.reporter.problems([problem], layer.node)
    model_params.layer_created(interp, layer, "nn", made)


def _sizes(value: Value) -> tuple[Dim, ...] | None:
    """An int or a tuple of ints (features, axes)."""
    if isinstance(value, Const) and value.is_int:
        return (as_int(value),)
    if isinstance(value, Seq):
        return tuple(as_dim(item) for item in value.items)
    return None


# -- pooling ----------------------------------------------------------------------------------

@REGISTRY.handles(f"{LINEN}.avg_pool", f"{LINEN}.pooling.avg_pool",
                  signature="inputs, window_shape, strides=None, padding='VALID', count_include_pad=True")
@REGISTRY.handles(f"{LINEN}.max_pool", f"{LINEN}.pooling.max_pool", f"{LINEN}.pooling.min_pool",
                  signature="inputs, window_shape, strides=None, padding='VALID'")
def pool(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`nn.max_pool(x, (2, 2), strides=(2, 2))`: x is `(*batch, *spatial, features)`, one window
    size per spatial dim; flax pools with `lax.reduce_window`, windows of 1 on the batch dims and
    the features. flax adds the window and strides to tuples: other sequences, and a malformed
    window, are left unknown (flax fails on them in its own asserts)."""
    x = call.arg("inputs")
    sizes, strides = call.arg("window_shape"), call.arg("strides") if call.given("strides") else Const(None)
    if not isinstance(x, ArrayType) or x.rank is None or not isinstance(sizes, Seq) or sizes.is_list:
        return None
    spatial = len(sizes.items)
    batch_rank = x.rank - spatial - 1
    if batch_rank < 0 or not (strides == Const(None) or (isinstance(strides, Seq) and not strides.is_list
                                                          and len(strides.items) == spatial)):
        return None
    dims = [as_dim(item) for item in sizes.items]
    steps = [1] * spatial if not isinstance(strides, Seq) else [as_dim(item) for item in strides.items]
    if not all(isinstance(n, int) and n > 0 for n in (*dims, *steps)):
        return None
    padding = call.arg("padding") if call.given("padding") else Const("VALID")
    text = as_str(padding)
    pads: convolution.Padding
    if text is not None and text.upper() in ("VALID", "SAME", "SAME_LOWER"):
        pads = "VALID" if text.upper() == "VALID" else "SAME"
    else:
        pairs = padding_of(padding, spatial) if text is None else None
        if not isinstance(pairs, tuple):
            return None
        if batch_rank > 1:
            # flax puts (0, 0) around the pairs for one batch dim and the features only.
            return refused(interp, call, Problem(
                Code.SIZE_ARGUMENT_MISMATCH,
                f"flax.linen.{call.name.rpartition('.')[2]}: padding given as (low, high) pairs is laid "
                f"around one batch dim, but the input {x.positional_text()} has {batch_rank} before its "
                f"{spatial} window dim{'s' if spatial != 1 else ''} and its features; lax.reduce_window "
                "refuses the padding (pool with 'SAME' or 'VALID', or merge the batch dims)"))
        pads = ((0, 0),) * batch_rank + pairs + ((0, 0),)
    ones = (1,) * batch_rank
    pooled = convolution.reduce_window(x, (*ones, *dims, 1), (*ones, *steps, 1), pads).type
    dtype = x.dtype
    if call.name.endswith("avg_pool") and (dtype is None or kind_of(dtype) != "f"):
        dtype = None  # a mean of integers: not followed
    return ArrayType(dtype, pooled.dims, x.named, None, x.named_open)


# -- modules ----------------------------------------------------------------------------------

@REGISTRY.handles(f"{LINEN}.remat", f"{LINEN}.checkpoint", f"{LINEN}.jit", signature="target, **options")
def lifted(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`nn.remat(Block)`, `nn.jit(Block)`: the module class (or layer, or function) as it was;
    rematerialising and compiling change how it runs, never the shapes it computes."""
    target = call.arg("target")
    return target if isinstance(target, Class | Function | Qual | Partial) else None


@REGISTRY.handles(f"{LINEN}.compact", f"{LINEN}.nowrap", signature="fun")
def compact(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`@nn.compact`: the method itself, its submodules built inline."""
    return call.arg("fun")


@REGISTRY.handles(f"{MODULE}.param", signature="self, name, init_fn, *init_args, unbox=True, **init_kwargs")
def param(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`self.param('w', init, shape)`: what `init(key, shape)` gives (an initializer's array)."""
    init = call.arg("init_fn")
    if not isinstance(init, Layer) and not _is_initializer(init):
        return None
    args = call.rest()
    inner = CallArgs(call.node, [None, *args], [call.node, *call.arg_nodes[3:]], dict(call.keywords()))
    made = interp.call(init, inner, ctx, scope)
    name = as_str(call.arg("name"))
    if name is not None:
        model_params.created(interp, call.node, name,
                               f"parameter `{name}` (`self.param`, line {getattr(call.node, 'lineno', '?')})", made)
    return made


def _is_initializer(value: Value) -> bool:
    return isinstance(value, Qual) and canonical(value.name).startswith(f"{INITIALIZERS}.")


_FACTORIES: Final = ("constant", "uniform", "normal", "truncated_normal", "variance_scaling", "glorot_normal",
                     "glorot_uniform", "xavier_normal", "xavier_uniform", "lecun_normal", "lecun_uniform",
                     "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "orthogonal",
                     "delta_orthogonal", "zeros_init", "ones_init")

REGISTRY.handles(*each(INITIALIZERS, *_FACTORIES), signature="*args, **kwargs")(build)


@REGISTRY.handles(*each(INITIALIZERS, "zeros", "ones"), signature="key, shape, dtype=None")
def initialize(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _initialized(call)


@LAYERS.rule(*each(INITIALIZERS, *_FACTORIES), signature="key, shape, dtype=None")
def initializer(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    made = _initialized(call)
    log = interp.params_log
    # Called directly, or by `self.param` in an `init` (an `apply` reads the parameter instead).
    if isinstance(made, ArrayType) and (log is None or log.initializers_run):
        problem = initializers.rank_problem(layer, made.dims, f"the array of `{code_of(call.node)}`")
        if problem is not None:
            interp.reporter.problems([problem], call.node)
            return None
    return made


def _initialized(call: CallArgs) -> Value:
    """`init(key, shape, dtype)`: an array of that shape, float32 unless `dtype` says."""
    dims = shape(call.arg("shape"))
    if dims is None:
        return None
    dtype = dtype_arg(call.arg("dtype")) if call.given("dtype") else default("f").dtype
    return ArrayType(dtype, dims)


def _run(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`model.apply(variables, *args)`, `model.init(rngs, *args)`: the module's `setup`, then its
    `__call__` on the arguments, or the `method` asked (`method=Model.decode`, `'decode'`, a
    function of the module, `nn.Embed.attend` of a built layer); unknown where a mutable
    collection is asked."""
    instance = call.arg("self")
    method = call.arg("method") if passed(call, "method") else Const("__call__")
    inner = forwarded(call, call.rest())
    if isinstance(instance, Layer):
        # A built layer (`nn.Dense(5).apply(...)`): its call, or its library's method.
        if method == Const("__call__"):
            return interp.call(instance, inner, ctx, scope)
        name = as_str(method)
        target = Qual(f"{instance.name}.{name}") if name is not None else method
        return interp.call(Partial(target, (instance,)), inner, ctx, scope) if isinstance(target, Qual | Function) else None
    if not isinstance(instance, Instance):
        return None
    setup = instance.cls.attribute("setup")
    if isinstance(setup, Function):
        interp.call_function(setup, CallArgs(call.node, [instance], [call.node]), ctx)
        after = interp.last_receiver
        instance = after if isinstance(after, Instance) else instance
    name = as_str(method)
    function = instance.get(name) if name is not None else method
    if not isinstance(function, Function):
        return None
    return interp.call(BoundFunction(instance, function), inner, ctx, scope)


_RUN: Final = "self, variables, *args, rngs=None, method=None, mutable=False, capture_intermediates=False, **kwargs"


@REGISTRY.handles(f"{MODULE}.apply", signature=_RUN)
def apply(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    variables = model_params.given(call.arg("variables"))
    if variables is None:
        result = _run(interp, call, ctx, scope)
    else:
        with model_params.logged(interp) as log:
            result = _run(interp, call, ctx, scope)
        model_params.check(interp, variables, log, call)
    mutable = call.arg("mutable") if call.given("mutable") else Const(False)
    return result if mutable == Const(False) else None  # (output, updated state): not followed


@REGISTRY.handles(f"{MODULE}.init", f"{MODULE}.init_with_output",
                  signature="self, rngs, *args, method=None, mutable=..., capture_intermediates=False, **kwargs")
def init(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The variables as `apply` reads them back (`model_params`): the parameters the run
    created, by where; their tree is not modelled."""
    with model_params.logged(interp, initializers_run=True) as log:
        result = _run(interp, call, ctx, scope)
    variables = model_params.made(log, call.node) if not call.given("mutable") else None
    if call.name.endswith("init_with_output") and not call.given("mutable"):
        return Seq((result, variables))
    return variables

