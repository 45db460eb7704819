"""flax.linen and equinox layers against the libraries themselves: each drawn program builds a
layer and calls it on `jnp.zeros` of a drawn shape. Where the library accepts, the checker
reports nothing and infers the output's shape and dtype; where it raises, the checker reports
it with the code that means it (`tests.differential.agree`)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.differential import agree, check, shape_literal

pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("equinox")

CASES = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))

FLAX = """\
import jax
import jax.numpy as jnp
import flax.linen as nn

class M(nn.Module):
    @nn.compact
    def __call__(self, x):
        return {layer}(x)

x = jnp.zeros({shape}, {dtype})
m = M()
out = m.apply(m.init(jax.random.key(0), x), x, rngs={{"dropout": jax.random.key(1)}})
"""

EQX = """\
import jax
import jax.numpy as jnp
import equinox as eqx

layer = {layer}
out = layer(jnp.zeros({shape}))
"""

sizes = st.integers(1, 6)
dtypes = st.sampled_from(["jnp.float32", "jnp.bfloat16", "jnp.int32"])


@st.composite
def flax_layers(draw: st.DrawFn) -> str:
    dims = draw(st.lists(sizes, min_size=0, max_size=4))
    kind = draw(st.sampled_from(["Dense", "DenseGeneral", "LayerNorm", "RMSNorm", "GroupNorm", "Dropout", "Attention",
                                 "Embed", "InstanceNorm", "PReLU"]))
    if kind == "Dense":
        layer = f"nn.Dense({draw(sizes)})"
    elif kind == "DenseGeneral":
        assume_rank = max(len(dims), 1)
        dims = dims or [draw(sizes)]
        axis = draw(st.integers(-assume_rank, assume_rank - 1))
        layer = f"nn.DenseGeneral(({draw(sizes)}, {draw(sizes)}), axis={axis})"
    elif kind == "GroupNorm":
        dims = [*dims, draw(st.sampled_from([2, 4, 6, 8]))]
        layer = f"nn.GroupNorm(num_groups={draw(st.integers(1, 4))})"
    elif kind == "Dropout":
        # One that drops an integer input is refused (lax.select of two dtypes).
        layer = f"nn.Dropout({draw(st.sampled_from(['0.0', '0.5', '1.0']))}, deterministic={draw(st.booleans())})"
    elif kind == "Embed":
        layer = f"nn.Embed({draw(sizes)}, {draw(sizes)})"
    elif kind == "Attention":
        dims = [*dims[:2], draw(st.sampled_from([4, 6, 8]))]
        name = draw(st.sampled_from(["MultiHeadDotProductAttention", "MultiHeadAttention"]))
        layer = f"nn.{name}(num_heads={draw(st.integers(1, 4))})"
    elif kind == "PReLU":
        layer = "nn.PReLU()"
    else:
        layer = f"nn.{kind}({draw(st.sampled_from(['', '', 'use_scale=False', 'use_scale=False, use_bias=False']))})"
        if kind == "RMSNorm":
            layer = layer.replace(", use_bias=False", "")
        dims = dims or [3]
    if kind not in ("Dropout", "PReLU") and draw(st.booleans()):
        # The computation's and the parameters' dtypes: flax promotes the input with the parameters'.
        option = draw(st.sampled_from(["dtype=jnp.bfloat16", "param_dtype=jnp.bfloat16", "param_dtype=jnp.float16",
                                       "dtype=jnp.float32, param_dtype=jnp.bfloat16"]))
        layer = layer[:-1] + (", " if not layer.endswith("()") else "") + option + ")"
    return FLAX.format(layer=layer, shape=shape_literal(dims), dtype=draw(dtypes))


@given(flax_layers())
@CASES
def test_flax_layers_agree_with_flax(program: str) -> None:
    agree(program, frozenset({"SC101", "SC105", "SC106", "SC301"}))


@st.composite
def flax_convs(draw: st.DrawFn) -> str:
    spatial = draw(st.integers(1, 2))
    channels = draw(sizes)
    dims = [*draw(st.lists(sizes, min_size=0, max_size=2)), *[draw(st.integers(1, 9)) for _ in range(spatial)], channels]
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(spatial))
    padding = draw(st.sampled_from(["'SAME'", "'VALID'", "1", "0"]))
    strides = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    features = draw(st.sampled_from([2, 3, 4, 6]))
    layer = f"nn.Conv({features}, {kernel!r}, strides={strides}, padding={padding}, feature_group_count={groups})"
    return FLAX.format(layer=layer, shape=shape_literal(dims), dtype="jnp.float32")


@given(flax_convs())
@CASES
def test_flax_conv_agrees_with_flax(program: str) -> None:
    """Groups that do not divide the input's features are asserted by flax before it convolves
    (SC105); features they do not divide, refused by lax (SC104)."""
    agree(program, frozenset({"SC104", "SC105", "SC002"}))


@pytest.mark.parametrize(("layer", "shape"), [
    ("nn.Conv(48, (3, 3), feature_group_count=32)", "(2, 5, 5, 48)"),  # 32 groups of 48 features
    ("nn.Conv(64, (3, 3), feature_group_count=16)", "(2, 5, 5, 48)"),
    ("nn.Conv(4, (3,), feature_group_count=2)", "(5, 3)"),  # no batch dim
    ("nn.Conv(1, (1,), feature_group_count=1)", "(1, 1, 1)"),
    ("nn.Conv(2, (1,), feature_group_count=2)", "(1, 2)"),  # a group per feature, sizes of 1
])
def test_conv_groups_agree_with_flax(layer: str, shape: str) -> None:
    agree(FLAX.format(layer=layer, shape=shape, dtype="jnp.float32"), frozenset({"SC105"}))


@st.composite
def eqx_layers(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["Linear", "MLP", "Conv2d", "LayerNorm"]))
    size, other = draw(sizes), draw(sizes)
    if kind == "Linear":
        return EQX.format(layer=f"eqx.nn.Linear({size}, {other}, key=jax.random.key(0))", shape=shape_literal([draw(sizes)]))
    if kind == "MLP":
        return EQX.format(layer=f"eqx.nn.MLP({size}, {other}, 5, 2, key=jax.random.key(0))",
                          shape=shape_literal([draw(sizes)]))
    if kind == "LayerNorm":
        return EQX.format(layer=f"eqx.nn.LayerNorm({size})", shape=shape_literal([draw(sizes)]))
    channels = draw(sizes)
    layer = (f"eqx.nn.Conv2d({size}, {other}, {draw(st.integers(1, 3))}, stride={draw(st.integers(1, 2))}, "
             f"padding={draw(st.sampled_from(['0', '1', repr('SAME')]))}, key=jax.random.key(0))")
    return EQX.format(layer=layer, shape=shape_literal([channels, draw(st.integers(3, 8)), draw(st.integers(3, 8))]))


@given(eqx_layers())
@CASES
def test_equinox_layers_agree_with_equinox(program: str) -> None:
    agree(program, frozenset({"SC103", "SC104"}))


def test_unknown_settings_are_never_reported() -> None:
    program = """\
    import os
    import jax.numpy as jnp
    import flax.linen as nn

    n = int(os.environ["GROUPS"])
    out = nn.GroupNorm(num_groups=n)(jnp.zeros((2, 8)))
    """
    checked = check(program)
    assert checked.codes == () and checked.type is not None and checked.type.dims == (2, 8)


def test_a_wrong_group_count_is_reported_where_the_layer_is_called() -> None:
    program = """    import jax.numpy as jnp
    import flax.linen as nn

    def f(n, x):
        return nn.GroupNorm(num_groups=n)(x)

    out = f(3, jnp.zeros((2, 8)))
    """
    assert check(program).codes == ("SC105",)


POOL = """\
import jax.numpy as jnp
import flax.linen as nn

out = nn.{kind}(jnp.zeros({shape}, {dtype}), {window}{strides}{padding})
"""


@st.composite
def flax_pools(draw: st.DrawFn) -> str:
    spatial = draw(st.integers(1, 2))
    dims = [*draw(st.lists(sizes, min_size=0, max_size=2)), *[draw(st.integers(1, 7)) for _ in range(spatial)], draw(sizes)]
    window = tuple(draw(st.integers(1, 3)) for _ in range(spatial))
    strides = draw(st.one_of(st.just(""), st.tuples(*[st.integers(1, 3)] * spatial).map(lambda s: f", strides={s!r}")))
    padding = draw(st.sampled_from(["", ", padding='SAME'", ", padding='VALID'", ", padding='same'",
                                    ", padding=" + repr(tuple((1, 0) for _ in range(spatial)))]))
    kind = draw(st.sampled_from(["max_pool", "avg_pool", "pooling.min_pool"]))
    dtype = draw(st.sampled_from(["jnp.float32", "jnp.bfloat16"]))
    return POOL.format(kind=kind, shape=shape_literal(dims), dtype=dtype, window=repr(window), strides=strides,
                       padding=padding)


@given(flax_pools())
@CASES
def test_flax_pooling_agrees_with_flax(program: str) -> None:
    agree(program)


@pytest.mark.parametrize("program", [
    POOL.format(kind="max_pool", shape="(1, 1)", dtype="jnp.float32", window="(1,)", strides="", padding=""),
    POOL.format(kind="avg_pool", shape="(1, 1, 1, 1)", dtype="jnp.float32", window="(1, 1)", strides="",
                padding=", padding='SAME'"),
    POOL.format(kind="max_pool", shape="(2, 0, 3)", dtype="jnp.float32", window="(1,)", strides="", padding=""),
])
def test_trivial_pools_agree_with_flax(program: str) -> None:
    """Windows of 1, dims of 1, an empty spatial dim: pooled to themselves."""
    agree(program)


@pytest.mark.parametrize(("layer", "shape"), [
    ("nn.ConvTranspose(1, (1,))", "(1, 1)"),  # no batch dim, sizes of 1
    ("nn.ConvTranspose(2, (1, 1), strides=2)", "(0, 1, 1, 3)"),  # an empty batch
    ("nn.ConvTranspose(1, (2,), padding='VALID')", "(1, 1, 1)"),  # a kernel wider than the input
])
def test_trivial_transposed_convolutions_agree_with_flax(layer: str, shape: str) -> None:
    agree(FLAX.format(layer=layer, shape=shape, dtype="jnp.float32"))


EINSUM_SPECS = [("bi,ij->bj", 2, 2), ("...i,ij->...j", None, 2), ("bti,ihd->bthd", 3, 3), ("bi,ij->j", 2, 2),
                ("bij,jk->bik", 3, 2), ("bi,ij", 2, 2), ("bi,ij,jk->bk", 2, 2), ("ab,b->a", 2, 1)]


@st.composite
def einsum_layers(draw: st.DrawFn) -> str:
    """flax's `Einsum` layers, linen's and nnx's: a drawn spec (some malformed), a kernel of the
    spec's rank (or not) and an input whose contracted sizes match the kernel's (or not); nnx's
    with a bias of the kept kernel dims (or of another size)."""
    spec, x_rank, k_rank = draw(st.sampled_from(EINSUM_SPECS))
    kernel = [draw(sizes) for _ in range(k_rank if draw(st.integers(0, 5)) else draw(st.integers(1, 3)))]
    rank = x_rank if x_rank is not None else draw(st.integers(1, 3))
    x = [draw(sizes) for _ in range(rank)]
    if kernel and draw(st.integers(0, 3)):
        x[-1] = kernel[0]  # the contracted letter, mostly
    dtype = draw(dtypes)
    if draw(st.booleans()):
        layer = f"nn.Einsum({shape_literal(kernel)}, {spec!r})"
        return FLAX.format(layer=layer, shape=shape_literal(x), dtype=dtype)
    kept = [size for letter, size in zip(spec.split(",")[1].split("->")[0], kernel, strict=False)
            if "->" in spec and letter in spec.split("->")[1]]
    bias = draw(st.sampled_from(["", f", {shape_literal(kept)}", f", ({draw(sizes)},)"]))
    return NNX_LAYER.format(layer=f"nnx.Einsum({spec!r}, {shape_literal(kernel)}{bias}, rngs=nnx.Rngs(0))",
                            shape=shape_literal(x), dtype=dtype)


NNX_LAYER = """\
import jax
import jax.numpy as jnp
from flax import nnx

layer = {layer}
out = layer(jnp.zeros({shape}, {dtype}))
"""


@given(einsum_layers())
@CASES
def test_einsum_layers_agree_with_flax(program: str) -> None:
    agree(program, frozenset({"SC003", "SC101", "SC103", "SC104", "SC105", "SC106"}))


TIED = """\
import jax
import jax.numpy as jnp
import flax.linen as nn


class Tied(nn.Module):
    def setup(self):
        self.embed = nn.Embed({rows}, {features})

    def __call__(self, ids):
        return self.embed(ids)

    def decode(self, h):
        return self.embed.attend(h)


class Compact(nn.Module):
    @nn.compact
    def __call__(self, ids, h):
        embed = nn.Embed({rows}, {features})
        embed(ids)
        return embed.attend(h)


ids = jnp.zeros((2, 3), jnp.int32)
h = jnp.zeros({query}, {dtype})
model, layer = {model}(), nn.Embed({rows}, {features})
out = {output}
"""

_ATTENDS = {
    "Tied": ["model.apply(model.init(jax.random.key(0), ids), h, method=Tied.decode)",
             "model.apply(model.init(jax.random.key(0), h, method='decode'), h, method='decode')"],
    "Compact": ["model.apply(model.init(jax.random.key(0), ids, h), ids, h)"],
    "nn.Embed": ["layer.apply(layer.init(jax.random.key(0), ids), h, method='attend')",
                 "layer.apply(layer.init(jax.random.key(0), ids), h, method=nn.Embed.attend)"],
}


@st.composite
def linen_attends(draw: st.DrawFn) -> str:
    """linen's `embed.attend(query)` (`jnp.dot(query, embedding.T)`), in `setup` (through
    `apply(..., method=)`), under `@nn.compact`, and of a built layer, on queries of the table's
    features or others."""
    rows, features = draw(sizes), draw(sizes)
    query = [*draw(st.lists(sizes, max_size=2)), features if draw(st.integers(0, 2)) else draw(sizes)]
    model = draw(st.sampled_from(sorted(_ATTENDS)))
    return TIED.format(rows=rows, features=features, query=shape_literal(query), dtype=draw(dtypes),
                       model=model if model != "nn.Embed" else "Tied", output=draw(st.sampled_from(_ATTENDS[model])))


@given(linen_attends())
@CASES
def test_linen_attend_agrees_with_flax(program: str) -> None:
    agree(program, frozenset({"SC104"}))


@pytest.mark.parametrize("query", ["(1,)", "(1, 1)", "()"])
def test_trivial_linen_attends_agree_with_flax(query: str) -> None:
    """A one-row table of one feature, a scalar query."""
    for output in [*_ATTENDS["Tied"], *_ATTENDS["nn.Embed"]]:
        agree(TIED.format(rows=1, features=1, query=query, dtype="jnp.float32", model="Tied", output=output))
