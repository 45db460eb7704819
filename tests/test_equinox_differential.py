"""equinox's containers and attention against equinox itself: `eqx.nn.Sequential` of linear
layers, activations wrapped in `eqx.nn.Lambda`, `Identity` and `Dropout`; and
`eqx.nn.MultiheadAttention`, called on one example or under `jax.vmap`.

equinox layers are built with their sizes and take one unbatched example; a layer given other
features fails in JAX (a contraction, SC104), an attention given a batch or a mask of another
shape in equinox (a ValueError, SC103), keys and values of different lengths SC104, and an empty
sequence in the reshape to heads (SC105). The checker must report exactly the programs equinox
refuses and infer the output's shape and dtype of the others (`tests.differential.agree`).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases, check, shape_literal

pytest.importorskip("jax")
pytest.importorskip("equinox")

PROGRAM = """\
import jax
import jax.numpy as jnp
import equinox as eqx

keys = jax.random.split(jax.random.key(0), 8)
model = {model}
{call}
"""

SEQUENTIAL = """\
import jax
import jax.numpy as jnp
import equinox as eqx

keys = jax.random.split(jax.random.key(0), 8)
model = eqx.nn.Sequential([{layers}])
x = jnp.zeros({shape}, {dtype})
out = {call}
"""

sizes = st.integers(1, 5)
dtypes = st.sampled_from(["jnp.float32", "jnp.bfloat16", "jnp.int32"])


@st.composite
def sequentials(draw: st.DrawFn) -> str:
    """Linear layers of drawn sizes (some chained right, some not), with activations, identities
    and dropouts between them; called on one example or vmapped over a batch."""
    features = draw(sizes)
    width = features
    layers: list[str] = []
    for index in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["Linear", "Linear", "relu", "Identity", "Dropout", "LayerNorm"]))
        if kind == "Linear":
            given = width if draw(st.integers(0, 3)) else draw(sizes)
            width = draw(sizes)
            layers.append(f"eqx.nn.Linear({given}, {width}, key=keys[{index}])")
        elif kind == "relu":
            layers.append("eqx.nn.Lambda(jax.nn.relu)")
        elif kind == "Identity":
            layers.append("eqx.nn.Identity()")
        elif kind == "Dropout":
            layers.append(draw(st.sampled_from(["eqx.nn.Dropout(0.5, inference=True)", "eqx.nn.Dropout(0.0)"])))
        else:
            layers.append(f"eqx.nn.LayerNorm({width if draw(st.integers(0, 3)) else draw(sizes)})")
    batched = draw(st.booleans())
    shape = [draw(sizes), features] if batched else [features]
    call = "jax.vmap(model)(x)" if batched else "model(x)"
    return SEQUENTIAL.format(layers=", ".join(layers), shape=shape_literal(shape), dtype=draw(dtypes), call=call)


@given(sequentials())
@cases(40)
def test_sequential_agrees_with_equinox(program: str) -> None:
    agree(program, frozenset({"SC103", "SC104"}))


@st.composite
def dropouts(draw: st.DrawFn) -> str:
    """A dropout that drops (with a key) or not (inference, p=0): an integer input comes out a
    float where it drops."""
    layer = draw(st.sampled_from(["eqx.nn.Dropout()", "eqx.nn.Dropout(0.25)", "eqx.nn.Dropout(0.0)",
                                  "eqx.nn.Dropout(inference=True)"]))
    options = draw(st.sampled_from(["key=keys[0]", "key=keys[0], inference=False", "inference=True"]))
    dims = draw(st.lists(sizes, max_size=3))
    return PROGRAM.format(model=layer, call=f"out = model(jnp.zeros({shape_literal(dims)}, {draw(dtypes)}), {options})")


@given(dropouts())
@cases(20)
def test_dropout_agrees_with_equinox(program: str) -> None:
    agree(program, frozenset())


@st.composite
def attentions(draw: st.DrawFn) -> str:
    """An attention built with drawn sizes (defaults or given), on queries, keys and values of
    drawn shapes: sometimes batched, of other features, of key and value lengths that differ,
    empty, with a mask of the right shape or not; in the inputs' dtype or another."""
    heads, query_size = draw(st.integers(1, 3)), draw(sizes)
    options = ""
    key_size = value_size = query_size
    if draw(st.booleans()):
        key_size = draw(sizes)
        options += f", key_size={key_size}"
    if draw(st.booleans()):
        value_size = draw(sizes)
        options += f", value_size={value_size}"
    for name in ("output_size", "qk_size", "vo_size"):
        if draw(st.integers(0, 3)) == 0:
            options += f", {name}={draw(sizes)}"
    if draw(st.integers(0, 3)) == 0:
        options += f", dtype={draw(st.sampled_from(['jnp.float32', 'jnp.bfloat16']))}"
    length, kv_length = draw(st.integers(1, 4)), draw(st.integers(1, 4))

    def features(size: int) -> int:
        return size if draw(st.integers(0, 4)) else draw(sizes)

    shapes = [[length, features(query_size)], [kv_length, features(key_size)],
              [kv_length if draw(st.integers(0, 4)) else draw(st.integers(1, 4)), features(value_size)]]
    if draw(st.integers(0, 7)) == 0:
        shapes[draw(st.integers(0, 2))].insert(0, draw(sizes))  # a batch: equinox takes one example
    if draw(st.integers(0, 7)) == 0:
        shapes[draw(st.integers(0, 2))][0] = 0
    mask = ""
    if draw(st.booleans()):
        dims = draw(st.sampled_from([[length, kv_length], [heads, length, kv_length], [length, kv_length, 1],
                                     [kv_length, length], [1, kv_length]]))
        mask = f", mask=jnp.ones({shape_literal(dims)}, bool)"
    dtype = draw(st.sampled_from(["jnp.float32", "jnp.float32", "jnp.bfloat16"]))
    arrays = ", ".join(f"jnp.zeros({shape_literal(shape)}, {dtype})" for shape in shapes)
    model = f"eqx.nn.MultiheadAttention({heads}, {query_size}{options}, key=keys[0])"
    return PROGRAM.format(model=model, call=f"out = model({arrays}{mask})")


@given(attentions())
@cases(40)
def test_attention_agrees_with_equinox(program: str) -> None:
    agree(program, frozenset({"SC103", "SC104", "SC105"}))


def test_batched_attention_is_vmapped() -> None:
    """The usual way to batch it: vmap over the batch dim, the mask broadcast to each example."""
    agree(PROGRAM.format(model="eqx.nn.MultiheadAttention(2, 8, key=keys[0])", call="""\
x = jnp.zeros((4, 5, 8))
mask = jnp.tril(jnp.ones((5, 5), bool))
out = jax.vmap(lambda x: model(x, x, x, mask=mask))(x)"""))


@pytest.mark.parametrize(("model", "call"), [
    ("eqx.nn.Sequential([eqx.nn.Identity()])", "out = model(jnp.zeros(()))"),  # a scalar through an identity
    ("eqx.nn.Sequential([eqx.nn.Lambda(jnp.sum)])", "out = model(jnp.zeros((3, 2)))"),  # a function's own shape
    ("eqx.nn.Sequential([eqx.nn.Linear(1, 1, key=keys[0])])", "out = model(jnp.zeros((1,)))"),  # sizes of 1
    ("eqx.nn.Sequential([eqx.nn.Linear(3, 2, key=keys[0])])", "out = model(jnp.zeros((2, 3)))"),  # a batch, unvmapped
    ("eqx.nn.MultiheadAttention(1, 1, key=keys[0])", "out = model(*[jnp.zeros((1, 1))] * 3)"),  # one of everything
    ("eqx.nn.MultiheadAttention(3, 2, key=keys[0])", "out = model(*[jnp.zeros((4, 2))] * 3)"),  # more heads than features
    ("eqx.nn.MultiheadAttention(2, 4, key=keys[0])", "out = model(*[jnp.zeros((4,))] * 3)"),  # no length axis
    ("eqx.nn.Linear(1, 1, key=keys[0])", "out = model.weight"),  # a parameter of sizes 1
    ("eqx.nn.Conv1d(1, 1, 1, key=keys[0])", "out = model.bias"),
    ("eqx.nn.Dropout(0.0)", "out = model(jnp.zeros((), jnp.int32))"),  # p=0 drops nothing: the dtype stays
])
def test_trivial_cases_agree_with_equinox(model: str, call: str) -> None:
    agree(PROGRAM.format(model=model, call=call), frozenset({"SC103", "SC104", "SC105"}))


@st.composite
def parameters(draw: st.DrawFn) -> str:
    """A built layer's array read as an attribute (`layer.weight`, `layer.bias`), and used in
    arithmetic with an array that fits it or not."""
    kind = draw(st.sampled_from(["Linear", "Conv", "Embedding", "LayerNorm"]))
    a, b = draw(sizes), draw(sizes)
    dtype = draw(st.sampled_from(["", ", dtype=jnp.bfloat16"]))
    names = ["weight", "bias"]
    if kind == "Linear":
        model = f"eqx.nn.Linear({a}, {b}{dtype}, key=keys[0])"
    elif kind == "Conv":
        spatial, groups = draw(st.integers(1, 3)), draw(st.sampled_from([1, 1, 2]))
        model = f"eqx.nn.Conv{spatial}d({groups * a}, {groups * b}, {draw(st.integers(1, 3))}, groups={groups}{dtype}, key=keys[0])"
    elif kind == "Embedding":
        model, names = f"eqx.nn.Embedding({a}, {b}{dtype}, key=keys[0])", ["weight"]
    else:
        model = f"eqx.nn.LayerNorm({shape_literal(draw(st.lists(sizes, min_size=1, max_size=2)))}{dtype})"
    arithmetic = f" + jnp.ones({shape_literal(draw(st.lists(sizes, max_size=2)))})" if draw(st.booleans()) else ""
    return PROGRAM.format(model=model, call=f"out = model.{draw(st.sampled_from(names))}{arithmetic}")


@given(parameters())
@cases(25)
def test_a_built_layer_s_arrays_are_its_attributes(program: str) -> None:
    agree(program, frozenset({"SC101"}))


def test_a_missing_bias_is_none() -> None:
    checked = check(PROGRAM.format(model="eqx.nn.Linear(3, 4, use_bias=False, key=keys[0])", call="out = model.bias"))
    assert checked.codes == () and checked.type is None
    agree(PROGRAM.format(model="eqx.nn.Linear(3, 4, key=keys[0])", call="out = model.weight @ jnp.ones(4)"),
          frozenset({"SC104"}))


@st.composite
def typed_layers(draw: st.DrawFn) -> str:
    """equinox layers whose weights are of a drawn dtype, on inputs of a drawn dtype: a linear
    layer's matmul promotes the two, a convolution refuses two dtypes (lax converts nothing)."""
    kind = draw(st.sampled_from(["Linear", "MLP", "Conv1d", "Conv2d", "LayerNorm"]))
    a, b = draw(sizes), draw(sizes)
    dtype = draw(st.sampled_from(["", ", dtype=jnp.bfloat16", ", dtype=jnp.float16", ", dtype=jnp.float32"]))
    if kind == "Linear":
        model, shape = f"eqx.nn.Linear({a}, {b}{dtype}, key=keys[0])", [a]
    elif kind == "MLP":
        model, shape = f"eqx.nn.MLP({a}, {b}, 4, 1{dtype}, key=keys[0])", [a]
    elif kind == "LayerNorm":
        model, shape = f"eqx.nn.LayerNorm({a}{dtype})", [a]
    else:
        spatial = int(kind[4])
        model, shape = f"eqx.nn.{kind}({a}, {b}, 2{dtype}, key=keys[0])", [a, *([draw(st.integers(2, 5))] * spatial)]
    return PROGRAM.format(model=model, call=f"out = model(jnp.zeros({shape_literal(shape)}, {draw(dtypes)}))")


@given(typed_layers())
@cases(25)
def test_layer_dtypes_agree_with_equinox(program: str) -> None:
    agree(program, frozenset({"SC301"}))


@st.composite
def pools(draw: st.DrawFn) -> str:
    """equinox's max and average pools of drawn windows, strides and paddings (a pair per dim, or
    one size), `use_ceil` or not, on one example of a drawn rank, or vmapped over a batch."""
    spatial = draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["Max", "Avg"]))
    kernel = draw(st.integers(1, 4))
    options = f"{kernel}"
    if draw(st.booleans()):
        options += f", stride={draw(st.integers(1, 3))}"
    if draw(st.booleans()):
        options += f", padding={draw(st.integers(0, 3))}"
    elif draw(st.booleans()):
        pairs = ", ".join(f"({draw(st.integers(0, 2))}, {draw(st.integers(0, 2))})" for _ in range(spatial))
        options += f", padding=({pairs},)"
    if draw(st.booleans()):
        options += ", use_ceil=True"
    rank = spatial + 1 if draw(st.integers(0, 5)) else draw(st.integers(1, 4))
    shape = [draw(sizes) for _ in range(rank)]
    batched = draw(st.booleans())
    call = "jax.vmap(model)(x)" if batched else "model(x)"
    dims = [2, *shape] if batched else shape
    dtype = draw(st.sampled_from(["jnp.float32", "jnp.bfloat16", "jnp.int32", "jnp.bool_"]))
    return PROGRAM.format(model=f"eqx.nn.{kind}Pool{spatial}d({options})",
                          call=f"x = jnp.zeros({shape_literal(dims)}, {dtype})\nout = {call}")


@given(pools())
@cases(40)
def test_pools_agree_with_equinox(program: str) -> None:
    agree(program, frozenset({"SC103", "SC107", "SC301"}))


@st.composite
def norms(draw: st.DrawFn) -> str:
    """equinox's LayerNorm and RMSNorm (built for a shape, the input's or another) and GroupNorm
    (groups that divide the channels or not, affine or not), on one example or vmapped, with a
    state passed through or not."""
    kind = draw(st.sampled_from(["LayerNorm", "RMSNorm", "GroupNorm"]))
    shape = draw(st.lists(sizes, min_size=0, max_size=3))
    if kind == "GroupNorm":
        groups = draw(st.integers(1, 3))
        channels = shape[0] if shape and draw(st.integers(0, 3)) else draw(sizes)
        affine = draw(st.sampled_from(["", ", channelwise_affine=False"]))
        model = f"eqx.nn.GroupNorm({groups}, {'None' if affine else channels}{affine})"
    else:
        built = shape if draw(st.integers(0, 3)) else draw(st.lists(sizes, min_size=1, max_size=2))
        model = f"eqx.nn.{kind}({shape_literal(built)}{draw(st.sampled_from(['', ', use_bias=False']))})"
    batched = draw(st.booleans())
    dims = [2, *shape] if batched else shape
    stateful = draw(st.booleans())
    inner = "model(x, None)[0]" if stateful else "model(x)"
    call = f"jax.vmap(lambda x: {inner})(x)" if batched else inner
    return PROGRAM.format(model=model, call=f"x = jnp.zeros({shape_literal(dims)}, {draw(dtypes)})\nout = {call}")


@given(norms())
@cases(40)
def test_norms_agree_with_equinox(program: str) -> None:
    agree(program, frozenset({"SC101", "SC103", "SC105", "SC106"}))


BATCH_NORM = """\
import jax
import jax.numpy as jnp
import equinox as eqx

model, state = eqx.nn.make_with_state(eqx.nn.BatchNorm)({size}, "batch"{options})
x = jnp.zeros({shape}, {dtype})
out = jax.vmap(lambda x, s: model(x, s{call_options}), {vmap_options}in_axes=(0, None), out_axes=(0, None))(x, state)[0]
"""


@st.composite
def batch_norms(draw: st.DrawFn) -> str:
    """`eqx.nn.BatchNorm` made with its state, vmapped over a batch with its axis name, another or
    none; in training or inference, affine or not, in each mode; on inputs of its channels or
    others."""
    size = draw(sizes)
    channels = size if draw(st.integers(0, 2)) else draw(sizes)
    rest = draw(st.lists(sizes, min_size=0, max_size=2))
    shape = [2] if draw(st.integers(0, 9)) == 9 else [2, channels, *rest]
    options = "".join(draw(st.sampled_from(option)) for option in (
        ["", ", channelwise_affine=False"], ["", ", inference=True"], ["", ", mode='ema'", ", mode='batch'"],
        ["", "", ", dtype=jnp.bfloat16"]))
    vmap_options = draw(st.sampled_from(['axis_name="batch", ', 'axis_name="batch", ', 'axis_name="other", ', ""]))
    call_options = draw(st.sampled_from(["", "", ", inference=True", ", inference=False"]))
    return BATCH_NORM.format(size=size, options=options, shape=shape_literal(shape), dtype=draw(dtypes),
                             vmap_options=vmap_options, call_options=call_options)


@given(batch_norms())
@cases(40)
def test_batch_norms_agree_with_equinox(program: str) -> None:
    agree(program, frozenset({"SC103", "SC106", "SC202", "SC301"}))


@st.composite
def unvmapped_batches(draw: st.DrawFn) -> str:
    """A Linear or MLP of one example called on a batch by mistake, `(in_features, n)`: `weight @ x`
    keeps `n` last, and a bias then fits only where `n` is 1 or the layer's width (SC101);
    without a bias equinox returns `(out_features, n)`."""
    a, b, n = draw(sizes), draw(sizes), draw(st.sampled_from([1, 2, 3, 5]))
    bias = draw(st.sampled_from(["", ", use_bias=False"]))
    if draw(st.booleans()):
        model = f"eqx.nn.Linear({a}, {b}{bias}, key=keys[0])"
    else:
        final = draw(st.sampled_from(["", ", use_final_bias=False"]))
        model = f"eqx.nn.MLP({a}, {b}, {draw(sizes)}, {draw(st.integers(0, 2))}{bias}{final}, key=keys[0])"
    return PROGRAM.format(model=model, call=f"out = model(jnp.zeros({shape_literal([a, n])}))")


@given(unvmapped_batches())
@cases(40)
def test_a_batch_given_to_a_layer_of_one_example_agrees_with_equinox(program: str) -> None:
    agree(program, frozenset({"SC101", "SC104"}))


@st.composite
def transposed_convolutions(draw: st.DrawFn) -> str:
    """equinox's transposed convolutions of drawn kernels, strides, output paddings, dilations,
    paddings (an int, a pair per dim, 'SAME', 'SAME_LOWER', 'VALID') and groups, on inputs whose
    channels match or not, one example or vmapped over a batch."""
    spatial = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 1, 2]))
    a, b = groups * draw(st.integers(1, 3)), groups * draw(st.integers(1, 3))
    stride = draw(st.integers(1, 3))
    options = f", stride={stride}, output_padding={draw(st.integers(0, stride - 1))}"
    if draw(st.booleans()):
        options += f", dilation={draw(st.integers(1, 2))}"
    padding = draw(st.sampled_from(["0", "1", "'SAME'", "'SAME_LOWER'", "'VALID'", "pairs"]))
    if padding == "pairs":
        padding = "(" + "".join(f"({draw(st.integers(0, 2))}, {draw(st.integers(0, 2))}), "
                                for _ in range(spatial)) + ")"
    options += f", padding={padding}, groups={groups}"
    model = f"eqx.nn.ConvTranspose{spatial}d({a}, {b}, {draw(st.integers(1, 3))}{options}, key=keys[0])"
    channels = a if draw(st.integers(0, 4)) else draw(st.integers(1, 6))
    shape = [channels, *(draw(st.integers(1, 5)) for _ in range(spatial))]
    batched = draw(st.booleans())
    call = "jax.vmap(model)(x)" if batched else "model(x)"
    dims = [2, *shape] if batched else shape
    return PROGRAM.format(model=model, call=f"x = jnp.zeros({shape_literal(dims)})\nout = {call}\nout = out + 0")


@given(transposed_convolutions())
@cases(60)
def test_transposed_convolutions_agree_with_equinox(program: str) -> None:
    # SC002: a padding that removes more than the (dilated) input holds, as lax's own rule says.
    agree(program, frozenset({"SC002", "SC104", "SC105", "SC107"}))


def test_a_transposed_convolution_upsamples_and_checks_its_channels() -> None:
    agree(PROGRAM.format(model="eqx.nn.ConvTranspose2d(32, 16, 2, stride=2, key=keys[0])",
                         call="out = model(jnp.ones((32, 8, 8)))"))
    agree(PROGRAM.format(model="eqx.nn.ConvTranspose2d(32, 16, 2, stride=2, key=keys[0])",
                         call="out = model(jnp.ones((24, 8, 8)))"), frozenset({"SC104", "SC105"}))
