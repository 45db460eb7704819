"""The attention algebra on what JAX cannot show: symbolic and unknown sizes.

What it computes on known sizes is checked against JAX in tests/test_nn_differential.py."""

from __future__ import annotations

from shapecheck.algebra.attention import dot_product_attention
from shapecheck.codes import Code
from shapecheck.dims import Sym
from shapecheck.types import ArrayType

B, T, S, N, H = (Sym(name, rigid=True) for name in "btsnh")


def f32(*dims: object) -> ArrayType:
    return ArrayType.of("f32", dims)  # type: ignore[arg-type]


def test_the_output_has_the_query_shape_with_symbolic_sizes() -> None:
    out = dot_product_attention(f32(B, T, N, H), f32(B, S, N, H), f32(B, S, N, H), bias=f32(1, 1, T, S))
    assert out.ok and out.type == f32(B, T, N, H)


def test_distinct_rigid_symbols_are_certain_mismatches() -> None:
    out = dot_product_attention(f32(B, T, N, H), f32(B, S, N, Sym("d", rigid=True)),
                                f32(B, S, N, Sym("d", rigid=True)))
    assert [p.code for p in out.problems] == [Code.CONTRACTION_MISMATCH]


def test_unknown_ranks_and_sizes_report_nothing() -> None:
    anything = ArrayType.anything("f32")
    assert dot_product_attention(f32(2, 5, 4, 8), anything, anything).ok
    assert dot_product_attention(f32(2, 5, None, 8), f32(2, 7, 3, 8), f32(2, 7, 3, 8)).ok
    assert dot_product_attention(anything, f32(2, 7, 3, 8), f32(2, 7, 3, 8), mask=f32(2, 1, 9, 7)).ok


def test_dtypes_that_differ_give_an_unknown_dtype() -> None:
    out = dot_product_attention(ArrayType.of("bf16", (2, 5, 4, 8)), f32(2, 7, 2, 8), f32(2, 7, 2, 8))
    assert out.type.dtype is None and out.type.dims == (2, 5, 4, 8)
