"""lax's structural operators against JAX: broadcast_in_dim, broadcast, reshape, transpose,
concatenate, pad, the reductions, expand_dims, squeeze, rev, collapse, tile, split, iota,
broadcasted_iota, full, the cumulative reductions, argmax, sort and select_n, each on
`jnp.zeros` of a drawn shape (rank 0 to 3, sizes 1 to 4) with drawn dims, sizes and
configurations: right ones, negative ones (lax counts no dim from the end), ones past the
rank, repeated ones, and lists of the wrong length. Where JAX accepts, the checker reports
nothing and infers the shape and dtype of `out`; where it raises, the checker reports it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases

pytest.importorskip("jax")

CASES = cases(200)
CODES = frozenset({"SC101", "SC105", "SC106", "SC107", "SC301"})

SIZES = st.integers(1, 4)


def _tuple(items: list[int] | tuple[int, ...]) -> str:
    return "(" + "".join(f"{item}, " for item in items) + ")"


@st.composite
def dims_of(draw: st.DrawFn, rank: int, size: int | None = None) -> list[int]:
    """Mostly distinct dims in range; sometimes negative, past the rank, repeated, or of another count."""
    count = rank if size is None else size
    picked = draw(st.permutations(range(rank)))[:count] if rank else []
    kind = draw(st.integers(0, 7))
    if kind == 0 and picked:
        picked[0] = draw(st.sampled_from((-1, rank)))
    elif kind == 1 and len(picked) > 1:
        picked[1] = picked[0]
    elif kind == 2:
        picked = picked[:-1] if picked else [0]
    return list(picked)


@st.composite
def structure_programs(draw: st.DrawFn) -> str:
    shape = draw(st.lists(SIZES, max_size=3))
    rank = len(shape)
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32", "jnp.bool_")))
    x = "x"
    name = draw(st.sampled_from((
        "broadcast_in_dim", "broadcast", "reshape", "transpose", "concatenate", "pad", "reduce", "expand_dims",
        "squeeze", "rev", "collapse", "tile", "split", "iota", "full", "cumulative", "argmax", "sort", "select_n")))
    if name == "broadcast_in_dim":
        out_shape = [*draw(st.lists(SIZES, max_size=1)), *[s if draw(st.integers(0, 4)) else draw(SIZES)
                                                            for s in shape]]
        places = list(range(len(out_shape) - rank, len(out_shape)))
        if draw(st.integers(0, 3)) == 0 and places:
            places[draw(st.integers(0, len(places) - 1))] = draw(st.integers(-1, len(out_shape)))
        call = f"lax.broadcast_in_dim({x}, {_tuple(out_shape)}, {_tuple(places)})"
    elif name == "broadcast":
        call = f"lax.broadcast({x}, {_tuple(draw(st.lists(SIZES, max_size=2)))})"
    elif name == "reshape":
        sizes = draw(st.sampled_from(([*shape][::-1], [-1], [2, -1], [max(1, len(shape))])))
        order = f", {_tuple(draw(dims_of(rank)))}" if draw(st.booleans()) else ""
        call = f"lax.reshape({x}, {_tuple(sizes)}{order})"
    elif name == "transpose":
        call = f"lax.transpose({x}, {_tuple(draw(dims_of(rank)))})"
    elif name == "concatenate":
        other = [s if draw(st.integers(0, 3)) else draw(SIZES) for s in shape]
        if draw(st.integers(0, 5)) == 0:
            other = other[1:]
        second = draw(st.sampled_from((dtype, "jnp.float32")))
        call = f"lax.concatenate([{x}, jnp.zeros({_tuple(other)}, {second})], {draw(st.integers(-1, rank))})"
    elif name == "pad":
        config = [(draw(st.integers(-2, 2)), draw(st.integers(-2, 2)), draw(st.integers(-1, 2)))
                  for _ in range(rank + draw(st.sampled_from((0, 0, 0, 1, -1))) if rank else rank)]
        filler = draw(st.sampled_from(("jnp.zeros((), x.dtype)", "0", "0.0", "jnp.zeros((2,), x.dtype)")))
        call = f"lax.pad({x}, {filler}, {[tuple(c) for c in config]})"
    elif name == "reduce":
        op = draw(st.sampled_from(("reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_and")))
        call = f"lax.{op}({x}, {_tuple(draw(dims_of(rank, draw(st.integers(0, rank)))))})"
    elif name == "expand_dims":
        call = f"lax.expand_dims({x}, {_tuple([draw(st.integers(-rank - 1, rank + 1))])})"
    elif name == "squeeze":
        ones = [index for index, size in enumerate(shape) if size == 1]
        picked = ones[:1] if ones and draw(st.booleans()) else [draw(st.integers(-rank - 1, rank))]
        call = f"lax.squeeze({x}, {_tuple(picked)})"
    elif name == "rev":
        call = f"lax.rev({x}, {_tuple(draw(dims_of(rank, draw(st.integers(0, rank)))))})"
    elif name == "collapse":
        start = draw(st.integers(0, rank))
        stop = f", {draw(st.integers(start, rank + 1))}" if draw(st.booleans()) else ""
        call = f"lax.collapse({x}, {start}{stop})"
    elif name == "tile":
        call = f"lax.tile({x}, {_tuple(draw(st.lists(SIZES, min_size=max(rank - 1, 0), max_size=rank + 1)))})"
    elif name == "split":
        axis = draw(st.integers(-1, max(rank, 1)))
        whole = shape[axis] if -rank <= axis < rank else 2
        first = draw(st.integers(0, whole))
        sizes = [first, whole - first + draw(st.sampled_from((0, 0, 0, 1)))]
        return (f"import jax.numpy as jnp\nfrom jax import lax\n\nx = jnp.zeros({_tuple(shape)}, {dtype})\n"
                f"a, b = lax.split({x}, {_tuple(sizes)}, axis={axis})\nout = {draw(st.sampled_from(('a', 'b')))}\n")
    elif name == "iota":
        if draw(st.booleans()):
            call = f"lax.iota(jnp.int32, {draw(SIZES)})"
        else:
            call = f"lax.broadcasted_iota(jnp.int32, {_tuple(shape or [2])}, {draw(st.integers(0, len(shape) + 1))})"
    elif name == "full":
        filler = draw(st.sampled_from(("1.0", "2", "jnp.float32(1)")))
        given_dtype = draw(st.sampled_from(("", ", jnp.int32", ", None")))
        call = f"lax.full({_tuple(shape)}, {filler}{given_dtype})"
    elif name == "cumulative":
        op = draw(st.sampled_from(("cumsum", "cumprod", "cummax", "cummin")))
        call = f"lax.{op}({x}, {draw(st.integers(-rank - 1, rank))})"
    elif name == "argmax":
        call = f"lax.{draw(st.sampled_from(('argmax', 'argmin')))}({x}, {draw(st.integers(0, rank))}, jnp.int32)"
    elif name == "sort":
        call = f"lax.sort({x}, dimension={draw(st.integers(-rank - 1, rank))})"
    else:
        which = draw(st.sampled_from((f"jnp.zeros({_tuple(shape)}, jnp.bool_)", "jnp.zeros((), jnp.int32)",
                                      "jnp.zeros((), jnp.bool_)", f"jnp.zeros({_tuple(shape)}, jnp.float32)")))
        other = [s if draw(st.integers(0, 4)) else draw(SIZES) for s in shape]
        cases_ = ", ".join([x, f"jnp.zeros({_tuple(other)}, {dtype})"][:2] + [x] * draw(st.integers(0, 1)))
        call = f"lax.select_n({which}, {cases_})"
    if dtype == "jnp.bool_" and name in ("cumulative", "argmax", "sort"):
        call = call.replace("(x,", "(x.astype(jnp.float32),")  # bool cumsums and argmax: JAX's own dtype rules
    return f"import jax.numpy as jnp\nfrom jax import lax\n\nx = jnp.zeros({_tuple(shape)}, {dtype})\nout = {call}\n"


@given(structure_programs())
@CASES
def test_lax_structure_agrees_with_jax(program: str) -> None:
    agree(program, CODES)


@pytest.mark.parametrize("call", [
    "lax.broadcast_in_dim(jnp.zeros((3,)), (2, 3), (0,))",  # 3 goes to a dim of size 2
    "lax.broadcast_in_dim(jnp.zeros((3, 4)), (4, 3), (1, 0))",  # any distinct dims, in any order
    "lax.reshape(jnp.zeros((2, 3)), (3, -1))",  # no -1 in lax
    "lax.transpose(jnp.zeros((2, 3, 4)), (-1, 0, 1))",  # no dim from the end
    "lax.concatenate([jnp.zeros((2, 3)), jnp.zeros((4, 3), jnp.int32)], 0)",
    "lax.pad(jnp.zeros((2, 3)), 0.0, [(1, 2, 0), (0, 0, 1)])",  # (5, 5)
    "lax.pad(jnp.zeros((2, 3)), 0.0, [(-3, 0, 0), (0, 0, 0)])",
    "lax.reduce_sum(jnp.zeros((2, 3)), (-1,))",
    "lax.squeeze(jnp.zeros((2, 3)), (1,))",
    "lax.collapse(jnp.zeros((2, 3, 4)), 0, 5)",  # (24,): the stop is clipped as a slice's
    "lax.tile(jnp.zeros((2, 3)), (2,))",
    "lax.select_n(jnp.zeros((), jnp.bool_), jnp.zeros((2,)), jnp.zeros((2,)), jnp.zeros((2,)))",
    "lax.pad(jnp.zeros(()), 0.0, [])",  # a 0-d operand: no dims to pad
    "lax.transpose(jnp.zeros(()), ())",
    "lax.reduce_sum(jnp.zeros((2, 3)), ())",  # no axes: the operand
    "lax.broadcast_in_dim(jnp.zeros(()), (), ())",
    "lax.split(jnp.zeros((0, 3)), (0, 0))[0]",  # pieces of size 0
])
def test_fixed_programs(call: str) -> None:
    agree(f"import jax.numpy as jnp\nfrom jax import lax\n\nout = {call}\n", CODES)
