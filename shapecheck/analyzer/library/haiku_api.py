"""haiku: `hk.transform`'s init and apply, its layers, and `hk.get_parameter`.

`net = hk.transform(forward)` gives the pair of functions haiku makes: `net.init(rng, x)` runs
`forward(x)` and returns the parameters it created, `net.apply(params, rng, x)` runs it again on
`x` and refuses a parameter `x` would make of another shape than `params` holds (a ValueError,
SC103: `model_params`). `hk.without_apply_rng` drops apply's `rng`; `hk.transform_with_state`
adds a state to both (not followed). Inside, `hk.Linear`, `hk.nets.MLP`, `hk.Conv1D`/`2D`/`3D`,
`hk.Flatten`, `hk.Sequential`, `hk.LayerNorm`, `hk.BatchNorm`, `hk.Embed`, `hk.MultiHeadAttention`,
`hk.get_parameter` and `hk.get_state` give their shapes as haiku computes them; a layer on a
scalar is refused as haiku refuses it. `hk.vmap` is `jax.vmap` inside a transform;
`hk.BatchApply(f, num_dims)` calls `f` with its arguments' leading dims merged into one, and
splits its outputs' first dim back.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Final, Literal

from shapecheck.algebra import convolution, layers, reshape
from shapecheck.algebra.outcome import Problem
from shapecheck.analyzer.calls import CallArgs, Signature
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import model_params, pytrees, vmap_api
from shapecheck.analyzer.library.common import dtype_arg, finish, forwarded, passed, refused, shape
from shapecheck.analyzer.library.layers_api import LayerRules, build, chained, per_group_of
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.library.trees import no_leaves
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Class,
    Const,
    Dict,
    Instance,
    Layer,
    Partial,
    Qual,
    Seq,
    Value,
    Vmap,
    as_dim,
    as_int,
)
from shapecheck.codes import Code
from shapecheck.dims import Dim, format_dim, format_shape, product
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`
LAYERS = LayerRules()  # how each layer class is called; collected by `layer_calls`

HK: Final = "haiku"
TRANSFORMED: Final = f"{HK}.Transformed"
# haiku's pair of functions is a NamedTuple (`init, apply = hk.transform(f)` unpacks it).
_TRANSFORMED: Final = Class(TRANSFORMED, record="namedtuple", fields=("init", "apply"))
_REFUSAL: Final = "haiku refuses the parameters (a ValueError)"


# -- transform --------------------------------------------------------------------------------

def _transformed(function: Value, rng: bool, state: bool) -> Instance:
    """The pair, each a call of this module's handler with what it runs first: `(f, rng, state)`."""
    spec = Seq((function, Const(rng), Const(state)))
    return Instance(_TRANSFORMED, tuple((name, Partial(Qual(f"{TRANSFORMED}.{name}"), (spec,)))
                                        for name in _TRANSFORMED.fields))


def _spec(value: Value) -> tuple[Value, bool, bool] | None:
    if isinstance(value, Seq) and len(value.items) == 3:
        function, rng, state = value.items
        if isinstance(rng, Const) and isinstance(state, Const):
            return function, rng.value is True, state.value is True
    return None


@REGISTRY.handles(f"{HK}.transform", signature="f, *, apply_rng=True")
def transform(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _transformed(call.arg("f"), True, False)


@REGISTRY.handles(f"{HK}.transform_with_state", signature="f")
def transform_with_state(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _transformed(call.arg("f"), True, True)


@REGISTRY.handles(f"{HK}.without_apply_rng", signature="f")
def without_apply_rng(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    pair = call.arg("f")
    init_fn = pair.get("init") if isinstance(pair, Instance) and pair.cls == _TRANSFORMED else None
    spec = _spec(init_fn.args[0]) if isinstance(init_fn, Partial) and init_fn.args else None
    return _transformed(spec[0], False, spec[2]) if spec is not None else None


@REGISTRY.handles(f"{TRANSFORMED}.init", signature="spec, rng, *args, **kwargs")
def init(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The parameters `forward` creates on these arguments (with the state: a pair)."""
    spec = _spec(call.arg("spec"))
    if spec is None:
        return None
    function, _, with_state = spec
    with model_params.logged(interp, initializing=True, initializers_run=True) as log:
        interp.call(function, forwarded(call, call.rest()), ctx, scope)
    params = model_params.made(log, call.node)
    return Seq((params, None)) if with_state else params


@REGISTRY.handles(f"{TRANSFORMED}.apply", signature="spec, *args, **kwargs")
def apply(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`apply(params, [state,] [rng,] *args)`: `forward`'s output (with the state: a pair)."""
    spec = _spec(call.arg("spec"))
    if spec is None:
        return None
    function, with_rng, with_state = spec
    args = list(call.rest())
    leading = 1 + with_state + with_rng  # params, the state, the rng: positional before the arguments
    if len(args) < leading:
        return None  # given by keyword: not followed
    params = model_params.given(args[0])
    given_args = args[leading:]
    if params is None:
        out = interp.call(function, forwarded(call, given_args), ctx, scope)
    else:
        with model_params.logged(interp) as log:
            out = interp.call(function, forwarded(call, given_args), ctx, scope)
        model_params.check(interp, params, log, call, _REFUSAL)
    return Seq((out, None)) if with_state else out


# -- vmap -------------------------------------------------------------------------------------

# `hk.vmap(f)` is a partial application of this name (no program can write it), called with the
# arguments.
_VMAPPED: Final = f"{HK}.vmap()"
_MAP_SIGNATURE: Final = Signature.parse(vmap_api.VMAP_SIGNATURE)


@REGISTRY.handles(f"{HK}.vmap", takes_functions=True, binds_names=True,
                  signature="fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, *, split_rng, "
                            "spmd_axis_name=None")
def vmap(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`jax.vmap`'s map of `fun` inside a transform (its parameters shared by the members, made
    for one member's shapes), called through `vmapped`. haiku refuses an in_axes that maps
    nothing, axis_size or not (SC002)."""
    if call.opaque:
        return None
    if call.given("in_axes") and no_leaves(call.arg("in_axes")):
        interp.reporter.add(call.arg_node("in_axes"), Code.INVALID_AXIS_SPEC,
                            "hk.vmap needs at least one non-None value in in_axes (haiku refuses to map by "
                            "axis_size alone, a ValueError); map an argument")
        return None
    options = {name: call.arg(name) for name in ("in_axes", "out_axes", "axis_name", "axis_size") if call.given(name)}
    bound = CallArgs(call.node, [call.arg("fun")], [call.arg_node("fun")], options,
                     {name: call.arg_node(name) for name in options})
    bound.signature, bound.name = _MAP_SIGNATURE, f"{HK}.vmap"
    mapped = vmap_api.batch_map(interp, bound, "vmap")
    return Partial(Qual(_VMAPPED), (mapped,)) if mapped is not None else None


@REGISTRY.handles(_VMAPPED, signature="map, /, *args, **kwargs")
def vmapped(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The map on the arguments, which haiku takes by position only (a TypeError otherwise)."""
    mapped = call.arg("map")
    if call.opaque or not isinstance(mapped, Vmap):
        return None
    if call.keywords():
        return refused(interp, call, Problem(
            Code.INVALID_AXIS_SPEC, "hk.vmap passes its function only positional arguments (a TypeError); pass "
            f"{', '.join(f'`{name}`' for name in call.keywords())} by position"))
    return interp.call(mapped, forwarded(call, call.rest()), ctx, scope)


# -- BatchApply -------------------------------------------------------------------------------

# `hk.BatchApply(f, num_dims)` is a partial application of this name (no program can write it),
# called with the arguments.
_BATCH_APPLIED: Final = f"{HK}.BatchApply()"


@REGISTRY.handles(f"{HK}.BatchApply", takes_functions=True, signature="f, num_dims=2")
def batch_apply(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`hk.BatchApply(f, num_dims)`: `f` on its arguments with their leading `num_dims` dims as
    one, called through `batch_applied`. A `num_dims` below 1 is not followed (0 makes haiku
    reshape by a float size, a TypeError; a negative one counts from the end)."""
    dims = as_int(call.arg("num_dims")) if call.given("num_dims") else 2
    if call.opaque or dims is None or dims < 1:
        return None
    return Partial(Qual(_BATCH_APPLIED), (call.arg("f"), Const(dims)))


@REGISTRY.handles(_BATCH_APPLIED, signature="f, num_dims, /, *args, **kwargs")
def batch_applied(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """haiku merges the leading `num_dims` dims of every argument leaf of that many dims or
    more (others pass as they are), calls `f`, and splits the leading dim of every output leaf
    into the leading dims of the first such argument leaf (positional ones first, then the
    keywords sorted): a reshape, refused where the sizes differ (SC105). With no such leaf,
    haiku's ValueError (SC106)."""
    count = as_int(call.arg("num_dims"))
    if call.opaque or count is None:
        return None
    args, keywords = call.rest(), call.keywords()
    example = _example(Seq((*args, Dict(tuple((Const(name), value) for name, value in keywords.items())))), count)
    if example is False:
        return refused(interp, call, Problem(
            Code.AXIS_OUT_OF_RANGE, f"hk.BatchApply merges the leading {count} dims of its arguments, but none has "
            f"{count} dims or more (haiku's ValueError: \"BatchApply requires at least one input with ndim >= "
            f"{count}.\"); pass an array of {count} dims or more, or lower num_dims"))
    merged = CallArgs(call.node, [_merged(arg, count) for arg in args], call.arg_nodes[len(call.args) - len(args):],
                      {name: _merged(value, count) for name, value in keywords.items()},
                      {name: node for name, node in call.kwarg_nodes.items() if name in keywords})
    out = interp.call(call.arg("f"), merged, ctx, scope)
    if example is None:
        return None
    problems: list[Problem] = []
    result = _split(out, example.dims[:count], problems)
    if problems:
        return refused(interp, call, problems[0])
    return result


def _example(tree: Value, count: int) -> ArrayType | Literal[False] | None:
    """The first leaf of `count` dims or more, whose leading dims the outputs get; None where an
    earlier leaf (or the tree) is not known, False where every leaf has fewer."""
    found = pytrees.node(tree)
    if found is not None:
        for member in found[1]:
            inner = _example(member, count)
            if inner is not False:
                return inner
        return False
    leaf = pytrees.leaf(tree)
    if leaf is None or leaf.ellipsis is not None:
        return None
    return leaf if len(leaf.dims) >= count else False


def _merged(value: Value, count: int) -> Value:
    """`value` with each array leaf of `count` dims or more reshaped to one leading dim for them
    (haiku's `merge_leading_dims`); a leaf of unknown rank becomes unknown."""
    found = pytrees.node(value)
    if found is not None:
        return pytrees.rebuilt(value, [_merged(member, count) for member in found[1]])
    if not isinstance(value, ArrayType):
        return value  # a Python number has no dims to merge; others are not arrays
    if value.ellipsis is not None:
        return None
    if len(value.dims) < count:
        return value
    lead = value.dims[0] if count == 1 else product(value.dims[:count])
    return value.with_dims((lead, *value.dims[count:]))


def _split(value: Value, lead: tuple[Dim, ...], problems: list[Problem]) -> Value:
    """`value` with each array leaf's leading dim split into `lead` (haiku's `split_leading_dim`,
    a reshape); a Python number there has no shape (haiku's AttributeError): unknown."""
    found = pytrees.node(value)
    if found is not None:
        return pytrees.rebuilt(value, [_split(member, lead, problems) for member in found[1]])
    if not isinstance(value, ArrayType):
        return None
    if value.ellipsis == 0:
        return value.with_dims(lead, len(lead))  # its dims after the first: not known
    if value.ellipsis is not None:
        return value.with_dims((*lead, *value.dims[1:]), value.ellipsis - 1 + len(lead))
    outcome = reshape.reshape(value, (*lead, *value.dims[1:]))
    problems.extend(replace(problem, message=problem.message.replace(
        "reshape:", f"hk.BatchApply splits the leading dim of its function's output into {format_shape(lead)}:", 1)
        + "; the function must return arrays whose first dim is the one their leading dims were merged into")
        for problem in outcome.problems)
    return outcome.type


# -- parameters -------------------------------------------------------------------------------

@REGISTRY.handles(f"{HK}.get_parameter", signature="name, shape, dtype=None, init=None")
def get_parameter(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`hk.get_parameter("w", [n, m], init=...)`: an array of that shape, float32 unless `dtype` says."""
    made = _declared(call)
    name = call.arg("name")
    if made is not None and isinstance(name, Const) and isinstance(name.value, str):
        model_params.created(interp, call.node, name.value,
                             f"parameter `{name.value}` (`hk.get_parameter`, line {getattr(call.node, 'lineno', '?')})",
                             made)
    return made


@REGISTRY.handles(f"{HK}.get_state", signature="name, shape=None, dtype=None, init=None")
def get_state(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`hk.get_state("count", [], init=jnp.zeros)`: an array of that shape (the state is not a
    parameter: `apply` does not compare it)."""
    return _declared(call)


def _declared(call: CallArgs) -> ArrayType | None:
    """The array `shape` and `dtype` (float32 when not given) declare; None without a shape."""
    dims = shape(call.arg("shape")) if call.given("shape") else None
    if dims is None:
        return None
    return ArrayType(dtype_arg(call.arg("dtype")) if passed(call, "dtype") else "f32", dims)


# -- layers -----------------------------------------------------------------------------------

REGISTRY.handles(f"{HK}.Linear", signature="output_size, with_bias=True, w_init=None, b_init=None, name=None")(build)
REGISTRY.handles(f"{HK}.nets.MLP", signature="output_sizes, w_init=None, b_init=None, with_bias=True, "
                                             "activation=None, activate_final=False, name=None")(build)
REGISTRY.handles(f"{HK}.Flatten", signature="preserve_dims=1, name=None")(build)
REGISTRY.handles(f"{HK}.Sequential", signature="layers, name=None")(build)
REGISTRY.handles(f"{HK}.LayerNorm", signature="axis, create_scale, create_offset, eps=1e-05, scale_init=None, "
                                               "offset_init=None, use_fast_variance=False, name=None, *, "
                                               "param_axis=None")(build)
REGISTRY.handles(f"{HK}.Embed", signature="vocab_size=None, embed_dim=None, embedding_matrix=None, w_init=None, "
                                           "lookup_style='ARRAY_INDEX', name=None, precision=None")(build)


def _created(interp: Interpreter, layer: Layer, prefix: str = "", **params: tuple[Dim, ...] | None) -> None:
    model_params.layer_created(interp, layer, "hk", params, prefix)


def _flag(layer: Layer, name: str, default: bool) -> bool | None:
    value = layer.setting(name) if layer.given(name) else Const(default)
    return value.value if isinstance(value, Const) and isinstance(value.value, bool) else None


@LAYERS.rule(f"{HK}.Linear", signature="inputs, *, precision=None")
def linear(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    x = call.arg("inputs")
    if not isinstance(x, ArrayType) or x.rank is None:
        return None
    size = as_dim(layer.setting("output_size"))
    outcome = layers.haiku_linear(x, size, f"hk.{layer.name.rpartition('.')[2]}")
    if outcome.problems:
        return refused(interp, call, outcome.problems[0])
    bias = _flag(layer, "with_bias", True)
    _created(interp, layer, w=(x.dims[-1], size), b=(size,) if bias else None)
    return outcome.type


@LAYERS.rule(f"{HK}.nets.MLP", signature="inputs, dropout_rate=None, rng=None")
def mlp(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """A Linear layer per output size; the activation between them keeps the shape."""
    x = call.arg("inputs")
    sizes = layer.setting("output_sizes")
    if not isinstance(x, ArrayType) or x.rank is None or not isinstance(sizes, Seq):
        return None
    bias = _flag(layer, "with_bias", True)
    for index, item in enumerate(sizes.items):
        size = as_dim(item)
        outcome = layers.haiku_linear(x, size, f"hk.{layer.name.rpartition('.')[2]}")
        if outcome.problems:
            return refused(interp, call, outcome.problems[0])
        _created(interp, layer, f"linear_{index}/", w=(x.dims[-1], size), b=(size,) if bias else None)
        x = outcome.type
    return x


@LAYERS.rule(f"{HK}.Flatten", signature="inputs")
def flatten(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """The first `preserve_dims` dims kept, the rest as one (an input of no more dims: as it is)."""
    x = call.arg("inputs")
    keep = as_int(layer.setting("preserve_dims")) if layer.given("preserve_dims") else 1
    if not isinstance(x, ArrayType) or x.rank is None or x.ellipsis is not None or keep is None or keep < 0:
        return None
    if x.rank <= keep:
        return x
    return ArrayType(x.dtype, (*x.dims[:keep], product(x.dims[keep:])), x.named, None, x.named_open)


@LAYERS.rule(f"{HK}.Sequential", signature="*args, **kwargs")
def sequential(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """Each layer on what the one before returned (haiku passes the first the call's arguments)."""
    return chained(interp, layer.setting("layers"), call, ctx, spread=False)


REGISTRY.handles(f"{HK}.BatchNorm", signature="create_scale, create_offset, decay_rate, eps=1e-05, scale_init=None, "
                                               "offset_init=None, axis=None, cross_replica_axis=None, "
                                               "cross_replica_axis_index_groups=None, data_format='channels_last', "
                                               "name=None")(build)


@LAYERS.rule(f"{HK}.BatchNorm", signature="inputs, is_training, test_local_stats=False, scale=None, offset=None")
def batch_norm(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """Normalised, of the input's shape (its parameters and statistics are not followed)."""
    x = call.arg("inputs")
    return x if isinstance(x, ArrayType) and x.dtype is not None and kind_of(x.dtype) == "f" else None


_CONV_SIGNATURE: Final = ("output_channels, kernel_shape, stride=1, rate=1, padding='SAME', with_bias=True, "
                          "w_init=None, b_init=None, data_format=None, mask=None, feature_group_count=1, name=None")
_CONVS: Final = {f"{HK}.Conv1D": 1, f"{HK}.Conv2D": 2, f"{HK}.Conv3D": 3}
REGISTRY.handles(*_CONVS, signature=_CONV_SIGNATURE)(build)


@LAYERS.rule(*_CONVS, signature="inputs, *, precision=None")
def conv(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`hk.Conv2D(16, 3)(x)`: x is `(batch, *spatial, channels)` or unbatched `(*spatial,
    channels)`; the kernel `(*kernel_shape, channels // groups, output_channels)`. Channels
    first (`data_format='NCHW'`), padding other than a string and masks are not followed."""
    x = call.arg("inputs")
    spatial = _CONVS[layer.name]
    kernel, strides, rates = (_per_dim(layer, name, default, spatial) for name, default in
                              (("kernel_shape", None), ("stride", 1), ("rate", 1)))
    padding = layer.setting("padding") if layer.given("padding") else Const("SAME")
    groups = as_int(layer.setting("feature_group_count")) if layer.given("feature_group_count") else 1
    if (not isinstance(x, ArrayType) or x.rank not in (spatial + 1, spatial + 2) or x.ellipsis is not None
            or kernel is None or strides is None or rates is None or groups is None or groups < 1
            or not isinstance(padding, Const) or not isinstance(padding.value, str)
            or padding.value.upper() not in ("SAME", "VALID") or layer.given("mask")
            or (layer.given("data_format") and layer.setting("data_format") not in (Const(None), Const(_LAST[spatial])))):
        return None
    unbatched = x.rank == spatial + 1
    lhs = ArrayType(x.dtype, ((1,) if unbatched else ()) + x.dims, x.named, None, x.named_open)
    channels = x.dims[-1]
    per_group = per_group_of(channels, groups)
    out_channels = as_dim(layer.setting("output_channels"))
    rhs = ArrayType(x.dtype, (*kernel, per_group, out_channels))
    if per_group is not None:
        _created(interp, layer, w=rhs.dims, b=(out_channels,) if _flag(layer, "with_bias", True) else None)
    outcome = convolution.conv_general_dilated(
        lhs, rhs, strides, padding.value.upper(), rhs_dilation=rates, dimension_numbers=convolution.channels_last(spatial),
        feature_group_count=groups, what=f"hk.Conv{spatial}D({format_dim(out_channels)}, {format_shape(kernel)})")
    result = finish(interp, outcome, call, [call.arg_node("inputs")] * 2)
    if outcome.problems or result.rank is None:
        return None
    dims = result.dims[1:] if unbatched else result.dims
    dtype = x.dtype if x.dtype is not None and kind_of(x.dtype) in ("f", "c") else None
    return ArrayType(dtype, dims, x.named, None, x.named_open)


_LAST: Final = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def _per_dim(layer: Layer, name: str, default: int | None, spatial: int) -> tuple[Dim, ...] | None:
    """An int for every spatial dim, or one per dim (haiku's `replicate`)."""
    value = layer.setting(name) if layer.given(name) else (Const(default) if default is not None else None)
    if isinstance(value, Const) and value.is_int:
        return (as_int(value),) * spatial
    if isinstance(value, Seq) and len(value.items) == spatial:
        return tuple(as_dim(item) for item in value.items)
    return None


@LAYERS.rule(f"{HK}.LayerNorm", signature="inputs, scale=None, offset=None")
def layer_norm(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """Normalized over `axis` (-1: the last), its scale and offset of the last dim's size."""
    x = call.arg("inputs")
    if not isinstance(x, ArrayType):
        return None
    if x.rank and layer.setting("axis") == Const(-1) and not layer.given("param_axis"):
        features = (x.dims[-1],)
        scale, offset = _flag(layer, "create_scale", True), _flag(layer, "create_offset", True)
        _created(interp, layer, scale=features if scale else None, offset=features if offset else None)
    return x


REGISTRY.handles(f"{HK}.MultiHeadAttention", signature="num_heads, key_size, w_init_scale=None, *, w_init=None, "
                                                        "with_bias=True, b_init=None, value_size=None, model_size=None, "
                                                        "name=None")(build)


@LAYERS.rule(f"{HK}.MultiHeadAttention", signature="query, key, value, mask=None")
def multi_head_attention(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """`hk.MultiHeadAttention(num_heads, key_size)(q, k, v)`: `(..., length, features)` each,
    projected to `num_heads` heads of `key_size` (the value's of `value_size`, default
    `key_size`), attended, and projected to `model_size` (default `key_size * num_heads`)."""
    query, key, value, mask = (call.arg(name) for name in ("query", "key", "value", "mask"))
    if not (isinstance(query, ArrayType) and isinstance(key, ArrayType) and isinstance(value, ArrayType)):
        return None
    heads, key_size = as_dim(layer.setting("num_heads")), as_dim(layer.setting("key_size"))
    value_size = as_dim(layer.setting("value_size")) if _given(layer, "value_size") else key_size
    model_size = as_dim(layer.setting("model_size")) if _given(layer, "model_size") else (
        heads * key_size if isinstance(heads, int) and isinstance(key_size, int) else None)
    dtypes = {x.dtype for x in (query, key, value)}
    dtype = query.dtype if len(dtypes) == 1 and query.dtype is not None and kind_of(query.dtype) == "f" else None
    outcome, features = layers.broadcast_attention(
        query, key, value, mask if isinstance(mask, ArrayType) else None, heads, value_size, model_size, dtype,
        f"hk.MultiHeadAttention({format_dim(heads)}, {format_dim(key_size)})")
    result = finish(interp, outcome, call, [call.arg_node(name) for name in ("query", "key", "value", "mask")])
    if outcome.problems:
        return None
    bias = _flag(layer, "with_bias", True)
    qk = heads * key_size if isinstance(heads, int) and isinstance(key_size, int) else None
    vo = heads * value_size if isinstance(heads, int) and isinstance(value_size, int) else None
    for prefix, x, size in (("query/", query, qk), ("key/", key, qk), ("value/", value, vo)):
        _created(interp, layer, prefix, w=(x.dims[-1], size), b=(size,) if bias else None)
    _created(interp, layer, "linear/", w=(features, model_size), b=(model_size,) if bias else None)
    return result


def _given(layer: Layer, name: str) -> bool:
    """Given a value haiku takes (`value_size or key_size`: None and 0 are not)."""
    return layer.given(name) and layer.setting(name) not in (Const(None), Const(0))


@LAYERS.rule(f"{HK}.Embed", signature="ids")
def embed(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """A row of `embed_dim` per id; the table is `(vocab_size, embed_dim)`."""
    ids = call.arg("ids")
    if not isinstance(ids, ArrayType) or layer.given("embedding_matrix") or not layer.given("embed_dim"):
        return None
    dim = as_dim(layer.setting("embed_dim"))
    _created(interp, layer, embeddings=(as_dim(layer.setting("vocab_size")), dim))
    return ArrayType("f32", (*ids.dims, dim), ids.named, ids.ellipsis, ids.named_open)
