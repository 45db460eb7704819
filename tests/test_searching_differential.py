"""Searching, counting and selecting against JAX: searchsorted, digitize, interp, isin, select,
nonzero, argwhere, flatnonzero and unique with a static size, bincount with a static length,
tri, and jnp.cross and jnp.linalg.cross, each on `jnp.zeros` of drawn shapes (rank 0 to 3,
sizes 1 to 4: sequences that are 1-d or not, lengths that agree or not, vectors of 2, 3 or 4
along drawn axes). Where JAX accepts, the checker reports nothing and infers the shape and
dtype of `out`; where it raises, the checker reports it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases

pytest.importorskip("jax")

CASES = cases(150)
CODES = frozenset({"SC101", "SC106", "SC107", "SC301"})

SIZES = st.integers(1, 4)


def _zeros(shape: list[int], dtype: str = "jnp.float32") -> str:
    return "jnp.zeros((" + "".join(f"{size}, " for size in shape) + f"), {dtype})"


@st.composite
def searching_programs(draw: st.DrawFn) -> str:
    shape = draw(st.lists(SIZES, max_size=3))
    other = draw(st.lists(SIZES, max_size=3))
    vector = draw(st.sampled_from(([draw(SIZES)], [draw(SIZES)], other)))  # mostly 1-d
    name = draw(st.sampled_from(("searchsorted", "digitize", "interp", "isin", "select", "nonzero", "argwhere",
                                 "flatnonzero", "unique", "bincount", "tri", "cross", "linalg.cross")))
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32")))
    if name == "searchsorted":
        body = f"out = jnp.searchsorted({_zeros(vector)}, {_zeros(shape, dtype)})"
    elif name == "digitize":
        body = f"out = jnp.digitize({_zeros(shape, dtype)}, {_zeros(vector)})"
    elif name == "interp":
        length = vector[0] if len(vector) == 1 and draw(st.integers(0, 3)) else draw(SIZES)
        body = f"out = jnp.interp({_zeros(shape, dtype)}, {_zeros(vector)}, {_zeros([length])})"
    elif name == "isin":
        body = f"out = jnp.isin({_zeros(shape, dtype)}, {_zeros(other)})"
    elif name == "select":
        count = draw(st.integers(1, 3))
        conditions = ", ".join(_zeros(draw(st.sampled_from((shape, shape[1:], other))), "jnp.bool_")
                               for _ in range(count))
        choices = ", ".join(_zeros(draw(st.sampled_from((shape, shape[-1:], other))), dtype)
                            for _ in range(count + draw(st.sampled_from((0, 0, 0, 1)))))
        fallback = f", {draw(st.sampled_from(('0.5', '0', _zeros(shape[-1:]))))}" if draw(st.booleans()) else ""
        body = f"out = jnp.select([{conditions}], [{choices}]{fallback})"
    elif name in ("nonzero", "argwhere", "flatnonzero", "unique"):
        size = draw(st.integers(0, 5))
        call = f"jnp.{name}({_zeros(shape, dtype)}, size={size})"
        body = f"out = {call}[0]" if name == "nonzero" else f"out = {call}"
    elif name == "bincount":
        body = f"out = jnp.bincount({_zeros(vector, dtype)}, length={draw(st.integers(0, 5))})"
    elif name == "tri":
        columns = f", {draw(SIZES)}" if draw(st.booleans()) else ""
        body = f"out = jnp.tri({draw(SIZES)}{columns}, k={draw(st.integers(-2, 2))})"
    else:
        a = [*draw(st.lists(SIZES, max_size=2)), draw(st.sampled_from((2, 3, 3, 4)))]
        b = [*draw(st.sampled_from((a[:-1], a[:-1], a[1:-1], draw(st.lists(SIZES, max_size=2))))),
             draw(st.sampled_from((2, 3, 3, 4)))]
        if name == "cross" and draw(st.booleans()):
            options = f", axis={draw(st.integers(-3, 2))}"
            b = list(a)
        elif name == "cross" and draw(st.booleans()):
            options = f", axisc={draw(st.integers(-2, 1))}"
        else:
            options = ""
        body = f"out = jnp.{name}({_zeros(a)}, {_zeros(b)}{options})"
    return f"import jax.numpy as jnp\n\n{body}\n"


@given(searching_programs())
@CASES
def test_searching_agrees_with_jax(program: str) -> None:
    agree(program, CODES)


@pytest.mark.parametrize("body", [
    "out = jnp.searchsorted(jnp.zeros((5, 2)), jnp.zeros((3,)))",  # the sorted sequence is 2-d
    "out = jnp.interp(jnp.zeros((2, 3)), jnp.zeros((5,)), jnp.zeros((4,)))",  # xp and fp of two lengths
    "out = jnp.select([jnp.zeros((3,), jnp.bool_)], [jnp.zeros((3,)), jnp.zeros((3,))])",
    "out = jnp.select([jnp.zeros((2, 3), jnp.bool_)], [jnp.zeros((3,))])",  # (2, 3)
    "out = jnp.argwhere(jnp.zeros((2, 3)), size=4)",  # (4, 2)
    "out = jnp.bincount(jnp.zeros((5,)), length=7)",  # floats are not counted
    "out = jnp.cross(jnp.zeros((5, 2)), jnp.zeros((5, 2)))",  # two 2-vectors: a scalar each, (5,)
    "out = jnp.cross(jnp.zeros((5, 4)), jnp.zeros((5, 3)))",
    "out = jnp.linalg.cross(jnp.zeros((5, 2)), jnp.zeros((2,)))",  # linalg's takes 3-vectors only
    "out = jnp.select([], [])",  # no condition: JAX refuses
    "out = jnp.unique(jnp.zeros((2, 3)), size=0)",  # (0,)
    "out = jnp.interp(jnp.zeros((0,)), jnp.zeros((1,)), jnp.zeros((1,)))",  # no queries: (0,)
])
def test_fixed_programs(body: str) -> None:
    agree(f"import jax.numpy as jnp\n\n{body}\n", CODES)


@st.composite
def writing_programs(draw: st.DrawFn) -> str:
    """put_along_axis and fill_diagonal (with inplace=False, as JAX takes them), piecewise, and
    apply_along_axis over a drawn axis with functions of a 1-d slice."""
    shape = draw(st.lists(SIZES, max_size=3))
    name = draw(st.sampled_from(("put_along_axis", "fill_diagonal", "piecewise", "apply_along_axis")))
    if name == "put_along_axis":
        indices = [*shape[:-1], 1] if shape and draw(st.integers(0, 3)) else draw(st.lists(SIZES, max_size=3))
        values = draw(st.sampled_from(("1.0", _zeros(indices[-1:]), _zeros(draw(st.lists(SIZES, max_size=2))))))
        axis = draw(st.integers(-len(shape), max(len(shape) - 1, 0)))
        body = (f"out = jnp.put_along_axis({_zeros(shape)}, {_zeros(indices, 'jnp.int32')}, {values}, "
                f"axis={axis}, inplace=False)")
    elif name == "fill_diagonal":
        if draw(st.booleans()):
            n = draw(SIZES)
            shape = [n] * draw(st.integers(2, 3))
        body = f"out = jnp.fill_diagonal({_zeros(shape)}, 1.0, inplace=False)"
    elif name == "piecewise":
        count = draw(st.integers(1, 3))
        conditions = ", ".join(_zeros(draw(st.sampled_from((shape, shape[1:]))), "jnp.bool_") for _ in range(count))
        functions = ", ".join(draw(st.sampled_from(("0.0", "lambda v: v * 2", "1.0")))
                              for _ in range(count + draw(st.sampled_from((0, 1, 1, 2)))))
        body = f"out = jnp.piecewise({_zeros(shape)}, [{conditions}], [{functions}])"
    else:
        function = draw(st.sampled_from(("jnp.sum", "lambda v: jnp.outer(v, v)", "lambda v: v[:2]", "jnp.cumsum")))
        body = f"out = jnp.apply_along_axis({function}, {draw(st.integers(-len(shape) - 1, len(shape)))}, " \
               f"{_zeros(shape)})"
    return f"import jax.numpy as jnp\n\n{body}\n"


@given(writing_programs())
@CASES
def test_writing_agrees_with_jax(program: str) -> None:
    agree(program, CODES | {"SC104"})
