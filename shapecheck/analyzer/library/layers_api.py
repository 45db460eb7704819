"""Layer objects of neural-network libraries: how one is built, and how calling it is checked.

`nn.Dense(128)` (flax.linen) or `eqx.nn.Linear(3, 4, key=k)` (equinox) is a `Layer` value
holding the settings its constructor was given; calling it runs the rule its library module
declares for that class (`LayerRules.rule`), with the call's arguments bound by the signature
of the layer's `__call__`. A layer whose class has no rule, or a call the checker cannot
read, gives an unknown value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, TypeAlias

from shapecheck.algebra import attention, convolution, layers, linalg
from shapecheck.algebra import einsum as algebra_einsum
from shapecheck.algebra.broadcast import broadcast_to
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.algebra.promotion import Typed, default, result_type
from shapecheck.analyzer.calls import CallArgs, Handler, Signature
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    dtype_arg,
    finish,
    finished,
    flag,
    forwarded,
    passed,
    refused,
)
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Dict,
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
from shapecheck.dims import Dim, format_shape, product
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

LayerRule: TypeAlias = "Callable[[Interpreter, Layer, CallArgs, Context], Value]"
Parameters: TypeAlias = "dict[str, tuple[Dim, ...] | bool | None]"
"""A built layer's arrays by attribute: a shape, None where it is not known, False where the
layer holds None there (`use_bias=False`)."""


class LayerRules:
    """The call rules one library module declares for its layer classes, by qualified name."""

    __slots__ = ("rules",)

    def __init__(self) -> None:
        self.rules: dict[str, tuple[Signature, LayerRule]] = {}

    def rule(self, *names: str, signature: str) -> Callable[[LayerRule], LayerRule]:
        """Register how calling a layer of these classes is checked; `signature` is its
        `__call__`'s, without `self`."""
        declared = Signature.parse(signature)

        def register(rule: LayerRule) -> LayerRule:
            for name in names:
                self.rules[name] = (declared, rule)
            return rule

        return register


def build(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A layer's constructor: the settings given, by parameter name."""
    signature = call.signature
    if signature is None or call.opaque:
        return None
    names = (*signature.positional, *signature.keyword_only)
    settings = [(name, call.arg(name)) for name in names if call.given(name)]
    if signature.variadic is not None:  # `nnx.Sequential(*fns)`: what `*fns` collects, as a tuple
        settings.append((signature.variadic, Seq(tuple(call.rest()))))
    if signature.var_keyword is not None:
        # The options a signature leaves to `**options` are settings too (`use_scale=False`).
        settings.extend((name, value) for name, value in call.kwargs.items() if name not in signature.places)
    return Layer(call.name, tuple(settings), call.node)


def layer_dtype(layer: Layer, *inputs: ArrayType) -> str | None:
    """The dtype a flax layer computes in (linen's and nnx's `promote_dtype`): its `dtype`
    setting, else its inputs' (an attention's query and key) promoted with its parameters'
    (`param_dtype`, float32 unless given); with no input, the parameters' own (an embedding's
    table)."""
    if layer.passed("dtype"):
        return dtype_arg(layer.setting("dtype"))
    params = param_dtype(layer)
    if params is None:
        return None
    return result_type(*(Typed(x.dtype, x.weak) for x in inputs), Typed(params)).dtype


def param_dtype(layer: Layer) -> str | None:
    """A flax layer's parameters' dtype: `param_dtype`, float32 where not given (flax's default is
    float32 itself, not the default float type of x64 mode)."""
    if layer.passed("param_dtype"):
        return dtype_arg(layer.setting("param_dtype"))
    return "f32"


def weights_dtype(layer: Layer) -> str | None:
    """An equinox layer's weights' dtype: its `dtype` setting, else the default float type."""
    if layer.passed("dtype"):
        return dtype_arg(layer.setting("dtype"))
    return default("f").dtype


def normalized_dtype(layer: Layer, x: ArrayType, parameters: bool | None, *, statistics: bool = False) -> str | None:
    """A flax norm's output dtype: its `dtype`, else the input promoted with its parameters
    (`param_dtype`; `parameters`: it has a scale or a bias, None where unknown) and, in nnx's
    BatchNorm (`statistics`), its running statistics (float32 whatever `param_dtype`); with
    neither, a float of the input's (`floating`)."""
    if layer.passed("dtype"):
        return dtype_arg(layer.setting("dtype"))
    if parameters is None:
        return None
    operands = [Typed(x.dtype, x.weak)]
    if parameters:
        operands.append(Typed(param_dtype(layer)))
    if statistics:
        operands.append(Typed("f32"))
    return result_type(*operands).dtype if len(operands) > 1 else floating(x)


def floating(x: ArrayType) -> str | None:
    """What a normalisation without parameters gives: a float input's dtype, an integer or
    boolean one's the default float type (statistics are means)."""
    if x.dtype is None:
        return None
    return x.dtype if kind_of(x.dtype) in ("f", "c") else default("f").dtype



# -- the arguments layer libraries take alike: window sizes, padding, and how they are shown ----

def shown(size: Dim) -> str:
    return str(size) if size is not None else "?"


def shown_window(window: tuple[Dim, ...]) -> str:
    return "(" + ", ".join(shown(d) for d in window) + ("," if len(window) == 1 else "") + ")"


def window(value: Value, spatial: int | None) -> tuple[Dim, ...] | None:
    """kernel_size, strides, dilations: an int for every spatial dim, or one per dim."""
    if isinstance(value, Const) and value.value is None and spatial is not None:
        return (1,) * spatial
    if isinstance(value, Const) and value.is_int:
        return (as_int(value),) * (spatial if spatial is not None else 1)
    if isinstance(value, Seq) and (spatial is None or len(value.items) == spatial):
        return tuple(as_dim(item) for item in value.items)
    return None


def padding_of(value: Value, spatial: int) -> convolution.Padding:
    """'SAME', 'VALID', an int, an int per dim or a (low, high) pair per dim; None otherwise
    ('CIRCULAR' and 'CAUSAL' pad by hand: not followed)."""
    text = as_str(value)
    if text is not None:
        return text.upper() if text.upper() in ("SAME", "VALID") else None
    if isinstance(value, Const) and value.is_int:
        return ((as_int(value), as_int(value)),) * spatial
    if isinstance(value, Seq) and len(value.items) == spatial:
        pairs: list[tuple[Dim, Dim]] = []
        for item in value.items:
            if isinstance(item, Const) and item.is_int:
                pairs.append((as_int(item), as_int(item)))
            elif isinstance(item, Seq) and len(item.items) == 2:
                pairs.append((as_dim(item.items[0]), as_dim(item.items[1])))
            else:
                return None
        return tuple(pairs)
    return None


def chained(interp: Interpreter, layers: Value, call: CallArgs, ctx: Context, *, spread: bool,
            first: CallArgs | None = None) -> Value:
    """A sequential layer's call (`nn.Sequential`, `hk.Sequential`, `eqx.nn.Sequential`): its first
    layer on the call's arguments (those its `*args` collect, or `first`), each next on what the
    one before returned; a tuple is spread into the next one's arguments where `spread` (flax
    does, haiku and equinox do not). Unknown where the layers cannot be read, and after a layer
    returns a dict (spread as keywords: not followed)."""
    if not isinstance(layers, Seq) or not layers.items:
        return None  # the libraries refuse an empty list
    out = interp.call(layers.items[0], first if first is not None else forwarded(call, call.rest()), ctx, interp.scope)
    for following in layers.items[1:]:
        if out is None or isinstance(out, Dict):
            return None
        args: list[Value] = list(out.items) if spread and isinstance(out, Seq) and not out.is_list else [out]
        out = interp.call(following, CallArgs(call.node, args, [call.node] * len(args)), ctx, interp.scope)
    return out


def flax_conv(interp: Interpreter, layer: Layer, call: CallArgs, x: ArrayType, in_features: Dim, features: Dim,
              what: Callable[[tuple[Dim, ...]], str]) -> tuple[Value, tuple[Dim, ...] | None]:
    """A flax convolution (linen's `nn.Conv` and nnx's `nnx.Conv` take the same settings) on `x`:
    `(*batch, *spatial, in_features)`, channels last, the kernel `(*kernel_size, in_features //
    groups, features)`; no batch dim is allowed, several are flattened. The output, and the
    kernel's shape where the groups divide `in_features` (None otherwise). `what` names the
    layer for messages, given the kernel size."""
    kernel = window(layer.setting("kernel_size"), None)
    if x.rank is None or x.ellipsis is not None or kernel is None:
        return None, None
    spatial = len(kernel)
    batch_rank = x.rank - spatial - 1
    if batch_rank < 0:
        return None, None  # flax fails on it, with a message about broadcasting: not reported
    strides = window(layer.setting("strides"), spatial) if layer.given("strides") else (1,) * spatial
    dilation = window(layer.setting("kernel_dilation"), spatial) if layer.given("kernel_dilation") else None
    input_dilation = window(layer.setting("input_dilation"), spatial) if layer.given("input_dilation") else None
    padding = padding_of(layer.setting("padding"), spatial) if layer.given("padding") else "SAME"
    groups = as_dim(layer.setting("feature_group_count")) if layer.given("feature_group_count") else 1
    if padding is None or (groups is not None and not isinstance(groups, int)):
        return None, None
    per_group = per_group_of(in_features, groups)
    lhs = ArrayType(x.dtype, (product(x.dims[:batch_rank]), *x.dims[batch_rank:]), x.named, None, x.named_open)
    rhs = ArrayType(x.dtype, (*kernel, per_group, features))
    outcome = convolution.conv_general_dilated(
        lhs, rhs, strides, padding,
        lhs_dilation=input_dilation if input_dilation is not None else convolution.DEFAULT,
        rhs_dilation=dilation if dilation is not None else convolution.DEFAULT,
        dimension_numbers=convolution.channels_last(spatial),
        feature_group_count=groups if groups is not None else 1,
        what=what(kernel))
    result = finish(interp, outcome, call, [call.arg_node("inputs")] * 2)
    made = rhs.dims if per_group is not None else None
    if outcome.problems or result.rank is None:
        return None, made
    output = ArrayType(layer_dtype(layer, x), (*x.dims[:batch_rank], *result.dims[1:]), x.named, None, x.named_open)
    return output, made


def flax_conv_transpose(interp: Interpreter, layer: Layer, call: CallArgs, x: ArrayType, in_features: Dim,
                        features: Dim, what: Callable[[tuple[Dim, ...]], str]) -> tuple[Value, tuple[Dim, ...] | None]:
    """A flax transposed convolution (linen's `nn.ConvTranspose` and nnx's `nnx.ConvTranspose`
    take the same settings) on `x`: `(*batch, *spatial, in_features)`, channels last, the kernel
    `(*kernel_size, in_features, features)` (its last two swapped with `transpose_kernel`),
    `lax.conv_transpose` with its default layout; no batch dim is allowed, several are
    flattened. The output, and the kernel's shape (None where not known). 'CIRCULAR' padding
    and masks are not followed."""
    kernel = window(layer.setting("kernel_size"), None)
    if x.rank is None or x.ellipsis is not None or kernel is None or layer.given("mask"):
        return None, None
    spatial = len(kernel)
    batch_rank = x.rank - spatial - 1
    if batch_rank < 0:
        return None, None
    strides = window(layer.setting("strides"), spatial) if layer.given("strides") else (1,) * spatial
    dilation = window(layer.setting("kernel_dilation"), spatial) if layer.given("kernel_dilation") else (1,) * spatial
    padding = padding_of(layer.setting("padding"), spatial) if layer.given("padding") else "SAME"
    swapped = flag(layer.setting("transpose_kernel")) if layer.given("transpose_kernel") else False
    if padding is None or swapped is None or strides is None or dilation is None:
        return None, None
    lhs = ArrayType(x.dtype, (product(x.dims[:batch_rank]), *x.dims[batch_rank:]), x.named, None, x.named_open)
    made = (*kernel, features, in_features) if swapped else (*kernel, in_features, features)
    outcome = convolution.conv_transpose(lhs, ArrayType(x.dtype, made), strides, padding, rhs_dilation=dilation,
                                         transpose_kernel=swapped)
    if outcome.problems:
        # lax's message names lax: the layer's sizes say which layer it was.
        outcome = Outcome(outcome.type, tuple(replace(problem, message=f"{what(kernel)}: {problem.message}")
                                              for problem in outcome.problems))
    result = finish(interp, outcome, call, [call.arg_node("inputs")] * 2)
    if outcome.problems or result.rank is None:
        return None, made
    output = ArrayType(layer_dtype(layer, x), (*x.dims[:batch_rank], *result.dims[1:]), x.named, None, x.named_open)
    return output, made


def flax_embedding(interp: Interpreter, call: CallArgs, ids: ArrayType, rows: Dim, features: Dim, dtype: str | None,
                   what: str) -> Value:
    """A flax `Embed` (linen's and nnx's) on integer `ids`: a row of the table per id. A table of
    one row is broadcast to `ids.shape + (features,)` rather than indexed, which a scalar id asks
    in fewer dims than the row has (a ValueError, SC101)."""
    if rows == 1 and ids.rank is not None and ids.ellipsis is None:
        row = ArrayType(dtype, (1, features))
        outcome = broadcast_to(row, (*ids.dims, features), [f"{what}'s table"])
        result = finish(interp, outcome, call, [call.arg_node("inputs")])
        return None if outcome.problems else ArrayType(dtype, result.dims, ids.named, None, ids.named_open)
    return finish(interp, layers.embed(ids, features, dtype), call)


def flax_einsum(interp: Interpreter, call: CallArgs, x: ArrayType, spec: str, kernel: tuple[Dim, ...],
                dtype: str | None, what: str, bias: tuple[Dim, ...] | None = None, *,
                initialized: bool = True) -> Value:
    """A flax `Einsum` layer (linen's and nnx's) on `x`: `jnp.einsum(spec, x, kernel)`, the spec
    explicit with exactly two operands (a ValueError otherwise, SC003); nnx's `bias`, of the
    shape it was built with, is reshaped to the kernel dims the output keeps (their sizes must
    multiply to the same count, SC105). linen makes its bias of those dims. `initialized`: the
    kernel is made by flax's default initializer (lecun_normal), which needs two dims or more
    to read its fans from (a ValueError, SC106)."""
    if initialized and len(kernel) < 2:
        return refused(interp, call, Problem(
            Code.AXIS_OUT_OF_RANGE, f"{what}: its kernel {format_shape(kernel)} is made by the default initializer "
            "(lecun_normal), which reads the fans from a kernel's last two dims; give a kernel of two dims or "
            "more, or a kernel_init", axes=(-2,)))
    spec = spec.replace(" ", "")
    if "->" not in spec or spec.count(",") != 1:
        return refused(interp, call, Problem(
            Code.INVALID_EINSUM_SPEC, f"{what}: the einsum string {spec!r} must be explicit (with `->`) and have "
            "exactly two operands, the input and the kernel"))
    parsed = algebra_einsum.parse_einsum(spec)
    if isinstance(parsed, Problem):
        return refused(interp, call, parsed)
    outcome = algebra_einsum.einsum(parsed, [x.with_dtype(dtype), ArrayType(dtype, kernel)],
                                    ("the input", f"{what}'s kernel {format_shape(kernel)}"))
    result = finish(interp, outcome, call, [call.arg_node("inputs")] * 2)
    if outcome.problems or result.ellipsis is not None:
        return None
    if bias is not None and parsed.output is not None and not parsed.inputs[1].has_ellipsis:
        kept = tuple(size for letter, size in zip(parsed.inputs[1].letters, kernel, strict=False)
                     if letter in parsed.output.letters)
        if isinstance(product(bias), int) and isinstance(product(kept), int) and product(bias) != product(kept):
            return refused(interp, call, Problem(
                Code.RESHAPE_MISMATCH, f"{what}: its bias {format_shape(bias)} is reshaped to the kernel dims the "
                f"output keeps, {format_shape(kept)}, which hold {product(kept)} values, not "
                f"{product(bias)}", sizes=(product(bias), product(kept))))
    return result


def flax_dropout(interp: Interpreter, layer: Layer, call: CallArgs, ctx: Context) -> Value:
    """flax's `Dropout` (linen's and nnx's): its input as it is, in shape and dtype. Where it
    drops (a rate other than 0 and 1, not deterministic), flax returns `lax.select(mask, x /
    keep, zeros_like(x))`, which an integer or boolean input makes of two dtypes: lax refuses
    it (a TypeError, SC301). `deterministic` is the call's, else the layer's (nnx: False unless
    given; linen: it must be given somewhere)."""
    assert call.signature is not None
    x = call.arg(call.signature.positional[0])
    if not isinstance(x, ArrayType):
        return None
    if x.dtype is None or kind_of(x.dtype) not in ("b", "i", "u"):
        return x
    rate = layer.setting("rate")
    nnx = layer.name.startswith("flax.nnx.")
    if passed(call, "deterministic"):
        deterministic = flag(call.arg("deterministic"))
    elif layer.passed("deterministic"):
        deterministic = flag(layer.setting("deterministic"))
    else:
        deterministic = False if nnx else None  # linen: a ValueError (not a shape), unknown
    if not isinstance(rate, Const) or not isinstance(rate.value, int | float) or deterministic is None:
        return None
    if deterministic or rate.value in (0, 1):
        return x
    what = "flax.nnx.Dropout" if nnx else "flax.linen.Dropout"
    return refused(interp, call, Problem(
        Code.DTYPE_MISMATCH, f"{what}({rate.value}) drops by `lax.select` between the input scaled by 1 / (1 - "
        f"rate), a float, and zeros of the input's dtype {x.dtype}: lax.select refuses operands of two dtypes "
        "(cast the input to a float, or pass deterministic=True)", operands=(0,)))


def per_group_of(channels: Dim, groups: Dim) -> Dim:
    """The channels each of a grouped convolution's kernels takes: None where the groups do not
    divide the channels (or either is not known)."""
    if isinstance(channels, int) and isinstance(groups, int) and groups > 0 and channels % groups == 0:
        return channels // groups
    return None


def flag_setting(layer: Layer, name: str) -> bool | None:
    """A flag setting that defaults to True (`use_bias`, `use_scale`); None where not a known bool."""
    return flag(layer.setting(name), True) if layer.given(name) else True


def made_if(layer: Layer, setting: str, shape: tuple[Dim, ...] | None) -> tuple[Dim, ...] | bool | None:
    """A parameter made where a flag setting (`flag_setting`) says so: its shape, False where the
    flag is False, None where the flag is not a known bool."""
    wanted = flag_setting(layer, setting)
    return None if wanted is None else shape if wanted else False


def parameter_reader(name: str, parameters: Callable[[Layer], Parameters],
                     dtype: Callable[[Layer, str], str | None]) -> Handler:
    """The handler of `layer.<name>` for a library's built layers: the array its `parameters`
    give there, in `dtype`; None (the Python value) where the layer makes none."""
    def read(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
        layer = call.arg("layer")
        if not isinstance(layer, Layer):
            return None
        shape = parameters(layer).get(name)
        if shape is False:
            return Const(None)
        found = dtype(layer, name)
        return ArrayType(found, shape) if isinstance(shape, tuple) and found is not None else None

    read.__doc__ = f"`layer.{name}`: the array a built layer holds there."
    read.__qualname__ = read.__name__ = f"parameter_{name}"
    return read


# -- flax's attention and embedding helpers, linen's and nnx's alike ---------------------------

def attend_method(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`embed.attend` of a flax `Embed`, waiting for its query."""
    layer = call.arg("layer")
    return Partial(Qual(f"{layer.name}.attend"), (layer,)) if isinstance(layer, Layer) else None


def attend(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`embed.attend(query)` of a flax `Embed` (linen's and nnx's): `jnp.dot(query,
    embedding.T)`, the query's features against each row of the table (logits over the
    vocabulary, the table shared with the input's embedding: weight tying); a query of other
    features than the table's is refused (SC104)."""
    layer, query = call.arg("self"), call.arg("query")
    if not isinstance(layer, Layer) or not isinstance(query, ArrayType):
        return None
    rows, features = as_dim(layer.setting("num_embeddings")), as_dim(layer.setting("features"))
    table = ArrayType(layer_dtype(layer, query), (features, rows))
    outcome = linalg.dot(ArrayType(table.dtype, query.dims, query.named, query.ellipsis, query.named_open), table,
                         ("the query", f"{layer.name}({shown(rows)}, {shown(features)})'s table, transposed"))
    return finished(interp, call, outcome, [call.arg_node("query")])


def attention_mask(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """flax's `make_attention_mask(query_input, key_input)` (`attention.attention_mask`), or
    `make_causal_mask(x)`: the mask of `x` with itself, whose last dim (the length) a scalar
    lacks (an IndexError, SC106)."""
    causal = call.name.endswith("make_causal_mask")
    query = call.arg("x" if causal else "query_input")
    key = query if causal else call.arg("key_input")
    extra = as_int(call.arg("extra_batch_dims")) if call.given("extra_batch_dims") else 0
    dtype = dtype_arg(call.arg("dtype")) if call.given("dtype") else "f32"  # flax's default, in x64 mode too
    if not isinstance(query, ArrayType) or not isinstance(key, ArrayType) or extra is None:
        return None
    if causal and query.rank == 0 and query.ellipsis is None:
        return refused(interp, call, Problem(
            Code.AXIS_OUT_OF_RANGE, f"{call.name}: its input is a scalar, but the mask is made over its last dim "
            "(batch..., length)", axes=(-1,), operands=(0,)))
    return finished(interp, call, attention.attention_mask(query, key, extra, dtype, call.name))


def dot_product_attention(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """flax's `dot_product_attention(query, key, value, bias, mask)` (`attention.flax_attention`):
    nnx's runs jax.nn's attention where it neither drops (`dropout_rate` 0) nor sows its weights
    (`module`); a causal mask over a mask of nnx's own weights, and linen's custom einsums, are
    not followed."""
    query, key, value, bias, mask = (call.arg(name) if passed(call, name) else Const(None)
                                     for name in ("query", "key", "value", "bias", "mask"))
    if not (isinstance(query, ArrayType) and isinstance(key, ArrayType) and isinstance(value, ArrayType)) or \
            not isinstance(bias, ArrayType | Const) or not isinstance(mask, ArrayType | Const):
        return None  # an operand not known (a bias or mask too: it might widen the weights)
    bias, mask = (given if isinstance(given, ArrayType) else None for given in (bias, mask))
    nnx = call.name.startswith("flax.nnx.")
    custom = ("promote_dtype",) if nnx else ("einsum_dot_general", "qk_attn_weights_einsum", "attn_weights_value_einsum")
    if any(passed(call, name) for name in custom):
        return None
    rate = call.arg("dropout_rate") if passed(call, "dropout_rate") else Const(0.0)
    if not isinstance(rate, Const) or not isinstance(rate.value, int | float):
        return None
    fused = nnx and rate.value == 0 and not passed(call, "module")
    causal = flag(call.arg("is_causal")) if nnx and call.given("is_causal") else False
    if causal is None or (causal and not fused and mask is not None):
        return None
    dtype = dtype_arg(call.arg("dtype")) if passed(call, "dtype") else attention.flax_dtype(query, key, value)
    outcome = attention.flax_attention(query, key, value, bias, mask, dtype, call.name, nnx=nnx, fused=fused)
    return finished(interp, call, outcome)
