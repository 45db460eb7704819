"""flax.linen's `init` and `apply` on inputs of other shapes, against flax itself.

Each drawn program builds a module of a few layers (Dense, DenseGeneral, LayerNorm, RMSNorm, a
`self.param` made from the input, a residual block applied once or in a loop, an nn.Sequential,
a convolution flattened into a Dense), initialises it on zeros of one shape and applies the variables, as
returned or as `{'params': variables['params']}`, to zeros of the same shape or of one with a
dim changed. flax refuses a parameter the new input would make of another shape
(ScopeParamShapeError); the checker must report exactly those programs, with SC103, and infer
the output where flax accepts (`tests.differential.agree`).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases, shape_literal

pytest.importorskip("jax")
pytest.importorskip("flax")

PROGRAM = """\
import jax
import jax.numpy as jnp
import flax.linen as nn

class Block(nn.Module):
    @nn.compact
    def __call__(self, x):
        return x + nn.Dense(x.shape[-1])(x)

class M(nn.Module):
    @nn.compact
    def __call__(self, x):
{body}
        return x

m = M()
variables = m.init(jax.random.key(0), jnp.zeros({init}))
out = m.apply({given}, jnp.zeros({applied}))
"""

sizes = st.integers(1, 5)


@st.composite
def layer(draw: st.DrawFn, index: int) -> str:
    kind = draw(st.sampled_from(["Dense", "DenseGeneral", "LayerNorm", "RMSNorm", "param", "Block", "loop",
                                 "Sequential"]))
    if kind == "Dense":
        return f"x = nn.Dense({draw(sizes)})(x)"
    if kind == "Sequential":
        return f"x = nn.Sequential([nn.Dense({draw(sizes)}), nn.relu, nn.LayerNorm(), nn.Dense({draw(sizes)})])(x)"
    if kind == "DenseGeneral":
        return f"x = nn.DenseGeneral({draw(sizes)})(x)"
    if kind in ("LayerNorm", "RMSNorm"):
        return f"x = nn.{kind}()(x)"
    if kind == "param":
        return f"x = x @ self.param('w{index}', nn.initializers.zeros, (x.shape[-1], {draw(sizes)}))"
    if kind == "Block":
        return draw(st.sampled_from(["x = Block()(x)", "x = nn.remat(Block)()(x)"]))
    return f"for _ in range({draw(st.integers(1, 3))}):\n            x = Block()(x)"


@st.composite
def programs(draw: st.DrawFn) -> str:
    convolved = draw(st.booleans())
    if convolved:
        dims = [draw(sizes), draw(st.integers(2, 6)), draw(st.integers(2, 6)), draw(sizes)]
        lines = [f"x = nn.Conv({draw(sizes)}, (3, 3))(x)", "x = x.reshape((x.shape[0], -1))"]
    else:
        dims = draw(st.lists(sizes, min_size=1, max_size=3))
        lines = []
    lines += [draw(layer(index)) for index in range(draw(st.integers(1, 3)))]
    applied = list(dims)
    if draw(st.booleans()):
        where = draw(st.integers(0, len(dims) - 1))
        applied[where] = draw(st.integers(2, 6) if convolved and where in (1, 2) else sizes)
    given_ = draw(st.sampled_from(["variables", "{'params': variables['params']}"]))
    body = "\n".join(" " * 8 + line for line in lines)
    return PROGRAM.format(body=body, init=shape_literal(dims), applied=shape_literal(applied), given=given_)


@given(programs())
@cases(60)
def test_apply_reads_back_what_init_made_as_flax_does(program: str) -> None:
    agree(program, frozenset({"SC103"}))


@pytest.mark.parametrize("program", [
    # A module applied to inputs of its own features, another batch: accepted.
    PROGRAM.format(body="        x = nn.Dense(3)(x)", init="(2, 4)", applied="(9, 4)", given="variables"),
    # The features the first Dense was made for, changed.
    PROGRAM.format(body="        x = nn.Dense(3)(x)", init="(2, 4)", applied="(2, 5)", given="variables"),
    # A block applied three times: each of its Dense kernels is (features, features).
    PROGRAM.format(body="        for _ in range(3):\n            x = Block()(x)", init="(2, 4)", applied="(2, 5)",
                   given="{'params': variables['params']}"),
    # The spatial size of an image reaches the Dense after the flatten only.
    PROGRAM.format(body="        x = nn.Conv(2, (3, 3))(x)\n        x = x.reshape((x.shape[0], -1))\n"
                        "        x = nn.Dense(3)(x)", init="(1, 4, 4, 1)", applied="(1, 5, 4, 1)", given="variables"),
])
def test_fixed_cases_agree_with_flax(program: str) -> None:
    agree(program, frozenset({"SC103"}))


TRAINING = """\
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax
from typing import Any
from flax.training import train_state

class M(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Conv(2, (3, 3))(x)
        x = nn.max_pool(x, (2, 2), strides=(2, 2))
        return nn.Dense(3)(x.reshape((x.shape[0], -1)))

class State(train_state.TrainState):
    extra: Any = None

m = M()
variables = m.init(jax.random.key(0), jnp.zeros((1, 8, 8, 1)))
state = {create}(apply_fn=m.apply, params=variables['params'], tx=optax.sgd(0.1))

@jax.jit
def step(state, x):
    def loss(params):
        return state.apply_fn({{'params': params}}, x).mean()
    return state.apply_gradients(grads=jax.grad(loss)(state.params))

state = step(state, jnp.zeros((4, 8, 8, 1)))
out = state.apply_fn({{'params': state.params}}, jnp.zeros({images}))
"""


@pytest.mark.parametrize("create", ["train_state.TrainState.create", "State.create"])
@pytest.mark.parametrize("images", ["(5, 8, 8, 1)", "(5, 9, 9, 1)", "(5, 10, 10, 1)"])
def test_a_train_state_carries_the_variables_through_jit_grad_and_steps(create: str, images: str) -> None:
    """The pooled 8 by 8 image flattens to 32 features; 9 by 9 pools to 4 by 4 too, 10 by 10
    does not (a kernel of (50, 3))."""
    agree(TRAINING.format(create=create, images=images), frozenset({"SC103"}))


@pytest.mark.parametrize("program", [
    # No parameter at all: init makes none, and apply takes any shape.
    PROGRAM.format(body="        x = nn.relu(x)", init="(2, 4)", applied="(3, 7)", given="variables"),
    # Size-1 dims everywhere: a kernel of (1, 1), the same at apply.
    PROGRAM.format(body="        x = nn.Dense(1)(x)", init="(1, 1)", applied="(1, 1)", given="variables"),
    # A 1-d input (no batch dim) to a Dense: its features still make the kernel.
    PROGRAM.format(body="        x = nn.Dense(2)(x)", init="(3,)", applied="(4,)", given="variables"),
])
def test_trivial_modules_agree_with_flax(program: str) -> None:
    agree(program, frozenset({"SC103"}))
