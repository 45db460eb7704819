"""flax.nnx against the library itself: each drawn program builds nnx layers with their sizes,
alone, in a `nnx.Sequential` or in a module of the program's own, and calls them on
`jnp.zeros` of a drawn shape (its features those the layer was built for, or others). Where
nnx accepts, the checker reports nothing and infers the output's shape and dtype; where it
raises, the checker reports it with the code that means it (`tests.differential.agree`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases, check, shape_literal

pytest.importorskip("jax")
pytest.importorskip("flax.nnx")

LAYER = """\
import jax
import jax.numpy as jnp
from flax import nnx

layer = {layer}
out = layer(jnp.zeros({shape}, {dtype}))
"""

MODEL = """\
import jax
import jax.numpy as jnp
from flax import nnx


class Model(nnx.Module):
    def __init__(self, features: int, hidden: int, classes: int, *, rngs: nnx.Rngs):
        self.linear = nnx.Linear(features, hidden, rngs=rngs)
        self.norm = nnx.{norm}(hidden, rngs=rngs)
        self.dropout = nnx.Dropout(0.1, rngs=rngs)
        self.head = nnx.Linear(hidden, classes, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.norm(self.linear(x)))
        return self.head(self.dropout(x, deterministic=True))


model = Model({features}, {hidden}, {classes}, rngs=nnx.Rngs(0))
out = {output}
"""

sizes = st.integers(1, 6)
dtypes = st.sampled_from(["jnp.float32", "jnp.bfloat16", "jnp.int32"])
# A layer's computation and parameter dtypes (flax promotes the input with the parameters').
dtype_options = st.sampled_from(["", "", ", dtype=jnp.bfloat16", ", param_dtype=jnp.bfloat16",
                                 ", param_dtype=jnp.float16", ", dtype=jnp.float32, param_dtype=jnp.bfloat16"])
RNGS = "rngs=nnx.Rngs(0)"


def _features(draw: st.DrawFn, size: int) -> int:
    """The layer's own size most of the time, another one sometimes."""
    return size if draw(st.booleans()) or draw(st.booleans()) else draw(sizes)


@st.composite
def layers(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["Linear", "LayerNorm", "RMSNorm", "BatchNorm", "InstanceNorm", "Embed", "Dropout",
                                 "PReLU", "Sequential"]))
    batch = draw(st.lists(sizes, min_size=0, max_size=3))
    size, other = draw(sizes), draw(sizes)
    dtype = draw(dtypes)
    if kind == "Linear":
        dims = [*batch, _features(draw, size)] if draw(st.integers(0, 9)) else []
        layer = f"nnx.Linear({size}, {other}{draw(dtype_options)}, {RNGS})"
    elif kind == "PReLU":
        dims = batch
        layer = f"nnx.PReLU({draw(st.sampled_from(['', 'dtype=jnp.bfloat16', 'param_dtype=jnp.bfloat16']))})"
    elif kind in ("LayerNorm", "RMSNorm", "BatchNorm", "InstanceNorm"):
        dims = [*batch, _features(draw, size)]
        options = draw(st.sampled_from(["", "use_scale=False, ", "use_scale=False, use_bias=False, ",
                                        "use_running_average=True, "]))
        if "use_bias" in options and kind == "RMSNorm":
            options = "use_scale=False, "
        if options.startswith("use_running") and kind != "BatchNorm":
            options = ""
        if kind == "InstanceNorm" and draw(st.integers(0, 3)) == 0:
            dims = dims[-1:]  # no batch dim
        layer = f"nnx.{kind}({size}, {options}{RNGS}{draw(dtype_options)})"
    elif kind == "Embed":
        dims = batch  # ids of another dtype than an integer one are refused (SC301)
        layer = f"nnx.Embed({size}, {other}{draw(dtype_options)}, {RNGS})"
    elif kind == "Dropout":
        dims = batch
        # One that drops (nnx's default) an integer or boolean input is refused (lax.select).
        rate = draw(st.sampled_from(["0.0", "0.5", "1.0"]))
        layer = f"nnx.Dropout({rate}{draw(st.sampled_from(['', ', deterministic=True', ', deterministic=False']))}, {RNGS})"
        dtype = draw(st.sampled_from([dtype, "jnp.bool_"]))
    else:
        dims = [*batch, _features(draw, size)]
        middle = _features(draw, other)
        layer = (f"nnx.Sequential(nnx.Linear({size}, {other}, {RNGS}), nnx.relu, "
                 f"nnx.Linear({middle}, {draw(sizes)}, {RNGS}))")
    return LAYER.format(layer=layer, shape=shape_literal(dims), dtype=dtype)


@given(layers())
@cases(25)
def test_nnx_layers_agree_with_nnx(program: str) -> None:
    agree(program, frozenset({"SC101", "SC103", "SC104", "SC106", "SC301"}))


@st.composite
def convs(draw: st.DrawFn) -> str:
    spatial = draw(st.integers(1, 2))
    channels = draw(sizes)
    dims = [*draw(st.lists(sizes, min_size=0, max_size=2)), *[draw(st.integers(1, 9)) for _ in range(spatial)],
            _features(draw, channels)]
    kernel = draw(st.integers(1, 3)) if spatial == 1 and draw(st.booleans()) else \
        tuple(draw(st.integers(1, 3)) for _ in range(spatial))
    padding = draw(st.sampled_from(["'SAME'", "'VALID'", "1", "0"]))
    strides = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    channels *= groups  # nnx refuses to build a conv whose groups do not divide its channels
    dims[-1] = channels if dims[-1] == channels // groups else dims[-1]
    layer = (f"nnx.Conv({channels}, {draw(st.sampled_from([2, 3, 4, 6]))}, {kernel!r}, strides={strides}, "
             f"padding={padding}, feature_group_count={groups}{draw(dtype_options)}, {RNGS})")
    return LAYER.format(layer=layer, shape=shape_literal(dims), dtype=draw(dtypes))


@given(convs())
@cases(25)
def test_nnx_conv_agrees_with_nnx(program: str) -> None:
    agree(program, frozenset({"SC104"}))


@st.composite
def grouped_convs(draw: st.DrawFn) -> str:
    """Convs of drawn groups that divide their input and output features or not: nnx builds the
    kernel with `in_features // groups` and asserts the division only when called (SC105)."""
    groups = draw(st.sampled_from([1, 2, 3, 4]))
    in_features = groups * draw(st.integers(1, 3)) if draw(st.booleans()) else draw(st.integers(1, 8))
    out_features = groups * draw(st.integers(1, 2)) if draw(st.integers(0, 3)) else draw(st.integers(1, 8))
    dims = [*draw(st.lists(sizes, max_size=2)), draw(st.integers(1, 6)), _features(draw, in_features)]
    layer = f"nnx.Conv({in_features}, {out_features}, 3, feature_group_count={groups}, {RNGS})"
    return LAYER.format(layer=layer, shape=shape_literal(dims), dtype="jnp.float32")


@given(grouped_convs())
@cases(25)
def test_nnx_conv_groups_agree_with_nnx(program: str) -> None:
    agree(program, frozenset({"SC104", "SC105"}))


@pytest.mark.parametrize(("layer", "shape"), [
    (f"nnx.Conv(48, 48, (3, 3), feature_group_count=32, {RNGS})", "(2, 5, 5, 48)"),  # the reported miss
    (f"nnx.Conv(48, 64, (3, 3), feature_group_count=16, {RNGS})", "(2, 5, 5, 48)"),
    (f"nnx.Conv(6, 4, 3, feature_group_count=4, {RNGS})", "(5, 6)"),  # whatever the input, no batch dim
    (f"nnx.Conv(1, 1, 1, feature_group_count=1, {RNGS})", "(1, 1, 1)"),
    (f"nnx.Conv(2, 2, 1, feature_group_count=2, {RNGS})", "(1, 2)"),  # a group per feature
])
def test_conv_groups_are_checked_where_nnx_calls_the_conv(layer: str, shape: str) -> None:
    agree(LAYER.format(layer=layer, shape=shape, dtype="jnp.float32"), frozenset({"SC105"}))


@st.composite
def models(draw: st.DrawFn) -> str:
    features, hidden, classes = draw(sizes), draw(sizes), draw(sizes)
    x = f"jnp.zeros({shape_literal([*draw(st.lists(sizes, max_size=2)), _features(draw, features)])})"
    output = draw(st.sampled_from([
        "model({x})",
        "nnx.jit(lambda m, x: m(x))(model, {x})",
        "nnx.value_and_grad(lambda m, x: m(x).sum())(model, {x})[0]",
    ])).format(x=x)
    norm = draw(st.sampled_from(["LayerNorm", "RMSNorm", "BatchNorm"]))
    return MODEL.format(norm=norm, features=features, hidden=hidden, classes=classes, output=output)


@given(models())
@cases(25)
def test_nnx_modules_agree_with_nnx(program: str) -> None:
    agree(program, frozenset({"SC104"}))


def test_a_module_applied_to_other_features_is_reported_where_its_layer_is_called() -> None:
    program = MODEL.format(norm="LayerNorm", features=784, hidden=32, classes=10, output="model(jnp.zeros((8, 785)))")
    agree(program, frozenset({"SC104"}))


CNN = """\
from functools import partial

import jax.numpy as jnp
from flax import nnx


class CNN(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.conv1 = nnx.Conv(1, 32, kernel_size=(3, 3), rngs=rngs)
        self.conv2 = nnx.Conv(32, 64, kernel_size=(3, 3), rngs=rngs)
        self.avg_pool = partial(nnx.avg_pool, window_shape=(2, 2), strides=(2, 2))
        self.linear1 = nnx.Linear(3136, 256, rngs=rngs)
        self.linear2 = nnx.Linear(256, 10, rngs=rngs)

    def __call__(self, x):
        x = self.avg_pool(nnx.relu(self.conv1(x)))
        x = self.avg_pool(nnx.relu(self.conv2(x)))
        x = x.reshape(x.shape[0], -1)
        return self.linear2(nnx.relu(self.linear1(x)))


model = CNN(rngs=nnx.Rngs(0))
out = model(jnp.ones(({batch}, {size}, {size}, 1)))
"""


@pytest.mark.parametrize(("batch", "size"), [(8, 28), (1, 28), (8, 29), (8, 32), (2, 27)])
def test_the_tutorial_cnn_is_checked_on_images_of_its_size_and_others(batch: int, size: int) -> None:
    """flax's MNIST CNN: 28 (or 29) pixels pool to 7 × 7 × 64 = 3136 features; 32 to 4096."""
    agree(CNN.format(batch=batch, size=size), frozenset({"SC104"}))


OWN_PARAMS = """\
import jax
import jax.numpy as jnp
from flax import nnx


class Linear(nnx.Module):
    def __init__(self, din: int, dout: int, *, rngs: nnx.Rngs):
        self.w = nnx.Param(jax.random.uniform(rngs.params(), (din, dout)))
        self.b = nnx.Param(jnp.zeros((dout,)))
        self.count = nnx.Variable(jnp.array(0))

    def __call__(self, x):
        self.count[...] += 1
        return {product} + self.b[...]


model = Linear({din}, {dout}, rngs=nnx.Rngs(0))
out = model(jnp.ones({shape}))
"""


@st.composite
def own_params(draw: st.DrawFn) -> str:
    din, dout = draw(sizes), draw(sizes)
    product = draw(st.sampled_from(["x @ self.w", "x @ self.w[...]", "jnp.dot(x, self.w.get_value())",
                                    "jnp.einsum('...i,io->...o', x, self.w[...])"]))
    shape = shape_literal([*draw(st.lists(sizes, max_size=2)), _features(draw, din)])
    return OWN_PARAMS.format(din=din, dout=dout, product=product, shape=shape)


@given(own_params())
@cases(25)
def test_a_module_s_own_parameters_are_the_arrays_they_hold(program: str) -> None:
    agree(program, frozenset({"SC101", "SC104"}))


ATTENTION = """\
import jax.numpy as jnp
from flax import nnx

layer = {layer}
query = jnp.zeros({query}, {dtype})
out = layer({arguments})
"""


@st.composite
def attentions(draw: st.DrawFn) -> str:
    """Self- and cross-attention of drawn heads and features, on queries (and keys) of drawn
    batch dims and lengths, whose features are the layer's most of the time."""
    heads = draw(st.integers(1, 3))
    in_features = heads * draw(st.integers(1, 3)) if draw(st.integers(0, 5)) else draw(sizes)
    options = ""
    if draw(st.booleans()):
        options += f"qkv_features={heads * draw(st.integers(1, 3)) if draw(st.integers(0, 5)) else draw(sizes)}, "
    if draw(st.booleans()):
        options += f"out_features={draw(sizes)}, "
    kv_features = in_features
    if draw(st.booleans()):
        kv_features = draw(sizes)
        options += f"in_kv_features={kv_features}, "
    batch = draw(st.lists(sizes, max_size=2))
    query = [*batch, draw(sizes), _features(draw, in_features)]
    if draw(st.integers(0, 9)) == 0:
        query = query[len(query) - draw(st.integers(0, 1)):]  # no length axis, or a scalar
    layer = f"nnx.MultiHeadAttention({heads}, {in_features}, {options}decode=False{draw(dtype_options)}, {RNGS})"
    arguments = "query"
    if kv_features != in_features or draw(st.booleans()):
        same = draw(st.integers(0, 4))
        key_batch = batch if same else draw(st.lists(sizes, min_size=len(batch), max_size=len(batch)))
        arguments = f"query, jnp.ones({shape_literal([*key_batch, draw(sizes), _features(draw, kv_features)])})"
    return ATTENTION.format(layer=layer, query=shape_literal(query), dtype=draw(dtypes), arguments=arguments)


@given(attentions())
@cases(25)
def test_nnx_attention_agrees_with_nnx(program: str) -> None:
    agree(program, frozenset({"SC101", "SC104", "SC105", "SC106"}))


@pytest.mark.parametrize(("layer", "shape", "dtype"), [
    ("nnx.Sequential()", "(2, 3)", "jnp.float32"),
    ("nnx.Sequential(nnx.relu)", "(2, 3)", "jnp.float32"),
    (f"nnx.Linear(3, 4, {RNGS})", "(0, 3)", "jnp.float32"),
    (f"nnx.Linear(1, 1, {RNGS})", "(1,)", "jnp.float32"),
    (f"nnx.Embed(3, 4, {RNGS})", "(0,)", "jnp.int32"),
    (f"nnx.Embed(1, 1, {RNGS})", "(1,)", "jnp.int32"),
    (f"nnx.LayerNorm(3, {RNGS})", "(0, 3)", "jnp.float32"),
    (f"nnx.BatchNorm(1, {RNGS})", "(1, 1)", "jnp.float32"),
    (f"nnx.Conv(1, 1, 1, {RNGS})", "(1, 1)", "jnp.float32"),
    (f"nnx.MultiHeadAttention(1, 1, decode=False, {RNGS})", "(1, 1)", "jnp.float32"),
    (f"nnx.Dropout(0.5, deterministic=True, {RNGS})", "()", "jnp.float32"),
    (f"nnx.ConvTranspose(1, 1, 1, {RNGS})", "(1, 1)", "jnp.float32"),
    (f"nnx.ConvTranspose(2, 3, (1, 1), {RNGS})", "(0, 1, 1, 2)", "jnp.float32"),
    (f"nnx.GroupNorm(1, num_groups=1, {RNGS})", "(1, 1)", "jnp.float32"),
    (f"nnx.GroupNorm(2, num_groups=None, group_size=1, {RNGS})", "(3, 2)", "jnp.float32"),
    (f"nnx.GroupNorm(4, num_groups=1, use_scale=False, use_bias=False, {RNGS})", "(1, 1, 4)", "jnp.int32"),
])
def test_trivial_layers_agree_with_nnx(layer: str, shape: str, dtype: str) -> None:
    """No layers, empty batch dims, sizes of 1, a scalar: what nnx accepts without a second thought."""
    agree(LAYER.format(layer=layer, shape=shape, dtype=dtype))


PARAMETER = """\
import jax
import jax.numpy as jnp
from flax import nnx

layer = {layer}
out = {read} {arithmetic}
"""


@st.composite
def parameters(draw: st.DrawFn) -> str:
    """A built layer's parameter read as an attribute (`layer.kernel`, its `.value`, `[...]`), and
    used in arithmetic with an array that fits it or not."""
    kind = draw(st.sampled_from(["Linear", "Conv", "Embed", "LayerNorm", "RMSNorm", "BatchNorm"]))
    a, b = draw(sizes), draw(sizes)
    options = draw(st.sampled_from(["", ", param_dtype=jnp.bfloat16"]))
    if kind == "Linear":
        layer, names = f"nnx.Linear({a}, {b}{options}, {RNGS})", ["kernel", "bias"]
    elif kind == "Conv":
        groups = draw(st.sampled_from([1, 1, 2]))
        kernel = draw(st.sampled_from(["3", "(2, 3)", "(1, 2, 2)"]))
        layer, names = f"nnx.Conv({groups * a}, {groups * b}, {kernel}, feature_group_count={groups}{options}, {RNGS})", \
            ["kernel", "bias"]
    elif kind == "Embed":
        layer, names = f"nnx.Embed({a}, {b}{options}, {RNGS})", ["embedding"]
    else:
        layer = f"nnx.{kind}({a}{options}, {RNGS})"
        names = {"LayerNorm": ["scale", "bias"], "RMSNorm": ["scale"], "BatchNorm": ["scale", "bias", "mean", "var"]}[kind]
    read = f"layer.{draw(st.sampled_from(names))}{draw(st.sampled_from(['.value', '[...]', '.get_value()']))}"
    arithmetic = ""
    if draw(st.booleans()):
        arithmetic = f"+ jnp.ones({shape_literal(draw(st.lists(sizes, max_size=2)))})"
    return PARAMETER.format(layer=layer, read=read, arithmetic=arithmetic)


@given(parameters())
@cases(25)
def test_a_built_layer_s_parameters_are_its_attributes(program: str) -> None:
    agree(program, frozenset({"SC101"}))


@pytest.mark.parametrize(("layer", "read"), [
    (f"nnx.Linear(1, 1, {RNGS})", "layer.kernel.value"),
    (f"nnx.Conv(1, 1, 1, {RNGS})", "layer.kernel[...]"),
    (f"nnx.Embed(1, 1, {RNGS})", "layer.embedding.value"),
    (f"nnx.Embed(1, 1, {RNGS})", "layer.attend(jnp.zeros((1,)))"),
    (f"nnx.BatchNorm(1, {RNGS})", "layer.var.value"),
])
def test_trivial_parameters_agree_with_nnx(layer: str, read: str) -> None:
    """Sizes of 1: a parameter's shape and dtype, and `attend` over a one-row table."""
    agree(PARAMETER.format(layer=layer, read=read, arithmetic=""))


def test_a_parameter_a_layer_does_not_make_is_none() -> None:
    """`use_bias=False`: the attribute is None, never an array of the bias's shape."""
    checked = check(PARAMETER.format(layer=f"nnx.Linear(3, 4, use_bias=False, {RNGS})", read="layer.bias", arithmetic=""))
    assert checked.codes == () and checked.type is None
    agree(PARAMETER.format(layer=f"nnx.Linear(3, 4, {RNGS})", read="layer.kernel.value", arithmetic="@ jnp.ones(3)"),
          frozenset({"SC104"}))


@pytest.mark.parametrize("query", ["(4,)", "(2, 3, 4)", "(5,)", "()", "(2, 5)"])
@pytest.mark.parametrize("dtype", ["jnp.float32", "jnp.bfloat16", "jnp.int32"])
def test_attend_is_a_dot_with_the_table(query: str, dtype: str) -> None:
    """`embed.attend(query)`: logits over the table's rows from the query's features (weight tying)."""
    agree(PARAMETER.format(layer=f"nnx.Embed(7, 4, {RNGS})", read=f"layer.attend(jnp.zeros({query}, {dtype}))",
                           arithmetic=""), frozenset({"SC104"}))


@st.composite
def transposed_convolutions(draw: st.DrawFn) -> str:
    """nnx's and linen's ConvTranspose with drawn kernels, strides, paddings and dilations, on
    inputs of no, one or two batch dims, of the features they were built for or others."""
    spatial = draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(spatial)]
    options = ""
    if draw(st.booleans()):
        options += f", strides={draw(st.sampled_from([1, 2, 3]))}"
    if draw(st.booleans()):
        options += ", padding=" + draw(st.sampled_from(["'SAME'", "'VALID'", "1", "0", str(((1, 0),) * spatial)]))
    if draw(st.integers(0, 3)) == 0:
        options += f", kernel_dilation={draw(st.integers(1, 2))}"
    if draw(st.integers(0, 3)) == 0:
        options += ", transpose_kernel=True"
    if draw(st.integers(0, 3)) == 0:
        options += ", use_bias=False"
    options += draw(dtype_options)
    in_features, out_features = draw(sizes), draw(sizes)
    shape = [*draw(st.lists(sizes, max_size=2)), *(draw(st.integers(1, 6)) for _ in range(spatial)),
             _features(draw, in_features)]
    dtype = draw(dtypes)
    if draw(st.booleans()):
        return LAYER.format(layer=f"nnx.ConvTranspose({in_features}, {out_features}, {shape_literal(kernel)}{options}, {RNGS})",
                            shape=shape_literal(shape), dtype=dtype)
    return f"""\
import jax
import jax.numpy as jnp
import flax.linen as nn

layer = nn.ConvTranspose({out_features}, {shape_literal(kernel)}{options})
x = jnp.zeros({shape_literal(shape)}, {dtype})
out = layer.apply(layer.init(jax.random.key(0), x), x)
"""


@given(transposed_convolutions())
@cases(30)
def test_transposed_convolutions_agree_with_flax(program: str) -> None:
    agree(program, frozenset({"SC104"}))


@st.composite
def group_norms(draw: st.DrawFn) -> str:
    """A GroupNorm of drawn features and groups (a count or a size, dividing the features or
    not), options and dtypes, on inputs of rank 1 to 4 of its features or others."""
    features = draw(st.sampled_from([1, 2, 3, 4, 6, 8]))
    if draw(st.booleans()):
        groups = f"num_groups={draw(st.sampled_from([1, 2, 3, 4]))}"
    else:
        groups = f"num_groups=None, group_size={draw(st.sampled_from([1, 2, 3, 4]))}"
    options = draw(st.sampled_from(["", "", ", use_scale=False", ", use_scale=False, use_bias=False"]))
    dims = [*draw(st.lists(sizes, max_size=3)), _features(draw, features)]
    layer = f"nnx.GroupNorm({features}, {groups}{options}{draw(dtype_options)}, {RNGS})"
    return LAYER.format(layer=layer, shape=shape_literal(dims), dtype=draw(dtypes))


@given(group_norms())
@cases(25)
def test_group_norm_agrees_with_nnx(program: str) -> None:
    agree(program, frozenset({"SC105", "SC106"}))


CONTAINERS = """\
import jax.numpy as jnp
from flax import nnx


class Model(nnx.Module):
    def __init__(self, sizes, classes, *, rngs: nnx.Rngs):
        self.layers = nnx.List([nnx.Linear(a, b, rngs=rngs) for a, b in zip(sizes, sizes[1:])])
        self.heads = nnx.Dict({{"topic": nnx.Linear({head}, classes, rngs=rngs), "score": nnx.Linear(sizes[-1], 1, rngs=rngs)}})

    def __call__(self, x):
        for layer in self.layers:
            x = nnx.relu(layer(x))
        return self.heads["{head_name}"](x)


model = Model({sizes}, {classes}, rngs=nnx.Rngs(0))
out = {output}
"""


@st.composite
def module_containers(draw: st.DrawFn) -> str:
    """`nnx.List` and `nnx.Dict` of layers as a module's attributes (looped over, looked up by
    key) and at top level, their sizes chained or not."""
    sizes_ = draw(st.lists(sizes, min_size=2, max_size=4))
    head = sizes_[-1] if draw(st.integers(0, 3)) else draw(sizes)
    x = f"jnp.zeros({shape_literal([*draw(st.lists(sizes, max_size=2)), _features(draw, sizes_[0])])})"
    output = draw(st.sampled_from([
        "model({x})",
        "model.layers[0]({x})",
        "nnx.List([model.heads['score'], nnx.Linear(1, 2, rngs=nnx.Rngs(1))])[1](model.heads['score'](model({x})))",
        "nnx.Dict(first=model.layers[0])['first']({x})",
    ])).format(x=x)
    return CONTAINERS.format(head=head, head_name=draw(st.sampled_from(["topic", "score"])), sizes=sizes_,
                             classes=draw(sizes), output=output)


@given(module_containers())
@cases(25)
def test_nnx_containers_hold_their_layers_as_lists_and_dicts_do(program: str) -> None:
    agree(program, frozenset({"SC104"}))


@pytest.mark.parametrize("layers", ["nnx.List()", "nnx.List([])", "nnx.Dict()", f"nnx.List([nnx.Linear(1, 1, {RNGS})])",
                                    f"nnx.Dict(only=nnx.Linear(1, 1, {RNGS}))"])
def test_trivial_nnx_containers_agree_with_nnx(layers: str) -> None:
    """No layers (a Sequential of none returns its input), or one of size 1."""
    output = f"nnx.Sequential(*{layers}.values())(jnp.ones((1, 1)))" if "Dict" in layers else \
        f"nnx.Sequential(*{layers})(jnp.ones((1, 1)))"
    agree(CONTAINERS.format(head=1, head_name="score", sizes=[1, 1], classes=1, output=output))
