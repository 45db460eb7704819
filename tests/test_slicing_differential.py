"""jax.lax's slices against JAX: each drawn program slices, or updates a block of, `jnp.zeros`
of a drawn shape with drawn sizes, limits, strides, starts and axes (some beyond the operand).
Where JAX accepts, the checker reports nothing and infers the result's shape and dtype; where it
raises, the checker reports it (`tests.differential.agree`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases

pytest.importorskip("jax")

CASES = cases(150)

PROGRAM = """\
import jax.numpy as jnp
from jax import lax

x = jnp.zeros({shape}, {dtype})
out = {call}
"""

SIZES = st.integers(0, 6)


def _tuple(items: list[int]) -> str:
    return "(" + "".join(f"{item}, " for item in items) + ")"


@st.composite
def near(draw: st.DrawFn, dims: list[int]) -> list[int]:
    """Per dim, a size within it mostly, sometimes beyond it; sometimes one too few or many."""
    found = [draw(st.integers(0, d)) if draw(st.integers(0, 4)) else draw(st.integers(-1, d + 2)) for d in dims]
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return found[:-1]
    if kind == 1:
        return [*found, draw(SIZES)]
    return found


@st.composite
def slice_programs(draw: st.DrawFn) -> str:
    dims = draw(st.lists(st.integers(1, 6), min_size=1, max_size=3))
    rank = len(dims)
    kind = draw(st.sampled_from(("dynamic_slice", "dynamic_update_slice", "slice", "dynamic_slice_in_dim",
                                 "dynamic_update_slice_in_dim", "dynamic_index_in_dim", "slice_in_dim",
                                 "index_in_dim")))
    starts = _tuple(draw(near(dims)) if draw(st.integers(0, 5)) == 0 else [0] * rank)
    axis = draw(st.integers(-rank - 1, rank))
    if kind == "dynamic_slice":
        call = f"lax.dynamic_slice(x, {starts}, {_tuple(draw(near(dims)))})"
    elif kind == "dynamic_update_slice":
        update = [max(size, 0) for size in draw(near(dims))]
        call = f"lax.dynamic_update_slice(x, jnp.ones({_tuple(update)}, x.dtype), {starts})"
    elif kind == "slice":
        limits = draw(near(dims))
        first = [draw(st.integers(-1, max(limit, 0) + 1)) for limit in limits]
        strides = draw(st.one_of(st.none(), st.lists(st.integers(1, 3), min_size=len(limits), max_size=len(limits))))
        call = f"lax.slice(x, {_tuple(first)}, {_tuple(limits)}" + (f", {_tuple(strides)})" if strides else ")")
    elif kind == "dynamic_slice_in_dim":
        call = f"lax.dynamic_slice_in_dim(x, 0, {draw(st.integers(0, max(dims) + 1))}, axis={axis})"
    elif kind == "dynamic_update_slice_in_dim":
        update = [max(size, 0) for size in draw(near(dims))]
        call = f"lax.dynamic_update_slice_in_dim(x, jnp.ones({_tuple(update)}, x.dtype), 1, axis={axis})"
    elif kind == "slice_in_dim":
        bounds = [draw(st.one_of(st.none(), st.integers(-max(dims) - 1, max(dims) + 1))) for _ in range(2)]
        call = f"lax.slice_in_dim(x, {bounds[0]}, {bounds[1]}, {draw(st.integers(1, 3))}, axis={axis})"
    elif kind == "index_in_dim":
        index = draw(st.integers(-max(dims) - 1, max(dims)))
        call = f"lax.index_in_dim(x, {index}, axis={axis}, keepdims={draw(st.booleans())})"
    else:
        call = f"lax.dynamic_index_in_dim(x, 0, axis={axis}, keepdims={draw(st.booleans())})"
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32")))
    return PROGRAM.format(shape=_tuple(dims), dtype=dtype, call=call)


@given(slice_programs())
@CASES
def test_lax_slices_agree_with_jax(program: str) -> None:
    agree(program, frozenset({"SC106", "SC107"}))


@pytest.mark.parametrize(("call", "code"), [
    ("jnp.cumsum(x, axis=2)", "SC106"),
    ("jnp.cumprod(x, axis=-3)", "SC106"),
    ("x.cumsum(axis=5)", "SC106"),
])
def test_a_cumulative_axis_beyond_the_rank_is_reported(call: str, code: str) -> None:
    agree(PROGRAM.format(shape="(8, 5)", dtype="jnp.float32", call=call), frozenset({code}))


def test_a_cumulative_axis_within_the_rank_keeps_the_shape() -> None:
    agree(PROGRAM.format(shape="(8, 5)", dtype="jnp.float32", call="jnp.cumsum(x, axis=-2)"))
