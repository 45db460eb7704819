"""Recurrent layers against the libraries themselves: flax.linen's and flax.nnx's cells, alone
and scanned by their `RNN`, and equinox's cells, alone and under `jax.lax.scan`.

Each drawn program builds a cell with drawn sizes and dtypes, makes its carry (the cell's
`initialize_carry`, for the step's shape or another, or zeros of a drawn shape and dtype) and
runs it. The libraries refuse carries whose batch dims do not broadcast with the input's (SC101),
inputs or carries of other features than an nnx or equinox cell was built for (SC104), a scalar
(SC106), and, in an `RNN`, a carry the cell changes (SC103, as `lax.scan` does). The checker
must report exactly the programs the libraries refuse and infer the shape and dtype of the
others (`tests.differential.agree`).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases, shape_literal

pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("equinox")

CODES = frozenset({"SC101", "SC103", "SC104", "SC106"})

LINEN_CELL = """\
import jax
import jax.numpy as jnp
import flax.linen as nn

cell = nn.{cell}({features}{options})
x = jnp.zeros({shape}, {dtype})
carry = {carry}
variables = cell.init(jax.random.key(0), carry, jnp.zeros({init_shape}, {dtype}))
out = cell.apply(variables, carry, x){pick}
"""

LINEN_RNN = """\
import jax
import jax.numpy as jnp
import flax.linen as nn

model = nn.RNN(nn.{cell}({features}{options}){rnn_options})
x = jnp.zeros({shape}, {dtype})
variables = model.init(jax.random.key(0), jnp.zeros({init_shape}, {dtype}){call_options})
out = model.apply(variables, x{call_options}){pick}
"""

NNX_CELL = """\
import jax
import jax.numpy as jnp
from flax import nnx

cell = nnx.{cell}({in_features}, {features}{options}, rngs=nnx.Rngs(0))
x = jnp.zeros({shape}, {dtype})
carry = {carry}
out = cell(carry, x){pick}
"""

NNX_RNN = """\
import jax
import jax.numpy as jnp
from flax import nnx

model = nnx.RNN(nnx.{cell}({in_features}, {features}{options}, rngs=nnx.Rngs(0)){rnn_options})
x = jnp.zeros({shape}, {dtype})
out = model(x{call_options}){pick}
"""

EQUINOX = """\
import jax
import jax.numpy as jnp
import equinox as eqx

cell = eqx.nn.{cell}({input_size}, {hidden_size}{options}, key=jax.random.key(0))
x = jnp.zeros({shape}, {dtype})
hidden = {hidden}
{body}
"""

sizes = st.integers(1, 5)
dtypes = st.sampled_from(["jnp.float32", "jnp.bfloat16", "jnp.int32"])
float_dtypes = st.sampled_from(["jnp.float32", "jnp.bfloat16"])
dtype_options = st.sampled_from(["", "", ", dtype=jnp.bfloat16", ", param_dtype=jnp.bfloat16",
                                 ", dtype=jnp.float32, param_dtype=jnp.bfloat16"])
LSTMS = ("LSTMCell", "OptimizedLSTMCell")


def _shape(draw: st.DrawFn, features: int) -> list[int]:
    """Leading dims of 0-2 (each sometimes 1), then the features; now and then a scalar."""
    if draw(st.integers(0, 9)) == 0:
        return []
    lead = draw(st.lists(st.sampled_from([1, 2, 3]), max_size=2))
    return [*lead, features]


def _near(draw: st.DrawFn, shape: list[int]) -> list[int]:
    """`shape` most of the time; else with a dim changed, dropped or added."""
    choice = draw(st.integers(0, 5))
    if choice == 0 and shape:
        index = draw(st.integers(0, len(shape) - 1))
        return [*shape[:index], draw(sizes), *shape[index + 1:]]
    if choice == 1 and len(shape) > 1:
        return shape[1:]
    if choice == 2:
        return [draw(st.sampled_from([1, 2])), *shape]
    return list(shape)


def _flax_carry(draw: st.DrawFn, cell: str, step: list[int], features: int, *, nnx: bool) -> str:
    """The cell's `initialize_carry` for the step's shape (or another), or zeros made by hand."""
    if draw(st.booleans()):
        shape = shape_literal(_near(draw, step))
        if nnx:
            return f"cell.initialize_carry({shape}, nnx.Rngs(1))"
        return f"cell.initialize_carry(jax.random.key(1), {shape})"
    state = _near(draw, [*step[:-1], features])
    arrays = [f"jnp.zeros({shape_literal(state)}, {draw(float_dtypes)})"
              for _ in range(2 if cell in LSTMS else 1)]
    return f"({arrays[0]}, {arrays[1]})" if len(arrays) == 2 else arrays[0]


def _cell_pick(draw: st.DrawFn, cell: str) -> str:
    """The output, or the new carry (an LSTM's c or h)."""
    if cell in LSTMS:
        return draw(st.sampled_from(["[1]", "[0][0]", "[0][1]"]))
    return draw(st.sampled_from(["[1]", "[0]"]))


@st.composite
def linen_cells(draw: st.DrawFn) -> str:
    cell = draw(st.sampled_from(["LSTMCell", "OptimizedLSTMCell", "GRUCell", "MGUCell", "SimpleCell"]))
    features = draw(sizes)
    step = _shape(draw, draw(sizes))
    options = draw(dtype_options) + (draw(st.sampled_from(["", ", residual=True"])) if cell == "SimpleCell" else "")
    return LINEN_CELL.format(cell=cell, features=features, options=options, shape=shape_literal(step),
                             init_shape=shape_literal(_initialised_on(draw, step)),
                             dtype=draw(dtypes), carry=_flax_carry(draw, cell, step, features, nnx=False),
                             pick=_cell_pick(draw, cell))


def _rnn_parts(draw: st.DrawFn, cell: str, features: int, in_features: int) -> dict[str, str]:
    """An RNN's input (batch dims, time, features; time first where time-major), its options and
    what is taken of its result."""
    time_major = draw(st.booleans())
    return_carry = draw(st.booleans())
    batch = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=2))
    time = draw(st.integers(1, 4))
    shape = [time, *batch, in_features] if time_major else [*batch, time, in_features]
    rnn_options = (", time_major=True" if time_major else "") + (", return_carry=True" if return_carry else "")
    call_options = ""
    if draw(st.integers(0, 2)) == 0:
        state = _near(draw, [*batch, features])
        arrays = [f"jnp.zeros({shape_literal(state)}, {draw(float_dtypes)})"
                  for _ in range(2 if cell in LSTMS else 1)]
        call_options = f", initial_carry={'(' + ', '.join(arrays) + ')' if len(arrays) == 2 else arrays[0]}"
    if return_carry:
        pick = draw(st.sampled_from(["[1]", "[0][0]"] if cell in LSTMS else ["[1]", "[0]"]))
    else:
        pick = ""
    return {"shape": shape_literal(shape), "rnn_options": rnn_options, "call_options": call_options, "pick": pick,
            "init_shape": shape_literal(_initialised_on(draw, shape))}


def _initialised_on(draw: st.DrawFn, shape: list[int]) -> list[int]:
    """What a model is initialised on: the input it is applied to, or one with other features (its
    parameters then differ) or another leading dim (they do not)."""
    choice = draw(st.integers(0, 5))
    if choice == 0 and shape:
        return [*shape[:-1], draw(sizes)]
    if choice == 1 and len(shape) > 1:
        return [draw(sizes), *shape[1:]]
    return shape


@st.composite
def linen_rnns(draw: st.DrawFn) -> str:
    cell = draw(st.sampled_from(["LSTMCell", "GRUCell", "SimpleCell", "MGUCell"]))
    features = draw(sizes)
    return LINEN_RNN.format(cell=cell, features=features, options=draw(dtype_options), dtype=draw(dtypes),
                            **_rnn_parts(draw, cell, features, draw(sizes)))


@st.composite
def nnx_cells(draw: st.DrawFn) -> str:
    cell = draw(st.sampled_from(["LSTMCell", "OptimizedLSTMCell", "GRUCell", "SimpleCell"]))
    features, in_features = draw(sizes), draw(sizes)
    given = in_features if draw(st.integers(0, 3)) else draw(sizes)
    step = _shape(draw, given)
    options = draw(dtype_options) + (draw(st.sampled_from(["", ", residual=True"])) if cell == "SimpleCell" else "")
    return NNX_CELL.format(cell=cell, in_features=in_features, features=features, options=options,
                           shape=shape_literal(step), dtype=draw(dtypes),
                           carry=_flax_carry(draw, cell, step, features, nnx=True), pick=_cell_pick(draw, cell))


@st.composite
def nnx_rnns(draw: st.DrawFn) -> str:
    cell = draw(st.sampled_from(["LSTMCell", "GRUCell", "SimpleCell"]))
    features, in_features = draw(sizes), draw(sizes)
    given = in_features if draw(st.integers(0, 3)) else draw(sizes)
    return NNX_RNN.format(cell=cell, in_features=in_features, features=features, options=draw(dtype_options),
                          dtype=draw(dtypes), **_rnn_parts(draw, cell, features, given))


@st.composite
def equinox_cells(draw: st.DrawFn) -> str:
    cell = draw(st.sampled_from(["GRUCell", "LSTMCell"]))
    input_size, hidden_size = draw(sizes), draw(sizes)
    options = draw(st.sampled_from(["", ", use_bias=False", ", dtype=jnp.bfloat16"]))
    dtype = draw(dtypes)
    scanned = draw(st.booleans())
    step = [input_size if draw(st.integers(0, 3)) else draw(sizes)]
    states = [_near(draw, [hidden_size]) if not draw(st.integers(0, 2)) else [hidden_size]
              for _ in range(2 if cell == "LSTMCell" else 1)]
    arrays = [f"jnp.zeros({shape_literal(state)}, {draw(float_dtypes)})" for state in states]
    hidden = f"({arrays[0]}, {arrays[1]})" if cell == "LSTMCell" else arrays[0]
    pick = "[0]" if cell == "LSTMCell" else ""
    if scanned:
        shape = [draw(st.integers(1, 3)), *step]
        body = (f"final, ys = jax.lax.scan(lambda h, xt: (cell(xt, h), cell(xt, h){pick}), hidden, x)\n"
                f"out = {draw(st.sampled_from(['ys', f'final{pick}']))}")
    else:
        shape = step
        body = f"out = cell(x, hidden){pick}"
    return EQUINOX.format(cell=cell, input_size=input_size, hidden_size=hidden_size, options=options,
                          shape=shape_literal(shape), dtype=dtype, hidden=hidden, body=body)


@given(linen_cells())
@cases(60)
def test_linen_cells_agree_with_flax(program: str) -> None:
    agree(program, CODES)


@given(linen_rnns())
@cases(50)
def test_linen_rnns_agree_with_flax(program: str) -> None:
    agree(program, CODES)


@given(nnx_cells())
@cases(50)
def test_nnx_cells_agree_with_flax(program: str) -> None:
    agree(program, CODES)


@given(nnx_rnns())
@cases(40)
def test_nnx_rnns_agree_with_flax(program: str) -> None:
    agree(program, CODES)


@given(equinox_cells())
@cases(60)
def test_equinox_cells_agree_with_equinox(program: str) -> None:
    agree(program, CODES)


LINEN_STACK = """\
import jax
import jax.numpy as jnp
import flax.linen as nn


class Block(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x, step):
        y = nn.Dense(self.features)(x)
        return {returned}


model = nn.scan(Block, variable_axes={{"params": 0}}, split_rngs={{"params": True}}{options})({features})
x = jnp.zeros({shape}, jnp.float32)
variables = model.init(jax.random.key(0), x, {step})
out = model.apply(variables, x, {step}){pick}
"""

LINEN_SCANNED_CELL = """\
import jax
import jax.numpy as jnp
import flax.linen as nn

model = nn.scan(nn.{cell}, variable_broadcast="params", split_rngs={{"params": False}}{options})({features})
xs = jnp.zeros({shape}, {dtype})
carry = nn.{cell}({features}).initialize_carry(jax.random.key(1), {carry_shape})
variables = model.init(jax.random.key(0), carry, xs)
out = model.apply(variables, carry, xs){pick}
"""


@st.composite
def linen_stacks(draw: st.DrawFn) -> str:
    """`nn.scan` over a block of the program's own: a stack of `length` layers (no input scanned),
    or one step per slice of a sequence (`in_axes`), its outputs stacked (`out_axes`)."""
    features = draw(sizes)
    width = features if draw(st.integers(0, 3)) else draw(sizes)
    shape = [draw(st.sampled_from([1, 2, 3])), width]
    returned = draw(st.sampled_from(["x + y, None", "y, y.sum(-1)", "x * y, y"]))
    if draw(st.booleans()):
        step, options = "None", f", length={draw(st.integers(1, 3))}"
    else:
        length = draw(st.integers(1, 3))
        axis = draw(st.sampled_from([0, 1, -1]))
        step_shape = [length, 2] if axis == 0 else [2, length]
        step = f"jnp.ones({shape_literal(step_shape)})"
        options = f", in_axes={axis}" + (f", length={draw(st.integers(1, 3))}" if draw(st.integers(0, 3)) == 0 else "")
        options += draw(st.sampled_from(["", ", out_axes=1", ", out_axes=-1"]))
    pick = draw(st.sampled_from(["[0]", "[1]"])) if "None" not in returned else "[0]"
    return LINEN_STACK.format(returned=returned, options=options, features=features, shape=shape_literal(shape),
                              step=step, pick=pick)


@st.composite
def linen_scanned_cells(draw: st.DrawFn) -> str:
    """The idiom before `nn.RNN`: a cell class lifted by `nn.scan` over time (`in_axes=1`)."""
    cell = draw(st.sampled_from(["LSTMCell", "OptimizedLSTMCell", "GRUCell"]))
    features = draw(sizes)
    batch, time, in_features = draw(st.sampled_from([1, 2, 3])), draw(st.integers(1, 4)), draw(sizes)
    axis = draw(st.sampled_from([0, 1]))
    shape = [time, batch, in_features] if axis == 0 else [batch, time, in_features]
    carry_shape = _near(draw, [batch, in_features])
    options = f", in_axes={axis}, out_axes={draw(st.sampled_from([0, 1]))}"
    pick = draw(st.sampled_from(["[1]", "[0][0]"] if cell in LSTMS else ["[1]", "[0]"]))
    return LINEN_SCANNED_CELL.format(cell=cell, features=features, options=options, shape=shape_literal(shape),
                                     dtype=draw(dtypes), carry_shape=shape_literal(carry_shape), pick=pick)


@given(linen_stacks())
@cases(40)
def test_linen_scanned_blocks_agree_with_flax(program: str) -> None:
    agree(program, CODES | {"SC102"})


@given(linen_scanned_cells())
@cases(40)
def test_linen_scanned_cells_agree_with_flax(program: str) -> None:
    agree(program, CODES | {"SC102"})


HAIKU = """\
import haiku as hk
import jax
import jax.numpy as jnp


def forward(x):
    core = hk.{core}({hidden})
    state = {state}
    {body}


model = hk.without_apply_rng(hk.transform(forward))
x = jnp.zeros({shape}, {dtype})
params = model.init(jax.random.key(0), jnp.zeros({init_shape}, {dtype}))
out = model.apply(params, x){pick}
"""


@st.composite
def haiku_cores(draw: st.DrawFn) -> str:
    """A haiku core on one step (one example or a batch) or unrolled over a sequence (time-major
    or not), its state from `initial_state` (with the batch size, another, or none) or zeros."""
    core = draw(st.sampled_from(["LSTM", "GRU", "VanillaRNN", "DeepRNN"]))
    hidden, features = draw(sizes), draw(sizes)
    batch = draw(st.sampled_from([None, 1, 2, 3]))
    step = [features] if batch is None else [batch, features]
    if draw(st.integers(0, 9)) == 0:
        step = draw(st.sampled_from([[], [1, 2, features]]))
    unrolled = draw(st.booleans())
    time_major = draw(st.booleans())
    time = draw(st.integers(1, 3))
    if unrolled:
        shape = [time, *step] if time_major or not step else [step[0], time, *step[1:]]
    else:
        shape = step
    if core == "DeepRNN" or draw(st.booleans()):
        given = batch if draw(st.integers(0, 3)) else draw(st.sampled_from([None, 1, 2, 3]))
        state = f"core.initial_state({given})"
    else:
        state_shape = shape_literal(_near(draw, [hidden] if batch is None else [batch, hidden]))
        zeros = f"jnp.zeros({state_shape}, {draw(float_dtypes)})"
        state = f"hk.LSTMState({zeros}, {zeros})" if core == "LSTM" else zeros
    last = {"LSTM": "last.hidden", "DeepRNN": "last[-1]"}.get(core, "last")
    if unrolled:
        major = "" if time_major else ", time_major=False"
        unroll = draw(st.sampled_from(["dynamic_unroll", "static_unroll"]))
        body = f"outs, last = hk.{unroll}(core, x, state{major})\n    return outs, {last}"
    else:
        body = f"y, last = core(x, state)\n    return y, {last}"
    if core == "DeepRNN":
        cores = [f"hk.{draw(st.sampled_from(['GRU', 'VanillaRNN']))}({draw(sizes)})" for _ in range(draw(st.integers(1, 2)))]
        if draw(st.booleans()):
            cores.insert(1, "jax.nn.relu")
        hidden = "[" + ", ".join(cores) + "]"
    return HAIKU.format(core=core, hidden=hidden, state=state, body=body, shape=shape_literal(shape),
                        init_shape=shape_literal(_initialised_on(draw, shape)),
                        dtype=draw(st.sampled_from(["jnp.float32", "jnp.bfloat16"])),
                        pick=draw(st.sampled_from(["[0]", "[1]"])))


@given(haiku_cores())
@cases(50)
def test_haiku_cores_agree_with_haiku(program: str) -> None:
    agree(program, CODES | {"SC102"})


LINEN_BIDIRECTIONAL = """\
import jax
import jax.numpy as jnp
import flax.linen as nn

model = nn.Bidirectional(nn.RNN(nn.{forward}({forward_features})), nn.RNN(nn.{backward}({backward_features})){options})
x = jnp.zeros({shape}, jnp.float32)
variables = model.init(jax.random.key(0), x)
out = model.apply(variables, x){pick}
"""


@st.composite
def bidirectionals(draw: st.DrawFn, nnx: bool) -> str:
    """Two RNNs over one sequence, merged by concatenation or by a sum (features that differ
    cannot be summed), time-major or not, with their carries or not; nnx's built for the input's
    features (or not), linen's taking any."""
    cells = st.sampled_from(["GRUCell", "LSTMCell", "SimpleCell"])
    forward, backward = draw(cells), draw(cells)
    features, in_features = draw(sizes), draw(sizes)
    other = features if draw(st.booleans()) else draw(sizes)
    time_major, return_carry = draw(st.booleans()), draw(st.booleans())
    options = (", merge_fn=lambda a, b: a + b" if draw(st.booleans()) else "") + \
        (", time_major=True" if time_major else "") + (", return_carry=True" if return_carry else "")
    batch, time = draw(st.lists(st.sampled_from([1, 2]), max_size=1)), draw(st.integers(1, 3))
    given = in_features if draw(st.integers(0, 3)) else draw(sizes)
    shape = [time, *batch, given] if time_major else [*batch, time, given]
    pick = draw(st.sampled_from(["[1]", "[0][1]" if backward != "LSTMCell" else "[0][1][0]"])) if return_carry else ""
    return (NNX_BIDIRECTIONAL if nnx else LINEN_BIDIRECTIONAL).format(
        forward=forward, backward=backward, in_features=in_features, forward_features=features,
        backward_features=other, options=options, shape=shape_literal(shape), pick=pick)


@given(bidirectionals(nnx=False))
@cases(30)
def test_linen_bidirectionals_agree_with_flax(program: str) -> None:
    agree(program, CODES)


NNX_BIDIRECTIONAL = """\
import jax
import jax.numpy as jnp
from flax import nnx

rngs = nnx.Rngs(0)
model = nnx.Bidirectional(nnx.RNN(nnx.{forward}({in_features}, {forward_features}, rngs=rngs)),
                          nnx.RNN(nnx.{backward}({in_features}, {backward_features}, rngs=rngs)){options})
out = model(jnp.zeros({shape}, jnp.float32)){pick}
"""


@given(bidirectionals(nnx=True))
@cases(25)
def test_nnx_bidirectionals_agree_with_flax(program: str) -> None:
    agree(program, CODES)


LINEN_VMAP = """\
import jax
import jax.numpy as jnp
import flax.linen as nn


class Block(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x, y):
        return nn.Dense(self.features)(x) * y


class Model(nn.Module):
    @nn.compact
    def __call__(self, x, y):
        mapped = nn.vmap(Block, variable_axes={{"params": {params}}}, split_rngs={{"params": {split}}}{options})
        return mapped({features})(x, y)


model = Model()
x, y = jnp.zeros({x_shape}), jnp.zeros({y_shape})
out = model.apply(model.init(jax.random.key(0), x, y), x, y)
"""


@st.composite
def linen_vmaps(draw: st.DrawFn) -> str:
    """`nn.vmap` of a block of the program's own: its arguments mapped along drawn axes (or
    broadcast), the results placed along drawn out_axes, with or without axis_size and with
    parameters shared or one set per member."""
    features = draw(sizes)
    per_member = draw(st.booleans())
    axes = [draw(st.sampled_from(["0", "1", "None"])) for _ in range(2)]
    options = f", in_axes=({axes[0]}, {axes[1]})"
    size = draw(st.sampled_from([2, 3]))
    if all(axis == "None" for axis in axes) or per_member or draw(st.integers(0, 3)) == 0:
        options += f", axis_size={size}"
    options += draw(st.sampled_from(["", ", out_axes=1", ", out_axes=-1"]))

    def shape(axis: str, rank: int) -> list[int]:
        dims = [draw(sizes) for _ in range(rank)]
        if axis != "None" and int(axis) < rank and draw(st.integers(0, 3)):
            dims[int(axis)] = size
        return dims

    x_shape = shape(axes[0], draw(st.sampled_from([2, 2, 3, 1])))
    y_shape = shape(axes[1], draw(st.sampled_from([1, 2, 0, 3])))
    return LINEN_VMAP.format(params="0" if per_member else "None", split=per_member, options=options,
                             features=features, x_shape=shape_literal(x_shape), y_shape=shape_literal(y_shape))


@given(linen_vmaps())
@cases(30)
def test_linen_vmaps_agree_with_flax(program: str) -> None:
    agree(program, CODES | {"SC002", "SC102", "SC105", "SC107"})


TRIVIAL = {
    "linen RNN, no time steps": ("import flax.linen as nn", "model = nn.RNN(nn.LSTMCell(3))\nx = jnp.zeros((2, 0, 4))\n"
                                 "out = model.apply(model.init(jax.random.key(0), x), x)"),
    "linen RNN, empty batch": ("import flax.linen as nn", "model = nn.RNN(nn.GRUCell(3))\nx = jnp.zeros((0, 2, 4))\n"
                               "out = model.apply(model.init(jax.random.key(0), x), x)"),
    "linen cell of one feature": ("import flax.linen as nn", "cell = nn.SimpleCell(1)\nx = jnp.zeros((1,))\n"
                                  "carry = cell.initialize_carry(jax.random.key(1), x.shape)\n"
                                  "out = cell.apply(cell.init(jax.random.key(0), carry, x), carry, x)[1]"),
    "nn.scan of one step": ("import flax.linen as nn", "model = nn.scan(nn.GRUCell, variable_broadcast='params', "
                            "split_rngs={'params': False}, in_axes=1, out_axes=1)(1)\nxs = jnp.zeros((1, 1, 1))\n"
                            "carry = jnp.zeros((1, 1))\n"
                            "out = model.apply(model.init(jax.random.key(0), carry, xs), carry, xs)[1]"),
    "nn.vmap of one member": ("import flax.linen as nn", "model = nn.vmap(nn.Dense, variable_axes={'params': 0}, "
                              "split_rngs={'params': True}, in_axes=None, axis_size=1)(1)\nx = jnp.zeros((1,))\n"
                              "out = model.apply(model.init(jax.random.key(0), x), x)"),
    "nnx RNN, no time steps": ("from flax import nnx", "model = nnx.RNN(nnx.LSTMCell(2, 3, rngs=nnx.Rngs(0)))\n"
                               "out = model(jnp.zeros((1, 0, 2)))"),
    "haiku unroll, no time steps": ("import haiku as hk", "def f(x):\n    core = hk.GRU(2)\n"
                                    "    return hk.dynamic_unroll(core, x, core.initial_state(1))[0]\n"
                                    "model = hk.without_apply_rng(hk.transform(f))\nx = jnp.zeros((0, 1, 3))\n"
                                    "out = model.apply(model.init(jax.random.key(0), x), x)"),
    "equinox cell of one feature": ("import equinox as eqx", "cell = eqx.nn.GRUCell(1, 1, key=jax.random.key(0))\n"
                                    "out = cell(jnp.zeros((1,)), jnp.zeros((1,)))"),
    "equinox pool of one": ("import equinox as eqx", "out = eqx.nn.MaxPool1d(1)(jnp.zeros((1, 1)))"),
    "equinox batch norm of one": ("import equinox as eqx", "model, state = eqx.nn.make_with_state(eqx.nn.BatchNorm)(1, "
                                  "'batch', mode='batch')\nout = jax.vmap(model, axis_name='batch', in_axes=(0, None), "
                                  "out_axes=(0, None))(jnp.zeros((1, 1)), state)[0]"),
    "einsum of ones": ("import flax.linen as nn", "model = nn.Einsum((1, 1), 'bi,ij->bj')\nx = jnp.zeros((1, 1))\n"
                       "out = model.apply(model.init(jax.random.key(0), x), x)"),
}


@pytest.mark.parametrize("name", sorted(TRIVIAL))
def test_trivial_cases_agree_with_the_libraries(name: str) -> None:
    """Sizes of 1, empty sequences and batches: accepted by the libraries, inferred by the checker."""
    imports, body = TRIVIAL[name]
    agree(f"import jax\nimport jax.numpy as jnp\n{imports}\n\n{body}\n", CODES)
