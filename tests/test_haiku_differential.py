"""haiku's `transform` against haiku itself: init on inputs of one shape, apply on the same or on
a shape with one dim changed.

Each drawn program's forward function stacks a few of haiku's layers (Linear, nets.MLP, a
Flatten first, LayerNorm, a Sequential, `hk.get_parameter` in a module of the program's own; or
a Conv2D, flattened into a Linear or not),
is transformed with or without apply's rng, initialised on zeros of one shape and applied to
zeros of another or the same. haiku refuses a parameter the new input would make of another
shape (a ValueError); the checker must report exactly those programs, with SC103, and infer the
output where haiku accepts (`tests.differential.agree`).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases, shape_literal

pytest.importorskip("jax")
pytest.importorskip("haiku")

PROGRAM = """\
import jax
import jax.numpy as jnp
import haiku as hk

class Block(hk.Module):
    def __init__(self, size, name=None):
        super().__init__(name=name)
        self.size = size

    def __call__(self, x):
        w = hk.get_parameter("w", [x.shape[-1], self.size], init=jnp.zeros)
        return jax.nn.relu(x @ w)

def forward(x):
{body}
    return x

net = {transform}
params = net.init(jax.random.key(0), jnp.zeros({init}))
out = net.apply(params, {rng}jnp.zeros({applied}))
"""

sizes = st.integers(1, 5)


@st.composite
def layer(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["Linear", "MLP", "LayerNorm", "Sequential", "Block", "bias"]))
    if kind == "Linear":
        return f"x = hk.Linear({draw(sizes)})(x)"
    if kind == "bias":
        return f"x = hk.Linear({draw(sizes)}, with_bias=False)(x)"
    if kind == "MLP":
        return f"x = hk.nets.MLP([{draw(sizes)}, {draw(sizes)}])(x)"
    if kind == "LayerNorm":
        return "x = hk.LayerNorm(axis=-1, create_scale=True, create_offset=True)(x)"
    if kind == "Sequential":
        return f"x = hk.Sequential([hk.Linear({draw(sizes)}), jax.nn.relu, hk.Linear({draw(sizes)})])(x)"
    return f"x = Block({draw(sizes)})(x)"


@st.composite
def programs(draw: st.DrawFn) -> str:
    flatten = draw(st.booleans())
    dims = draw(st.lists(sizes, min_size=2 if flatten else 1, max_size=3))
    lines = ["x = hk.Flatten()(x)"] if flatten else []
    lines += [draw(layer()) for _ in range(draw(st.integers(1, 3)))]
    applied = list(dims)
    if draw(st.booleans()):
        applied[draw(st.integers(0, len(dims) - 1))] = draw(sizes)
    rng = draw(st.booleans())
    transform = "hk.transform(forward)" if rng else "hk.without_apply_rng(hk.transform(forward))"
    return PROGRAM.format(body="\n".join(" " * 4 + line for line in lines), transform=transform,
                          init=shape_literal(dims), applied=shape_literal(applied), rng="None, " if rng else "")


@given(programs())
@cases(60)
def test_apply_reads_back_what_init_made_as_haiku_does(program: str) -> None:
    agree(program, frozenset({"SC103"}))


@st.composite
def convolutions(draw: st.DrawFn) -> str:
    """A Conv2D (batched or not, strided, padded, grouped), then a Flatten and a Linear or not."""
    channels, groups = draw(st.sampled_from([1, 2, 3, 4])), draw(st.sampled_from([1, 1, 2]))
    dims = [*([draw(sizes)] if draw(st.booleans()) else []), draw(st.integers(2, 7)), draw(st.integers(2, 7)), channels]
    padding = draw(st.sampled_from(["'SAME'", "'VALID'"]))
    lines = [f"x = hk.Conv2D({2 * draw(sizes)}, kernel_shape={draw(st.integers(1, 3))}, "
             f"stride={draw(st.integers(1, 2))}, padding={padding}, feature_group_count={groups})(x)"]
    if draw(st.booleans()):
        lines += ["x = hk.Flatten()(x)", f"x = hk.Linear({draw(sizes)})(x)"]
    applied = list(dims)
    if draw(st.booleans()):
        where = draw(st.integers(0, len(dims) - 1))
        applied[where] = draw(st.sampled_from([1, 2, 3, 4]) if where == len(dims) - 1 else st.integers(2, 7))
    return PROGRAM.format(body="\n".join(" " * 4 + line for line in lines), transform="hk.transform(forward)",
                          init=shape_literal(dims), applied=shape_literal(applied), rng="None, ")


@given(convolutions())
@cases(40)
def test_convolutions_agree_with_haiku(program: str) -> None:
    agree(program, frozenset({"SC103", "SC104"}))


@pytest.mark.parametrize(("init", "applied"), [("(2, 28, 28)", "(9, 28, 28)"), ("(2, 28, 28)", "(2, 32, 32)")])
def test_an_image_classifier_takes_other_batches_not_other_images(init: str, applied: str) -> None:
    body = "    x = hk.Flatten()(x)\n    x = hk.nets.MLP([16, 10])(x)"
    agree(PROGRAM.format(body=body, transform="hk.transform(forward)", init=init, applied=applied, rng="None, "),
          frozenset({"SC103"}))


def test_the_pair_unpacks_and_a_scalar_input_is_refused() -> None:
    agree("""\
import jax
import jax.numpy as jnp
import haiku as hk

init, apply = hk.transform(lambda x: hk.Linear(3)(x))
params = init(jax.random.key(0), jnp.zeros(()))
out = apply(params, None, jnp.zeros(()))
""", frozenset({"SC106"}))


@pytest.mark.parametrize("features", ["5", "6"])
def test_batch_norm_and_state_keep_their_shapes(features: str) -> None:
    """transform_with_state: init gives the parameters and the state, apply the output and the
    state; the parameters are checked as without a state."""
    agree("""\
import jax
import jax.numpy as jnp
import haiku as hk

def forward(x, is_training):
    count = hk.get_state("count", [], jnp.int32, init=jnp.zeros)
    hk.set_state("count", count + 1)
    x = hk.BatchNorm(True, True, 0.9)(hk.Linear(6)(x), is_training)
    return hk.Linear(3)(x)

net = hk.transform_with_state(forward)
params, state = net.init(jax.random.key(0), jnp.zeros((4, 5)), True)
out = net.apply(params, state, None, jnp.zeros((7, FEATURES)), False)[0]
""".replace("FEATURES", features), frozenset({"SC103"}))


@pytest.mark.parametrize(("body", "init", "applied"), [
    ("    x = jax.nn.relu(x)", "(2, 4)", "(3, 7)"),  # no parameter: any shape applies
    ("    x = hk.Linear(1)(x)", "(1, 1)", "(1, 1)"),  # size-1 dims
    ("    x = hk.Flatten()(x)\n    x = hk.Linear(2)(x)", "(1,)", "(5,)"),  # Flatten of one dim keeps it
])
def test_trivial_forward_functions_agree_with_haiku(body: str, init: str, applied: str) -> None:
    agree(PROGRAM.format(body=body, transform="hk.transform(forward)", init=init, applied=applied, rng="None, "),
          frozenset({"SC103"}))


ATTENTION = """\
import jax
import jax.numpy as jnp
import haiku as hk

def forward(q, k, v):
    attention = hk.MultiHeadAttention({heads}, {key_size}{options}, w_init=hk.initializers.VarianceScaling(1.0))
    return attention(q, k, v{mask})

net = hk.without_apply_rng(hk.transform(forward))
params = net.init(jax.random.key(0), jnp.zeros({q}), jnp.zeros({k}), jnp.zeros({v}))
out = net.apply(params, jnp.zeros({q2}), jnp.zeros({k2}), jnp.zeros({v2}))
"""


@st.composite
def attentions(draw: st.DrawFn) -> str:
    """Self- and cross-attention over leading dims that broadcast or not, keys and values of
    lengths that match or not (a length of 1 broadcasts), sometimes an operand without a length
    axis or a mask; applied to the same shapes, or to one with its features changed (other
    parameters than init made)."""
    heads, key_size = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    options = ""
    if draw(st.booleans()):
        options += f", value_size={draw(st.integers(1, 3))}"
    if draw(st.booleans()):
        options += f", model_size={draw(sizes)}"
    if draw(st.booleans()):
        options += ", with_bias=False"
    leading = draw(st.lists(st.integers(1, 3), max_size=2))

    def lead() -> list[int]:
        kind = draw(st.sampled_from(["same", "same", "none", "ones", "other"]))
        if kind == "same":
            return list(leading)
        if kind == "none":
            return []
        if kind == "ones":
            return [1] * len(leading)
        return draw(st.lists(st.integers(1, 3), max_size=2))

    length, kv_length = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    shapes = [[*leading, length, draw(sizes)], [*lead(), kv_length, draw(sizes)],
              [*lead(), draw(st.sampled_from([kv_length, kv_length, 1, draw(st.integers(1, 4))])), draw(sizes)]]
    if draw(st.integers(0, 9)) == 0:
        shapes[draw(st.integers(0, 2))] = [draw(sizes)]  # no length axis
    if draw(st.integers(0, 9)) == 0:
        shapes[0][draw(st.integers(0, len(shapes[0]) - 2)) if len(shapes[0]) > 1 else 0] = 0
    mask = ""
    if draw(st.booleans()):
        logits = [*leading, heads, length, kv_length]
        dims = [draw(st.sampled_from([d, 1])) for d in logits]
        if draw(st.integers(0, 4)) == 0:
            dims = dims[1:] if dims else [2]  # another rank
        mask = f", jnp.ones({shape_literal(dims)}, bool)"
    applied = [list(shape) for shape in shapes]
    if draw(st.booleans()):
        which = draw(st.integers(0, 2))
        applied[which][-1] = draw(sizes)
    return ATTENTION.format(heads=heads, key_size=key_size, options=options, mask=mask,
                            q=shape_literal(shapes[0]), k=shape_literal(shapes[1]), v=shape_literal(shapes[2]),
                            q2=shape_literal(applied[0]), k2=shape_literal(applied[1]), v2=shape_literal(applied[2]))


@given(attentions())
@cases(40)
def test_attention_agrees_with_haiku(program: str) -> None:
    agree(program, frozenset({"SC101", "SC103", "SC104", "SC105", "SC106"}))


@pytest.mark.parametrize(("q", "k", "v"), [
    ("(1, 1)", "(1, 1)", "(1, 1)"),  # one position of one feature
    ("(3, 2)", "(3, 2)", "(3, 2)"),  # self-attention, no leading dims
    ("(2, 4, 5)", "(6, 3)", "(6, 3)"),  # keys without the query's batch: broadcast
    ("(4, 5)", "(2, 6, 3)", "(6, 3)"),  # a key batch the query lacks: the output keeps the query's
    ("(4, 5)", "(6, 3)", "(5, 3)"),  # key and value lengths differ
    ("(5,)", "(6, 3)", "(6, 3)"),  # a query without a length axis
    ("(0, 5)", "(6, 3)", "(6, 3)"),  # an empty query
])
def test_trivial_attentions_agree_with_haiku(q: str, k: str, v: str) -> None:
    agree(ATTENTION.format(heads=2, key_size=3, options="", mask="", q=q, k=k, v=v, q2=q, k2=k, v2=v),
          frozenset({"SC101", "SC103", "SC104", "SC105", "SC106"}))
