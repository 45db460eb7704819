"""jnp.fft against JAX: each drawn program transforms `jnp.zeros` of a drawn shape and dtype
along drawn axes, with drawn lengths (some below 1, axes beyond the rank). Where JAX accepts,
the checker reports nothing and infers the shape and dtype of `out`; where it raises, the
checker reports it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases

pytest.importorskip("jax")

CASES = cases(150)

PROGRAM = """\
import jax.numpy as jnp

x = jnp.zeros({shape}, {dtype})
out = {call}
"""


@st.composite
def fft_programs(draw: st.DrawFn) -> str:
    dims = draw(st.lists(st.integers(1, 6), min_size=0, max_size=3))
    rank = len(dims)
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32", "jnp.complex64", "bool")))
    name = draw(st.sampled_from(("fft", "ifft", "rfft", "irfft", "hfft", "fft2", "rfft2", "irfft2", "fftn",
                                 "ifftn", "fftshift", "fftfreq", "rfftfreq")))
    if name in ("rfft", "rfft2") and dtype == "jnp.complex64":
        dtype = "jnp.float32"  # JAX refuses complex input there: a dtype rule, not followed
    options = []
    if name in ("fft", "ifft", "rfft", "irfft", "hfft"):
        if draw(st.booleans()):
            options.append(f"n={draw(st.integers(0, 8))}")
        if draw(st.booleans()):
            options.append(f"axis={draw(st.integers(-rank - 1, rank))}")
    elif name in ("fft2", "rfft2", "irfft2", "fftn", "ifftn"):
        count = 2 if name.endswith("2") else draw(st.integers(1, max(rank, 1)))
        if draw(st.booleans()):
            options.append(f"s={tuple(draw(st.integers(1, 7)) for _ in range(count))!r}")
        if draw(st.booleans()):
            picked = draw(st.lists(st.integers(-rank - 1, rank), min_size=count, max_size=count, unique=True))
            options.append(f"axes={tuple(picked)!r}")
    elif name == "fftshift":
        if draw(st.booleans()):
            options.append(f"axes={draw(st.integers(-rank - 1, rank))}")
    else:
        return PROGRAM.format(shape="()", dtype="jnp.float32", call=f"jnp.fft.{name}({draw(st.integers(1, 9))})")
    call = f"jnp.fft.{name}(x{''.join(', ' + option for option in options)})"
    return PROGRAM.format(shape="(" + "".join(f"{d}, " for d in dims) + ")", dtype=dtype, call=call)


@given(fft_programs())
@CASES
def test_fft_agrees_with_jax(program: str) -> None:
    agree(program, frozenset({"SC106", "SC107"}))


@pytest.mark.parametrize("call", [
    "jnp.fft.fft(x, axis=2)",
    "jnp.fft.rfft(x, n=0)",
    "jnp.fft.irfft(x, axis=-3)",
    "jnp.fft.fft2(x[0])",
    "jnp.fft.irfft2(x, s=(3, 9))",
])
def test_fixed_programs(call: str) -> None:
    agree(PROGRAM.format(shape="(4, 6)", dtype="jnp.float32", call=call), frozenset({"SC106", "SC107"}))
