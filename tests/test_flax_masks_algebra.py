"""flax's attention masks in the algebra, on what flax cannot show: symbolic and unknown sizes.

What they compute on known sizes is checked against flax in tests/test_flax_masks_differential.py."""

from __future__ import annotations

from shapecheck.algebra.attention import attention_mask, flax_attention, fused_mask, masked_weights
from shapecheck.codes import Code
from shapecheck.dims import Sym
from shapecheck.types import ArrayType

B, T, S, N = (Sym(name, rigid=True) for name in "btsn")


def f32(*dims: object) -> ArrayType:
    return ArrayType.of("f32", dims)  # type: ignore[arg-type]


def test_unknown_masks_and_sizes_report_nothing() -> None:
    anything = ArrayType.anything("bool")
    assert fused_mask(anything, (2,), 4, 5, 5, "attention") is None
    assert masked_weights(anything, (2, 4, 5, 5), "attention") == (None, False)
    assert fused_mask(f32(3, 1, 5, 5), (None,), 4, 5, 5, "attention") is None
    assert fused_mask(f32(2, 3, 1, 5, 5), (2, None), 4, 5, 5, "attention") is None  # the product is unknown
    assert masked_weights(f32(7, 5, 5), (2, None, 5, 5), "attention") == (None, False)


def test_symbolic_sizes_are_never_refused_a_known_size_against_another_is() -> None:
    """A mask's symbolic size may be 1, which broadcasts against anything."""
    assert fused_mask(f32(B, 1, T, S), (B,), N, T, S, "attention") is None
    assert masked_weights(f32(B, 1, T, S), (B, N, T, S), "attention") == (None, False)
    assert fused_mask(f32(B, 1, S, T), (B,), N, T, S, "attention") is None
    assert masked_weights(f32(B, 1, S, T), (B, N, T, S), "attention") == (None, False)
    refused = fused_mask(f32(3, 1, 5, S), (B,), N, 4, S, "attention")
    assert refused is not None and refused.code == Code.BROADCAST_MISMATCH
    problem, _ = masked_weights(f32(B, 1, 5, S), (B, N, 4, S), "attention")
    assert problem is not None and problem.code == Code.BROADCAST_MISMATCH


def test_a_mask_of_fewer_dims_or_of_ones_fits_and_does_not_widen() -> None:
    for dims in [(), (1,), (5,), (1, 5), (5, 5), (1, 1, 1, 1)]:
        assert fused_mask(f32(*dims), (2,), 4, 5, 5, "attention") is None
        assert masked_weights(f32(*dims), (2, 4, 5, 5), "attention") == (None, False)


def test_the_made_mask_keeps_symbolic_lengths() -> None:
    made = attention_mask(f32(B, T), f32(B, S), 1, "bool", "make_attention_mask")
    assert made.ok and made.type == ArrayType.of("bool", (1, B, 1, T, S))  # type: ignore[arg-type]


def test_flax_attention_of_unknown_operands_is_unknown_without_a_report() -> None:
    anything = ArrayType.anything("f32")
    for nnx, fused in [(True, True), (True, False), (False, False)]:
        out = flax_attention(anything, f32(2, 5, 4, 8), f32(2, 5, 4, 8), None, f32(3, 3), "f32", "attention",
                             nnx=nnx, fused=fused)
        assert out.ok and out.type.rank is None
