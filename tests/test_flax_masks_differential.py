"""flax's attention masks against flax itself: each drawn program calls an attention layer
(nnx's `MultiHeadAttention`, linen's `MultiHeadDotProductAttention` and `SelfAttention`) or
function (`dot_product_attention` of both) with a mask of a drawn shape (every rank, each dim
the weights' `(batch..., heads, q_length, kv_length)`, 1 or another size), or one made by
`make_attention_mask`/`make_causal_mask`. Where flax accepts, the checker reports nothing and
infers the output's shape; where it raises, the checker reports it (`tests.differential.agree`).

nnx without dropout runs `jax.nn.dot_product_attention` (no new leading dims; several batch
dims flattened first), linen and nnx with dropout mask by `jnp.where` (NumPy broadcasting). A
mask that widens the weights under `jnp.where` widens flax's output, which the checker does
not follow: the drawn masks of those paths never do.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases, check, shape_literal

pytest.importorskip("jax")
pytest.importorskip("flax.nnx")

CODES = frozenset({"SC101", "SC104", "SC106"})
RNGS = "rngs=nnx.Rngs(0)"

NNX_LAYER = """\
import jax.numpy as jnp
from flax import nnx

layer = nnx.MultiHeadAttention({heads}, {features}, decode=False{options}, {RNGS})
query = jnp.zeros({query})
out = layer({arguments}, mask={mask}{call_options})
"""

LINEN_LAYER = """\
import jax
import jax.numpy as jnp
import flax.linen as nn

layer = nn.{kind}(num_heads={heads})
query = jnp.zeros({query})
variables = layer.init(jax.random.key(0), {arguments}, mask={mask})
out = layer.apply(variables, {arguments}, mask={mask})
"""

FUNCTION = """\
import jax.numpy as jnp
{module}

out = {name}.dot_product_attention(jnp.zeros({query}), jnp.zeros({key}), jnp.zeros({value}), mask={mask}{options})
"""

sizes = st.integers(1, 4)


def _mask(draw: st.DrawFn, weights: list[int], *, widens: bool) -> list[int]:
    """A mask for weights of these dims: each dim the weights', 1, or (sometimes) another size;
    fewer leading dims, or (where it may `widens`) more. Where it may not, another size stands
    only where the weights' is not 1 (else `jnp.where` would widen them, as JAX accepts)."""
    dims = [draw(st.sampled_from([size, size, 1])) for size in weights]
    if draw(st.integers(0, 2)) == 0:
        places = [index for index, size in enumerate(weights) if widens or size != 1]
        if places:
            place = draw(st.sampled_from(places))
            dims[place] = draw(st.integers(2, 5).filter(lambda size: size != weights[place]))
    dims = dims[draw(st.integers(0, len(dims))):] if draw(st.booleans()) else dims
    if widens and draw(st.integers(0, 5)) == 0:
        dims = [draw(st.sampled_from([1, 2])), *dims]
    return dims


@st.composite
def nnx_layers(draw: st.DrawFn) -> str:
    """nnx's attention, self or cross, over 0 to 2 batch dims: without dropout (jax.nn's rule,
    any mask, causal or not), or with dropout or sown weights (`jnp.where`, masks that do not
    widen)."""
    heads, depth = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    features = heads * depth
    batch = draw(st.lists(sizes, max_size=2))
    target = draw(sizes)
    source = draw(sizes) if draw(st.booleans()) else None
    options, call_options = "", ""
    fused = draw(st.integers(0, 2)) > 0
    if fused and draw(st.integers(0, 3)) == 0:
        call_options = ", is_causal=True"  # jax.nn's own causal mask, the given one checked as without
    if not fused:
        if draw(st.booleans()):
            options = ", dropout_rate=0.1"
            call_options = ", deterministic=True"
        else:
            call_options = ", sow_weights=True"
    weights = [*batch, heads, target, source if source is not None else target]
    mask = _mask(draw, weights, widens=fused)
    arguments = "query" if source is None else f"query, jnp.ones({shape_literal([*batch, source, features])})"
    return NNX_LAYER.format(heads=heads, features=features, options=options, RNGS=RNGS,
                            query=shape_literal([*batch, target, features]), arguments=arguments,
                            mask=f"jnp.ones({shape_literal(mask)}, bool)", call_options=call_options)


@given(nnx_layers())
@cases(40)
def test_nnx_attention_masks_agree_with_nnx(program: str) -> None:
    agree(program, CODES)


@st.composite
def linen_layers(draw: st.DrawFn) -> str:
    """linen's attention layers, which mask by `jnp.where`: masks that do not widen the weights."""
    kind = draw(st.sampled_from(["MultiHeadDotProductAttention", "MultiHeadAttention", "SelfAttention"]))
    heads = draw(st.integers(1, 3))
    batch = draw(st.lists(sizes, max_size=2))
    target = draw(sizes)
    source = draw(sizes) if kind != "SelfAttention" and draw(st.booleans()) else None
    features = heads * draw(st.integers(1, 2))
    weights = [*batch, heads, target, source if source is not None else target]
    mask = _mask(draw, weights, widens=False)
    arguments = "query" if source is None else f"query, jnp.ones({shape_literal([*batch, source, features])})"
    return LINEN_LAYER.format(kind=kind, heads=heads, query=shape_literal([*batch, target, features]),
                              arguments=arguments, mask=f"jnp.ones({shape_literal(mask)}, bool)")


@given(linen_layers())
@cases(30)
def test_linen_attention_masks_agree_with_flax(program: str) -> None:
    agree(program, CODES)


@st.composite
def functions(draw: st.DrawFn) -> str:
    """`dot_product_attention(q, k, v, mask=...)` of nnx (jax.nn's rule without dropout) and
    linen (`jnp.where`) on `(batch..., length, heads, depth)`, the key's or value's shape
    sometimes off (another length, heads or depth)."""
    nnx = draw(st.booleans())
    batch = draw(st.lists(sizes, max_size=2))
    heads, depth, target, source = draw(sizes), draw(sizes), draw(sizes), draw(sizes)
    key = [*batch, source, heads, depth]
    value = list(key)
    if draw(st.integers(0, 4)) == 0:
        shape = draw(st.sampled_from([key, value]))
        shape[draw(st.integers(-3, -1))] = draw(sizes)
    mask = _mask(draw, [*batch, heads, target, source], widens=nnx)
    options = ""
    if nnx and draw(st.integers(0, 3)) == 0:
        options = ", dropout_rate=0.1, deterministic=True"
        mask = _mask(draw, [*batch, heads, target, source], widens=False)
    return FUNCTION.format(module="from flax import nnx" if nnx else "import flax.linen as nn",
                           name="nnx" if nnx else "nn", query=shape_literal([*batch, target, heads, depth]),
                           key=shape_literal(key), value=shape_literal(value),
                           mask=f"jnp.ones({shape_literal(mask)}, bool)", options=options)


@given(functions())
@cases(40)
def test_attention_functions_agree_with_flax(program: str) -> None:
    agree(program, CODES)


MADE = """\
import jax.numpy as jnp
{module}

out = {name}.{made}
"""


@st.composite
def made_masks(draw: st.DrawFn) -> str:
    """`make_attention_mask(query_input, key_input)` of drawn batch dims (broadcasting or not),
    `make_causal_mask(x)`, with `extra_batch_dims`, a dtype and a comparison."""
    nnx = draw(st.booleans())
    options = ""
    if draw(st.booleans()):
        options += f", extra_batch_dims={draw(st.integers(0, 2))}"
    if draw(st.booleans()):
        options += f", dtype={draw(st.sampled_from(['jnp.bool_', 'jnp.int32', 'jnp.float16']))}"
    if draw(st.booleans()):
        query = shape_literal(draw(st.lists(sizes, max_size=3)))
        made = f"make_causal_mask(jnp.ones({query}){options})"
    else:
        query = draw(st.lists(sizes, max_size=3))
        key = [*draw(st.lists(sizes, max_size=2)), draw(sizes)] if draw(st.integers(0, 5)) else []
        if draw(st.booleans()):
            options += ", pairwise_fn=jnp.greater_equal"
        made = f"make_attention_mask(jnp.ones({shape_literal(query)}), jnp.ones({shape_literal(key)}){options})"
    return MADE.format(module="from flax import nnx" if nnx else "import flax.linen as nn",
                       name="nnx" if nnx else "nn", made=made)


@given(made_masks())
@cases(30)
def test_made_masks_agree_with_flax(program: str) -> None:
    agree(program, CODES)


CROSS = """\
import jax.numpy as jnp
from flax import nnx

layer = nnx.MultiHeadAttention(2, 8, decode=False, {RNGS})
query, memory = jnp.zeros((3, {target}, 8)), jnp.zeros((3, {source}, 8))
mask = nnx.make_attention_mask(jnp.ones((3, {mask_target})), jnp.ones((3, {mask_source})))
out = layer(query, memory, mask=mask)
"""


@pytest.mark.parametrize(("target", "source", "mask_target", "mask_source"), [
    (5, 7, 5, 7), (5, 7, 5, 5), (5, 7, 7, 5), (5, 7, 1, 7), (1, 7, 1, 7), (5, 1, 5, 4), (5, 7, 5, 1),
])
def test_cross_attention_with_a_made_mask_agrees_with_nnx(target: int, source: int, mask_target: int,
                                                           mask_source: int) -> None:
    """A mask for the wrong key length (the query's, as self-attention's) is the usual mistake."""
    agree(CROSS.format(RNGS=RNGS, target=target, source=source, mask_target=mask_target, mask_source=mask_source),
          CODES)


@pytest.mark.parametrize("program", [
    # The quoted miss: a (batch, length) padding mask given as it is.
    NNX_LAYER.format(heads=4, features=64, options="", RNGS=RNGS, query="(4, 16, 64)", arguments="query",
                     mask="jnp.ones((4, 16), bool)", call_options=""),
    LINEN_LAYER.format(kind="SelfAttention", heads=8, query="(4, 16, 64)", arguments="query",
                       mask="jnp.ones((4, 16, 16), bool)"),
    LINEN_LAYER.format(kind="MultiHeadDotProductAttention", heads=8, query="(4, 16, 64)", arguments="query",
                       mask="jnp.ones((4, 16), bool)"),
])
def test_the_reported_masks_are_refused(program: str) -> None:
    """SC101 where the layer is called (linen's both at `init` and at `apply`)."""
    assert set(check(program).codes) == {"SC101"}
    agree(program, CODES)


@pytest.mark.parametrize("program", [
    NNX_LAYER.format(heads=1, features=1, options="", RNGS=RNGS, query="(1, 1)", arguments="query",
                     mask="jnp.ones((1, 1), bool)", call_options=""),
    NNX_LAYER.format(heads=1, features=1, options="", RNGS=RNGS, query="(1, 1, 1)", arguments="query",
                     mask="jnp.ones((), bool)", call_options=""),
    NNX_LAYER.format(heads=1, features=2, options="", RNGS=RNGS, query="(1, 1, 2)", arguments="query",
                     mask="nnx.make_causal_mask(jnp.ones((1, 1)))", call_options=""),
    NNX_LAYER.format(heads=1, features=2, options=", dropout_rate=0.5", RNGS=RNGS, query="(1, 3, 2)",
                     arguments="query", mask="jnp.ones((1, 1, 1, 1), bool)", call_options=", deterministic=True"),
    LINEN_LAYER.format(kind="MultiHeadDotProductAttention", heads=1, query="(1, 1)", arguments="query",
                       mask="jnp.ones((1, 1, 1), bool)"),
    LINEN_LAYER.format(kind="SelfAttention", heads=1, query="(1, 1, 1)", arguments="query",
                       mask="nn.make_attention_mask(jnp.ones((1, 1)), jnp.ones((1, 1)))"),
    FUNCTION.format(module="from flax import nnx", name="nnx", query="(1, 1, 1)", key="(1, 1, 1)", value="(1, 1, 1)",
                    mask="jnp.ones((1,), bool)", options=""),
    FUNCTION.format(module="import flax.linen as nn", name="nn", query="(1, 1, 1, 1)", key="(1, 1, 1, 1)",
                    value="(1, 1, 1, 1)", mask="jnp.ones((1, 1, 1, 1), bool)", options=""),
    MADE.format(module="from flax import nnx", name="nnx", made="make_attention_mask(jnp.ones(()), jnp.ones((1,)))"),
    MADE.format(module="import flax.linen as nn", name="nn", made="make_causal_mask(jnp.ones((1,)))"),
])
def test_trivial_masks_agree_with_flax(program: str) -> None:
    """Sizes of 1, a single head, a scalar mask, no batch dims: what flax accepts."""
    agree(program)


def test_a_mask_that_widens_the_weights_is_not_followed() -> None:
    """linen masks with `jnp.where`: a mask of a leading dim more widens the output (flax accepts
    it), which the checker leaves unknown rather than guess."""
    program = LINEN_LAYER.format(kind="MultiHeadDotProductAttention", heads=2, query="(3, 4)", arguments="query",
                                 mask="jnp.ones((2, 1, 1, 3, 3), bool)")
    checked = check(program)
    assert checked.codes == () and checked.type is None
    agree(program.replace("(2, 1, 1, 3, 3)", "(2, 3, 3)"))  # one that fits the weights is followed
