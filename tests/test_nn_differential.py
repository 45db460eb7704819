"""jax.nn's layers against JAX: dot_product_attention over random (and planted wrong) query,
key, value, bias and mask shapes; one_hot, softmax, log_softmax and standardize over random
axes. JAX traces each program; the checker must report nothing where JAX accepts it and infer
the shape it computes, and report where JAX refuses it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.differential import agree

pytest.importorskip("jax")


@st.composite
def attention_programs(draw: st.DrawFn) -> str:
    rank = draw(st.sampled_from((4, 4, 4, 3, 2, 1, 5)))
    b, t, s, k, h = (draw(st.integers(1, 3)) for _ in range(5))
    n = k * draw(st.integers(1, 3))
    # Fewer than 4 dims: JAX puts 1s in front, so the dims left out are 1s.
    b = 1 if rank <= 3 else b
    t, s = (1, 1) if rank <= 2 else (t, s)
    n, k = (1, 1) if rank <= 1 else (n, k)
    query, key, value = [b, t, n, h], [b, s, k, h], [b, s, k, h]
    mistake = draw(st.sampled_from((None,) * 8 + ("batch", "head", "heads", "value_len", "value_head")))
    if mistake == "batch":
        query[0] += 1
    elif mistake == "head":
        query[3] += 1
    elif mistake == "heads" and k > 1:
        query[2] += 1
    elif mistake == "value_len":
        value[1] += 1
    elif mistake == "value_head":
        value[3] += 1
    shapes = [tuple(dims[4 - rank:]) if rank <= 4 else (1, *dims) for dims in (query, key, value)]
    lines = [f"q = jnp.zeros({shapes[0]!r}, jnp.float32)", f"k = jnp.zeros({shapes[1]!r}, jnp.float32)",
             f"v = jnp.zeros({shapes[2]!r}, jnp.float32)"]
    args = ["q", "k", "v"]
    logits = (b, n, t, s)
    for name, dtype in (("bias", "jnp.float32"), ("mask", "jnp.bool_")):
        if draw(st.booleans()):
            dims = [draw(st.sampled_from((1, size))) for size in logits]
            if draw(st.integers(0, 5)) == 0:
                dims[draw(st.integers(0, 3))] += 1
            dims = dims[draw(st.integers(0, 3)):] if draw(st.booleans()) else dims
            lines.append(f"{name} = jnp.zeros({tuple(dims)!r}, {dtype})")
            args.append(f"{name}={name}")
    if draw(st.booleans()):
        lengths = draw(st.sampled_from(((b,), (b,), (b,), (b + 1,), (b, 1))))
        lines.append(f"lengths = jnp.zeros({lengths!r}, jnp.int32)")
        args.append("query_seq_lengths=lengths")
    if draw(st.booleans()):
        args.append("is_causal=True")
    call = f"jax.nn.dot_product_attention({', '.join(args)})"
    if draw(st.booleans()):
        call = f"jax.nn.dot_product_attention({', '.join([*args, 'return_residual=True'])})[1]"
    body = "\n".join(lines)
    return f"import jax\nimport jax.numpy as jnp\n{body}\nout = {call}\n"


@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(attention_programs())
def test_dot_product_attention_agrees_with_jax(program: str) -> None:
    agree(program, frozenset({"SC101", "SC104", "SC106"}))


@st.composite
def axis_programs(draw: st.DrawFn) -> str:
    shape = tuple(draw(st.lists(st.integers(1, 4), max_size=3)))
    axis = draw(st.integers(-4, 3))
    api = draw(st.sampled_from(("one_hot", "softmax", "log_softmax", "standardize", "standardize_tuple")))
    if api == "one_hot":
        dtype = draw(st.sampled_from(("", ", dtype=jnp.bfloat16", ", dtype=jnp.int32")))
        call = f"jax.nn.one_hot(jnp.zeros({shape!r}, jnp.int32), {draw(st.integers(1, 4))}, axis={axis}{dtype})"
    elif api == "standardize_tuple":
        other = draw(st.integers(-3, 2))
        call = f"jax.nn.standardize(jnp.zeros({shape!r}, jnp.float32), axis=({axis}, {other}))"
    else:
        call = f"jax.nn.{api}(jnp.zeros({shape!r}, jnp.float32), axis={axis})"
    return f"import jax\nimport jax.numpy as jnp\nout = {call}\n"


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(axis_programs())
def test_axes_of_one_hot_softmax_standardize_agree_with_jax(program: str) -> None:
    agree(program, frozenset({"SC106"}))


@pytest.mark.parametrize("call", [
    # The trivially valid: every size 1, one head, no batch.
    "jax.nn.dot_product_attention(jnp.zeros((1, 1, 1, 1)), jnp.zeros((1, 1, 1, 1)), jnp.zeros((1, 1, 1, 1)))",
    "jax.nn.dot_product_attention(jnp.zeros((5, 4, 8)), jnp.zeros((7, 2, 8)), jnp.zeros((7, 2, 8)))",
    "jax.nn.dot_product_attention(jnp.zeros((8,)), jnp.zeros((8,)), jnp.zeros((8,)))",
    "jax.nn.dot_product_attention(jnp.zeros((2, 5, 4, 8)), jnp.zeros((2, 1, 2, 8)), jnp.zeros((2, 1, 2, 8)), "
    "jnp.zeros((1, 1, 5, 7)))",
    "jax.nn.dot_product_attention(jnp.zeros((2, 5, 4, 8)), jnp.zeros((2, 7, 2, 8)), jnp.zeros((2, 7, 2, 8)), "
    "mask=jnp.ones((5, 7), bool), is_causal=True)",
    "jax.nn.dot_product_attention(jnp.zeros((2, 5, 4, 8)), jnp.zeros((2, 7, 0, 8)), jnp.zeros((2, 7, 0, 8)))",
    "jax.nn.one_hot(jnp.zeros((), jnp.int32), 1)",
    "jax.nn.one_hot(jnp.zeros((3,), jnp.int32), 4, axis=0)",
    "jax.nn.softmax(jnp.zeros((1,)))",
    "jax.nn.standardize(jnp.zeros((2, 3)), axis=(0, 1))",
])
def test_cases_agree_with_jax(call: str) -> None:
    agree(f"import jax\nimport jax.numpy as jnp\nout = {call}\n")
