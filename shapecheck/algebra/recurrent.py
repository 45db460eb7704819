"""Recurrent cells of flax.linen, flax.nnx, equinox and haiku: one step's new carry and output from
the carry and the step's input, and the sequence a recurrent layer scans them over.

Each cell is the composition of the operations its library runs (flax `linen/recurrent.py`,
`nnx/nn/recurrent.py`; equinox `nn/_rnn.py`; haiku `_src/recurrent.py`): projections of the input and of the hidden state
to the hidden features, summed into gates (broadcast, so the two must have broadcastable batch
dims), and the gates combined with the carry. The first operation JAX refuses is the step's
problem, as it is where JAX raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from shapecheck.algebra import layers, linalg
from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.layout import concatenate
from shapecheck.algebra.outcome import Outcome, Pieces, Problem
from shapecheck.algebra.split import split
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.types import ArrayType

LSTM: Final = "lstm"  # carry (c, h): a cell state and a hidden state
GATED: Final = "gated"  # carry h; new h = gates mixed with h (GRU, MGU)
SIMPLE: Final = "simple"  # carry h; new h = the gates themselves (residual: plus h)


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a cell: its new carry (arrays in the cell's order), its output, or the problem
    JAX raises on the way (then the carry and output are None)."""

    carry: tuple[ArrayType, ...] | None
    output: ArrayType | None
    problems: tuple[Problem, ...] = ()


class _Refused(Exception):
    def __init__(self, problems: tuple[Problem, ...]) -> None:
        self.problems = problems


def _take(outcome: Outcome) -> ArrayType:
    if outcome.problems:
        raise _Refused(outcome.problems)
    return outcome.type


def _pieces(pieces: Pieces) -> tuple[ArrayType, ...]:
    if pieces.problems:
        raise _Refused(pieces.problems)
    if pieces.types is None:
        raise _Refused(())
    return pieces.types


def hidden_features(h: ArrayType, what: str) -> Dim | Problem:
    """A linen cell's hidden features: `h.shape[-1]` of its carry (an IndexError on a scalar)."""
    if h.rank == 0 and h.ellipsis is None:
        return Problem(Code.AXIS_OUT_OF_RANGE, f"{what} reads its hidden features from the carry's last dim, but "
                       "the carry's hidden state is a scalar; make it with the cell's initialize_carry",
                       axes=(-1,), operands=(0,))
    return h.dims[-1] if h.rank and h.ellipsis is None else None


def flax_step(kind: str, x: ArrayType, carry: Sequence[ArrayType], project: Callable[[ArrayType, bool], Outcome],
              what: str, *, residual: bool = False) -> Step:
    """A flax cell (linen's or nnx's) on `carry` and `x`: `project(value, is_input)` is the
    library's dense layer from the input or from the hidden state to the hidden features. The
    two projections are summed into the gates, which broadcast against the carry."""
    try:
        h = carry[-1]
        xi = _take(project(x, True))
        hh = _take(project(h, False))
        gates = _take(broadcast([xi, hh], (f"{what}'s projection of its input {x.positional_text()}",
                                           f"its projection of the hidden state {h.positional_text()}")))
        if kind == LSTM:
            c = carry[0]
            new_c = _take(broadcast([gates, c], (f"{what}'s gates", f"the cell state c {c.positional_text()}")))
            new_h = _take(broadcast([gates, new_c]))
            return Step((new_c, new_h), new_h)
        if kind == GATED or residual:
            new_h = _take(broadcast([gates, h], (f"{what}'s gates", f"the hidden state {h.positional_text()}")))
        else:
            new_h = gates
        return Step((new_h,), new_h)
    except _Refused as refused:
        return Step(None, None, refused.problems)


def equinox_step(kind: str, x: ArrayType, carry: Sequence[ArrayType], input_size: Dim, hidden_size: Dim,
                 dtype: str | None, use_bias: bool, what: str) -> Step:
    """`eqx.nn.GRUCell(input_size, hidden_size)(x, h)` (`kind` GATED) and `eqx.nn.LSTMCell`
    (LSTM, carry `(h, c)`): the weights `(gates * hidden_size, input_size)` and `(gates *
    hidden_size, hidden_size)` applied with `@` (x and h are one example each; a batch is vmapped),
    split into the gates along the first dim."""
    gates = 4 if kind == LSTM else 3
    rows = gates * hidden_size if isinstance(hidden_size, int) else None
    weight_ih = ArrayType(dtype, (rows, input_size))
    weight_hh = ArrayType(dtype, (rows, hidden_size))
    h = carry[0]
    try:
        ih = _take(linalg.matmul(weight_ih, x, (f"{what}'s weight_ih", "the input")))
        hh = _take(linalg.matmul(weight_hh, h, (f"{what}'s weight_hh", "the hidden state")))
        bias = ArrayType(dtype, (rows,))
        if kind == LSTM:
            lin = _take(broadcast([ih, hh], (f"{what}'s weight_ih @ input", "its weight_hh @ hidden state")))
            if use_bias:
                lin = _take(broadcast([lin, bias], (f"{what}'s gates", f"its bias {bias.positional_text()}")))
            i, f, g, o = _pieces(split(lin, 4, 0, what=f"{what}'s gates"))
            c = carry[1]
            new_c = _take(broadcast([_take(broadcast([f, c], (f"{what}'s forget gate", "the cell state c"))),
                                     _take(broadcast([i, g]))]))
            new_h = _take(broadcast([o, new_c]))
            return Step((new_h, new_c), None)
        if use_bias:
            ih = _take(broadcast([ih, bias], (f"{what}'s weight_ih @ input", f"its bias {bias.positional_text()}")))
        ir, iz, i_n = _pieces(split(ih, 3, 0, what=f"{what}'s input gates"))
        hr, hz, hn = _pieces(split(hh, 3, 0, what=f"{what}'s hidden gates"))
        sides = (f"{what}'s gates from its input", "its gates from the hidden state")
        reset = _take(broadcast([ir, hr], sides))
        update = _take(broadcast([iz, hz], sides))
        if use_bias:
            hn = _take(broadcast([hn, ArrayType(dtype, (hidden_size,))]))
        new = _take(broadcast([i_n, _take(broadcast([reset, hn]))]))
        mixed = _take(broadcast([update, _take(broadcast([h, new], ("the hidden state", f"{what}'s candidate")))]))
        new_h = _take(broadcast([new, mixed]))
        return Step((new_h,), new_h)
    except _Refused as refused:
        return Step(None, None, refused.problems)


def initial_carry(input_shape: tuple[Dim, ...], features: Dim, dtype: str | None, kind: str) -> tuple[ArrayType, ...]:
    """A flax cell's `initialize_carry(..., input_shape)`: `input_shape[:-1] + (features,)`, of the
    parameters' dtype; two of them, `(c, h)`, for an LSTM."""
    state = ArrayType(dtype, (*input_shape[:-1], features))
    return (state, state) if kind == LSTM else (state,)


def time_axis(x: ArrayType, time_major: bool) -> int | None:
    """Where a flax RNN reads time in its input: first when time-major, else just before the
    features (`(*batch, time, features)`); None where the rank is not known."""
    if x.rank is None or x.ellipsis is not None:
        return None
    axis = 0 if time_major else x.rank - 2
    return axis + x.rank if axis < 0 else axis


def without_time(x: ArrayType, axis: int, what: str = "an RNN", expected: str = "(*batch, time, features)"
                 ) -> tuple[ArrayType, Dim] | Problem:
    """One step of `x` (without the axis scanned, `axis`, non-negative) and the number of steps;
    SC106 where `x` has no dim there. `what` scans, `expected` is the input it wants."""
    if not 0 <= axis < len(x.dims):
        return Problem(Code.AXIS_OUT_OF_RANGE, f"{what} scans its input over axis {axis}, but the input is "
                       f"{x.positional_text()}, with no dim there; give it {expected}",
                       axes=(axis,), operands=(0,))
    dims = x.dims[:axis] + x.dims[axis + 1:]
    return ArrayType(x.dtype, dims, x.named, None, x.named_open, x.weak), x.dims[axis]


def step_count(what: str, lengths: Sequence[Dim], length: Dim = None) -> tuple[Dim, Problem | None]:
    """The number of steps of a layer's scan: the sizes of the axes it scans (and `length=` where
    given), which must agree (SC102, as JAX's scan raises)."""
    known = sorted({size for size in (*lengths, length) if isinstance(size, int)})
    if len(known) > 1:
        given = f" and length={length}" if isinstance(length, int) else ""
        return None, Problem(Code.NAMED_SIZE_MISMATCH, f"{what} slices its inputs into one count of steps, but the "
                             f"axes it scans{given} have sizes {', '.join(str(size) for size in known)}",
                             sizes=tuple(known))
    return (known[0] if known else None), None


def with_time(y: ArrayType, axis: int, length: Dim) -> ArrayType | None:
    """The outputs of every step stacked along `axis` (a step's output `y`); None where `y` has
    fewer dims than that."""
    if y.rank is None or y.ellipsis is not None or axis > y.rank:
        return None
    return ArrayType(y.dtype, (*y.dims[:axis], length, *y.dims[axis:]), y.named, None, y.named_open, y.weak)


def _haiku_rank(x: ArrayType, what: str) -> Problem | None:
    """haiku's LSTM and GRU take one example or a batch: inputs of rank 1 or 2 (a ValueError)."""
    if x.rank is not None and x.ellipsis is None and x.rank not in (1, 2):
        return Problem(Code.ANNOTATION_MISMATCH, f"{what} takes inputs of rank 1 or 2 (features, or batch and "
                       f"features), but its input is {x.positional_text()}", operands=(0,))
    return None


def haiku_lstm(x: ArrayType, hidden: ArrayType, cell: ArrayType, hidden_size: Dim) -> Step:
    """`hk.LSTM(hidden_size)(x, LSTMState(hidden, cell))`: x and the hidden state concatenated
    (equal batch dims, no broadcasting), one Linear to four gates, the cell state broadcast with
    them. The carry is `(hidden, cell)`."""
    what = "hk.LSTM"
    problem = _haiku_rank(x, what)
    if problem is not None:
        return Step(None, None, (problem,))
    try:
        joined = _take(concatenate([x, hidden], -1, (f"{what}'s input {x.positional_text()}",
                                                     f"its state's hidden {hidden.positional_text()}")))
        gates = 4 * hidden_size if isinstance(hidden_size, int) else None
        i, g, f, o = _pieces(split(_take(layers.haiku_linear(joined, gates, what)), 4, -1, what=f"{what}'s gates"))
        new_c = _take(broadcast([_take(broadcast([f, cell], (f"{what}'s forget gate",
                                                             f"its state's cell {cell.positional_text()}"))),
                                 _take(broadcast([i, g]))]))
        new_h = _take(broadcast([o, new_c]))
        return Step((new_h, new_c), new_h)
    except _Refused as refused:
        return Step(None, None, refused.problems)


def haiku_gru(x: ArrayType, state: ArrayType, hidden_size: Dim) -> Step:
    """`hk.GRU(hidden_size)(x, state)`: x times `w_i` `(features, 3 * hidden)`, the state times
    `w_h`'s `(hidden, 2 * hidden)` and `(hidden, hidden)` parts (a state of other features is a
    contraction mismatch), the weights of x's dtype."""
    what = "hk.GRU"
    problem = _haiku_rank(x, what)
    if problem is not None:
        return Step(None, None, (problem,))
    size = hidden_size if isinstance(hidden_size, int) else None
    double = 2 * size if size is not None else None
    try:
        features = x.dims[-1] if x.rank and x.ellipsis is None else None
        w_i = ArrayType(x.dtype, (features, 3 * size if size is not None else None))
        zr_x, a_x = _pieces(split(_take(linalg.matmul(x, w_i)), [double], -1, what=f"{what}'s input gates"))
        zr_h = _take(linalg.matmul(state, ArrayType(x.dtype, (size, double)), ("the state", f"{what}'s w_h")))
        gates = _take(broadcast([zr_x, zr_h], (f"{what}'s gates from its input {x.positional_text()}",
                                               f"its gates from the state {state.positional_text()}")))
        z, r = _pieces(split(gates, 2, -1, what=f"{what}'s gates"))
        reset = _take(broadcast([r, state], (f"{what}'s reset gate", f"the state {state.positional_text()}")))
        a = _take(broadcast([a_x, _take(linalg.matmul(reset, ArrayType(x.dtype, (size, size))))]))
        new = _take(broadcast([_take(broadcast([z, state])), _take(broadcast([z, a]))]))
        return Step((new,), new)
    except _Refused as refused:
        return Step(None, None, refused.problems)


def haiku_initial_state(hidden_size: Dim, batch: Dim | None, dtype: str | None, count: int) -> tuple[ArrayType, ...]:
    """`core.initial_state(batch_size)`: zeros of `(hidden_size,)`, with a leading batch dim where
    `batch` is not None (`count` of them: an LSTM's hidden and cell)."""
    state = ArrayType(dtype, (hidden_size,) if batch is None else (batch, hidden_size))
    return (state,) * count


def swapped(x: ArrayType, what: str) -> ArrayType | Problem:
    """`x` with its first two dims swapped (haiku's batch-major sequences): SC106 under two dims."""
    if x.rank is not None and x.ellipsis is None and x.rank < 2:
        return Problem(Code.AXIS_OUT_OF_RANGE, f"{what} with time_major=False reads (batch, time, ...), but the "
                       f"input is {x.positional_text()}", axes=(1,), operands=(0,))
    if x.rank is None or x.ellipsis is not None:
        return ArrayType(x.dtype, (), x.named, 0, x.named_open, x.weak)
    return ArrayType(x.dtype, (x.dims[1], x.dims[0], *x.dims[2:]), x.named, None, x.named_open, x.weak)
