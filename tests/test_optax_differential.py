"""optax's losses against optax itself: each drawn program calls a loss on `jnp.zeros` of drawn
shapes and dtypes (the classic mistakes among them: integer labels for the one-hot loss,
one-hot labels for the integer one, targets of another shape). Where optax accepts, the checker
reports nothing and infers the loss's shape and dtype; where it raises, the checker reports it
(`tests.differential.agree`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases, check, shape_literal

pytest.importorskip("jax")
pytest.importorskip("optax")

CASES = cases(150)

PROGRAM = """\
import jax
import jax.numpy as jnp
import optax

first = jnp.zeros({first}, {first_dtype})
second = jnp.zeros({second}, {second_dtype})
out = {module}.{loss}(first, second{options})
"""

SIZES = st.sampled_from((1, 2, 3, 5))
FLOATS = st.sampled_from(("jnp.float32", "jnp.bfloat16"))


@st.composite
def related(draw: st.DrawFn, dims: list[int]) -> list[int]:
    """A second shape beside `dims`: the same, one that broadcasts, or one that may not."""
    kind = draw(st.integers(0, 6))
    if kind == 0 or not dims:
        return list(dims) if kind < 3 else draw(st.lists(SIZES, max_size=3))
    if kind == 1:
        return dims[1:]  # a suffix: broadcasts
    if kind == 2:
        return [*dims[:-1], 1]  # a size 1: broadcasts
    if kind == 3:
        return dims[:-1]  # the last axis dropped (integer class labels)
    if kind == 4:
        return [*dims[:-1], draw(SIZES)]  # the last size redrawn
    if kind == 5:
        return [draw(SIZES), *dims]  # an extra leading axis
    return draw(st.lists(SIZES, max_size=3))


@st.composite
def loss_programs(draw: st.DrawFn) -> str:
    first = draw(st.lists(SIZES, min_size=0, max_size=3))
    loss = draw(st.sampled_from((
        "softmax_cross_entropy", "softmax_cross_entropy_with_integer_labels", "sigmoid_binary_cross_entropy",
        "l2_loss", "squared_error", "huber_loss", "log_cosh", "cosine_similarity", "cosine_distance")))
    second = draw(related(first))
    first_dtype = draw(FLOATS)
    second_dtype = draw(FLOATS)
    options = ""
    if loss == "softmax_cross_entropy_with_integer_labels":
        # Integer labels; float ones only where the shape is wrong too (optax refuses float
        # labels whatever their shape: a dtype rule, not reported).
        if len(second) == len(first) - 1 or draw(st.booleans()):
            second_dtype = "jnp.int32"
    elif loss == "softmax_cross_entropy" and draw(st.integers(0, 3)) == 0:
        second_dtype = "jnp.int32"
    if loss in ("softmax_cross_entropy", "softmax_cross_entropy_with_integer_labels", "cosine_similarity",
                "cosine_distance") and draw(st.integers(0, 2)) == 0:
        axis = draw(st.sampled_from((-1, 0, 1, -2, 2) + ((None,) if loss == "softmax_cross_entropy" else ())))
        options = f", axis={axis}"
    module = draw(st.sampled_from(("optax", "optax.losses")))
    return PROGRAM.format(first=shape_literal(first), first_dtype=first_dtype, second=shape_literal(second),
                          second_dtype=second_dtype, module=module, loss=loss, options=options)


@given(loss_programs())
@CASES
def test_optax_losses_agree_with_optax(program: str) -> None:
    agree(program, frozenset({"SC101", "SC106"}))


@pytest.mark.parametrize(("call", "hint"), [
    ("optax.softmax_cross_entropy(logits, labels)", "optax.softmax_cross_entropy_with_integer_labels takes"),
    ("optax.softmax_cross_entropy_with_integer_labels(logits, jax.nn.one_hot(labels, 10))",
     "these look like one-hot labels, which optax.softmax_cross_entropy takes"),
])
def test_the_label_mix_ups_are_named(call: str, hint: str) -> None:
    program = ("import jax\nimport jax.numpy as jnp\nimport optax\n\nlogits = jnp.zeros((32, 10))\n"
               f"labels = jnp.zeros((32,), jnp.int32)\nout = {call}\n")
    from shapecheck.api import analyze_source

    found = analyze_source("t.py", program).diagnostics
    assert [d.code for d in found] == ["SC101"] and hint in found[0].message, found
    assert check(program).codes == ("SC101",)


STEP = """\
import jax
import jax.numpy as jnp
import optax

params = {{'w': jnp.zeros(({rows}, {columns})), 'b': jnp.zeros(({columns},))}}
opt = {optimizer}
state = opt.init(params)
for _ in range({steps}):
    grads = jax.grad(lambda p: jnp.sum(p['w'] ** 2) + jnp.sum(p['b']))(params)
    updates, state = opt.update(grads, state, params)
    params = optax.apply_updates(params, updates)
out = jnp.zeros(({batch}, {features})) @ params['w'] + params['b']
"""

OPTIMIZERS = ("optax.adam(0.1)", "optax.sgd(0.1, momentum=0.9)", "optax.adamw(0.1)", "optax.rmsprop(0.1)",
              "optax.adagrad(0.1)", "optax.lion(0.1)", "optax.lamb(0.1)", "optax.adafactor(0.1)",
              "optax.chain(optax.clip_by_global_norm(1.0), optax.adam(0.1))", "optax.scale(-0.1)",
              "optax.add_decayed_weights(1e-4)", "optax.trace(0.9)", "optax.identity()")


@st.composite
def steps(draw: st.DrawFn) -> str:
    rows, columns = draw(SIZES), draw(SIZES)
    return STEP.format(rows=rows, columns=columns, optimizer=draw(st.sampled_from(OPTIMIZERS)),
                       steps=draw(st.integers(1, 2)), batch=draw(SIZES),
                       features=draw(st.sampled_from((rows, rows, draw(SIZES)))))


@given(steps())
@cases(40)
def test_parameters_keep_their_shapes_through_optimizer_steps(program: str) -> None:
    """The step's parameters are known after it: a batch of other features fails the product."""
    agree(program, frozenset({"SC104"}))


EQUINOX_STEP = """\
import jax
import jax.numpy as jnp
import equinox as eqx
import optax

model = eqx.nn.MLP(4, 2, 8, 2, key=jax.random.key(0))
opt = optax.adam(1e-3)
state = opt.init(eqx.filter(model, eqx.is_array))

def loss(model, x, y):
    return jnp.mean((jax.vmap(model)(x) - y) ** 2)

@eqx.filter_jit
def step(model, state, x, y):
    value, grads = eqx.filter_value_and_grad(loss)(model, x, y)
    updates, state = opt.update(grads, state, eqx.filter(model, eqx.is_array))
    return eqx.apply_updates(model, updates), state, value

model, state, value = step(model, state, jnp.zeros((16, 4)), jnp.zeros((16, 2)))
params, static = eqx.partition(model, eqx.is_array)
out = jax.vmap(eqx.combine(params, static))(jnp.zeros({batch}))
"""


@pytest.mark.parametrize("batch", ["(3, 4)", "(3, 5)"])
def test_an_equinox_model_keeps_its_sizes_through_a_training_step(batch: str) -> None:
    """filter_jit, filter_value_and_grad, optax and apply_updates, partition and combine: the
    model after the step is the one built, so a batch of other features fails its first layer."""
    agree(EQUINOX_STEP.format(batch=batch), frozenset({"SC104"}))


@pytest.mark.parametrize("batch", ["(2, 0)", "(2, 1)"])
def test_an_optimizer_step_over_a_parameter_of_no_elements(batch: str) -> None:
    """A (0, 3) weight steps to a (0, 3) weight: a batch of no features multiplies it, one of one
    feature does not."""
    agree("""\
import jax
import jax.numpy as jnp
import optax

opt = optax.adam(0.1)
params = {'w': jnp.zeros((0, 3))}
grads = jax.grad(lambda p: jnp.sum(p['w']))(params)
updates, state = opt.update(grads, opt.init(params), params)
out = jnp.zeros(BATCH) @ optax.apply_updates(params, updates)['w']
""".replace("BATCH", batch), frozenset({"SC104"}))
