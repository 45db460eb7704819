"""lax.conv_general_dilated, lax.conv_transpose and lax.reduce_window against JAX: random layouts, strides,
dilations, paddings and groups, some of them planted wrong. JAX traces each program; the
checker must report nothing where JAX accepts it and infer the shape it computes, and report
(SC002 or SC104) where JAX refuses it."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.differential import agree

pytest.importorskip("jax")

CONV_CODES = frozenset({"SC002", "SC104"})
SPATIAL = "HWD"
MISTAKES = ("in_features", "out_groups", "strides_count", "padding_name", "pairs_count", "string_lhs_dilation",
            "kernel_rank", "spec_length", "negative_padding", "batch_groups", "zero_groups", "spec_letters")


@st.composite
def conv_programs(draw: st.DrawFn) -> str:
    n = draw(st.integers(1, 2))
    chars = SPATIAL[:n]
    rng = random.Random(draw(st.integers(0, 2**16)))
    layout = draw(st.sampled_from(("default", "channels_last", "random")))
    if layout == "default":
        specs = ("NC" + chars, "OI" + chars, "NC" + chars)
    elif layout == "channels_last":
        specs = ("N" + chars + "C", chars + "IO", "N" + chars + "C")
    else:
        specs = tuple("".join(rng.sample(pair + chars, n + 2)) for pair in ("NC", "OI", "NC"))
    groups = draw(st.sampled_from((1, 1, 1, 2, 3)))
    batch_groups = draw(st.sampled_from((1, 1, 1, 1, 2))) if groups == 1 else 1
    per_group = draw(st.integers(1, 3))
    sizes = {"N": draw(st.integers(1, 3)) * batch_groups, "C": per_group * groups,
             "O": draw(st.integers(1, 2)) * groups * batch_groups, "I": per_group}
    for c in chars:
        sizes[c] = draw(st.integers(0, 7))
    kernel = {c: draw(st.integers(1, 4)) for c in chars}
    strides = [draw(st.integers(1, 3)) for _ in chars]
    rhs_dilation = [draw(st.integers(1, 2)) for _ in chars] if draw(st.booleans()) else None
    lhs_dilation = None
    padding: str | list[tuple[int, int]] = draw(st.sampled_from(("SAME", "VALID", "SAME_LOWER", "same", "pairs")))
    if padding == "pairs":
        padding = [(draw(st.integers(-2, 3)), draw(st.integers(-2, 3))) for _ in chars]
        lhs_dilation = [draw(st.integers(1, 2)) for _ in chars] if draw(st.booleans()) else None
    mistake = draw(st.sampled_from((None,) * 12 + MISTAKES))
    if mistake == "in_features":
        sizes["I"] += 1
    elif mistake == "out_groups" and groups > 1:
        sizes["O"] += 1
    elif mistake == "strides_count":
        strides.append(1)
    elif mistake == "padding_name":
        padding = "FULL"
    elif mistake == "pairs_count":
        padding = [(0, 0)] * (n + 1)
    elif mistake == "string_lhs_dilation":
        padding, lhs_dilation = "SAME", [2] * n
    elif mistake == "negative_padding":
        padding = [(-8, -1)] * n
    elif mistake == "batch_groups" and groups == 1:
        batch_groups = 2
        sizes["N"] = 2 * sizes["N"] + 1
    elif mistake == "zero_groups":
        groups = 0
    lhs = tuple(sizes[c] for c in specs[0])
    rhs = [sizes[c] if c in "OI" else kernel[c] for c in specs[1]]
    if mistake == "kernel_rank":
        rhs = rhs[1:]
    options = []
    if lhs_dilation is not None:
        options.append(f"lhs_dilation={tuple(lhs_dilation)}")
    if rhs_dilation is not None:
        options.append(f"rhs_dilation={tuple(rhs_dilation)}")
    if layout != "default" or mistake in ("spec_length", "spec_letters"):
        written = list(specs)
        if mistake == "spec_length":
            written[0] = written[0] + "X"
        elif mistake == "spec_letters":
            written[1] = written[1].replace("O", "N")
        options.append(f"dimension_numbers={tuple(written)!r}")
    if groups != 1:
        options.append(f"feature_group_count={groups}")
    if batch_groups != 1:
        options.append(f"batch_group_count={batch_groups}")
    padding_text = repr(padding) if isinstance(padding, str) else repr(tuple(padding))
    call = ", ".join(["lhs", "rhs", repr(tuple(strides)), padding_text, *options])
    return f"""
        import jax.numpy as jnp
        from jax import lax
        lhs = jnp.zeros({lhs!r}, jnp.float32)
        rhs = jnp.zeros({tuple(rhs)!r}, jnp.float32)
        out = lax.conv_general_dilated({call})
        """


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(conv_programs())
def test_conv_general_dilated_agrees_with_jax(program: str) -> None:
    agree(program, CONV_CODES)


@st.composite
def conv_transpose_programs(draw: st.DrawFn) -> str:
    n = draw(st.integers(1, 2))
    chars = SPATIAL[:n]
    layout = draw(st.sampled_from(("default", "channels_first")))
    specs = ("N" + chars + "C", chars + "IO", "N" + chars + "C") if layout == "default" else \
        ("NC" + chars, "OI" + chars, "NC" + chars)
    transpose_kernel = draw(st.booleans())
    sizes = {"N": draw(st.integers(1, 2)), "C": draw(st.integers(1, 3)), "O": draw(st.integers(1, 3))}
    sizes["I"] = sizes["C"]
    if transpose_kernel:
        sizes["I"], sizes["O"] = sizes["O"], sizes["C"]
    for c in chars:
        sizes[c] = draw(st.integers(1, 6))
    kernel = {c: draw(st.integers(1, 4)) for c in chars}
    strides = tuple(draw(st.integers(1, 3)) for _ in chars)
    padding: object = draw(st.sampled_from(("SAME", "VALID", "same", "pairs")))
    if padding == "pairs":
        padding = tuple((draw(st.integers(0, 3)), draw(st.integers(0, 3))) for _ in chars)
    options = []
    if draw(st.booleans()):
        options.append(f"rhs_dilation={tuple(draw(st.integers(1, 2)) for _ in chars)!r}")
    if layout != "default":
        options.append(f"dimension_numbers={specs!r}")
    if transpose_kernel:
        options.append("transpose_kernel=True")
    if padding != "same" and draw(st.booleans()):
        options.append("use_consistent_padding=True")
    if draw(st.integers(0, 4)) == 0:
        sizes["C"] += 1  # planted: the input's features do not fit the kernel
    lhs = tuple(sizes[c] for c in specs[0])
    rhs = tuple(sizes[c] if c in "OI" else kernel[c] for c in specs[1])
    call = ", ".join(["lhs", "rhs", repr(strides), repr(padding), *options])
    return f"""
        import jax.numpy as jnp
        from jax import lax
        lhs = jnp.zeros({lhs!r}, jnp.float32)
        rhs = jnp.zeros({rhs!r}, jnp.float32)
        out = lax.conv_transpose({call})
        """


@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(conv_transpose_programs())
def test_conv_transpose_agrees_with_jax(program: str) -> None:
    agree(program, CONV_CODES)


@st.composite
def pool_programs(draw: st.DrawFn) -> str:
    rank = draw(st.integers(1, 3))
    shape = [draw(st.integers(0, 7)) for _ in range(rank)]
    window = [draw(st.integers(1, 4)) for _ in range(rank)]
    strides: list[int] | None = [draw(st.integers(1, 3)) for _ in range(rank)] if draw(st.booleans()) else None
    padding: str | list[tuple[int, int]] = draw(st.sampled_from(("SAME", "VALID", "SAME_LOWER", "pairs")))
    if padding == "pairs":
        padding = [(draw(st.integers(-2, 3)), draw(st.integers(-2, 3))) for _ in range(rank)]
    base = [draw(st.integers(1, 2)) for _ in range(rank)] if draw(st.booleans()) else None
    dilation = [draw(st.integers(1, 2)) for _ in range(rank)] if draw(st.booleans()) else None
    mistake = draw(st.sampled_from((None,) * 8 + ("window_count", "strides_count", "zero_window", "zero_stride",
                                                  "pairs_count", "padding_name", "dilation_count")))
    if mistake == "window_count":
        window.append(1)
    elif mistake == "strides_count":
        strides = [*(strides or [1] * rank), 1]
    elif mistake == "zero_window":
        window[0] = 0
    elif mistake == "zero_stride":
        strides = [0] * rank
    elif mistake == "pairs_count":
        padding = [(0, 0)] * (rank + 1)
    elif mistake == "padding_name":
        padding = "full"
    elif mistake == "dilation_count":
        dilation = [1] * (rank + 1)
    reducer = draw(st.sampled_from(("-jnp.inf, lax.max", "0.0, lax.add", "1.0, lax.mul", "0.0, lambda a, b: a + b")))
    padding_text = repr(padding) if isinstance(padding, str) else repr(tuple(padding))
    args = ["x", reducer, repr(tuple(window)), repr(tuple(strides)) if strides is not None else "None", padding_text]
    if base is not None or dilation is not None:
        args.append(repr(tuple(base)) if base is not None else "None")
    if dilation is not None:
        args.append(repr(tuple(dilation)))
    return f"""
        import jax.numpy as jnp
        from jax import lax
        x = jnp.zeros({tuple(shape)!r}, jnp.float32)
        out = lax.reduce_window({", ".join(args)})
        """


@settings(max_examples=100, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(pool_programs())
def test_reduce_window_agrees_with_jax(program: str) -> None:
    agree(program, frozenset({"SC002"}))


@pytest.mark.parametrize("call", [
    # The trivially valid: size-1 dims, unit strides, one group, a 1x1 kernel.
    "lax.conv_general_dilated(jnp.zeros((1, 1, 1, 1)), jnp.zeros((1, 1, 1, 1)), (1, 1), 'VALID')",
    "lax.conv_general_dilated(jnp.zeros((1, 1, 1)), jnp.zeros((1, 1, 1)), (1,), 'SAME')",
    "lax.conv_general_dilated(jnp.zeros((1, 1)), jnp.zeros((1, 1)), (), 'VALID')",
    "lax.conv_general_dilated(jnp.zeros((2, 3)), jnp.zeros((4, 3)), (), ())",
    "lax.conv(jnp.zeros((2, 3, 8, 8)), jnp.zeros((4, 3, 3, 3)), (2, 2), 'SAME')",
    "lax.conv(jnp.zeros((2, 3, 8, 8)), jnp.zeros((4, 2, 3, 3)), (1, 1), 'VALID')",
    "lax.conv_with_general_padding(jnp.zeros((2, 3, 8, 8)), jnp.zeros((4, 3, 3, 3)), (2, 2), ((1, 1), (0, 0)), "
    "(1, 1), (2, 2))",
    "lax.conv_with_general_padding(jnp.zeros((2, 3, 8, 8)), jnp.zeros((4, 3, 3, 3)), (1, 1), 'SAME', None, None)",
    "lax.conv_general_dilated(jnp.zeros((2, 8, 8, 3)), jnp.zeros((3, 3, 3, 4)), (1, 1), 'SAME', "
    "dimension_numbers=lax.conv_dimension_numbers((2, 8, 8, 3), (3, 3, 3, 4), ('NHWC', 'HWIO', 'NHWC')))",
    "lax.conv_general_dilated(jnp.zeros((2, 8, 8, 3)), jnp.zeros((3, 3, 3, 4)), (1, 1), 'SAME', "
    "dimension_numbers=lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2)))",
    "lax.conv_general_dilated(jnp.zeros((2, 8, 8, 3)), jnp.zeros((3, 3, 3, 4)), (1, 1), 'SAME', "
    "dimension_numbers=['NHWC', 'HWIO', 'NHWC'])",
    "lax.conv_general_dilated(jnp.zeros((2, 8, 8, 3)), jnp.zeros((3, 3, 3, 4)), (1, 1), 'SAME', "
    "dimension_numbers=('NHWC', 'HWIO'))",
    "lax.conv_general_dilated(jnp.zeros((2, 3, 8, 8)), jnp.zeros((4, 3, 3, 3)), (1, 1), (1, 1))",
    "lax.conv_general_dilated(jnp.zeros((2, 3, 8, 8), jnp.bfloat16), jnp.zeros((4, 3, 3, 3), jnp.bfloat16), (1, 1),"
    " 'SAME', preferred_element_type=jnp.float32)",
    "lax.reduce_window(jnp.zeros(()), 0.0, lax.add, (), (), 'VALID')",
    "lax.reduce_window(jnp.zeros((1, 1)), 0.0, lax.add, (1, 1), (1, 1), 'SAME')",
    "lax.reduce_window(jnp.zeros((2, 9, 8, 3)), -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), 'VALID')",
    "lax.reduce_window(jnp.zeros((2, 9, 8, 3)), 0.0, lax.add, (1, 3, 3, 1), (1, 2, 2, 1), 'SAME')",
    "lax.reduce_window(jnp.zeros((8,)), 0.0, lax.add, (2,), None, 'SAME')",
    "lax.reduce_window(jnp.zeros((8,)), 0.0, lax.add, (2,), padding=((1, 1),))",
])
def test_cases_agree_with_jax(call: str) -> None:
    agree(f"""
        import jax.numpy as jnp
        from jax import lax
        out = {call}
        """, CONV_CODES)
