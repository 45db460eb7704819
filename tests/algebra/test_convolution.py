"""The convolution algebra on what JAX cannot show: symbolic and unknown sizes, unknown options.

What it computes on known sizes is checked against JAX itself in
tests/test_convolution_differential.py."""

from __future__ import annotations

from shapecheck.algebra.convolution import (
    DEFAULT,
    Layout,
    conv_general_dilated,
    default_layout,
    parse_layout,
    reduce_window,
    window_output,
)
from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import Sym
from shapecheck.types import ArrayType

N, H, W = Sym("n", rigid=True), Sym("h", rigid=True), Sym("w", rigid=True)


def f32(*dims: object) -> ArrayType:
    return ArrayType.of("f32", dims)  # type: ignore[arg-type]


def test_layouts_follow_the_rhs_order_of_spatial_dims() -> None:
    assert parse_layout(("NHWC", "HWIO", "NHWC"), 4) == Layout((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert parse_layout(("NHWC", "WHIO", "NCHW"), None) == Layout((0, 3, 2, 1), (3, 2, 0, 1), (0, 1, 3, 2))
    assert default_layout(3) == Layout((0, 1, 2), (0, 1, 2), (0, 1, 2))
    for specs in (("NHWC", "HWIO"), ("NHWC", "HWIO", "NHW"), ("NHWC", "HWOO", "NHWC"), ("NHWC", "HXIO", "NHWC")):
        assert isinstance(parse_layout(specs, 4), Problem)
    assert isinstance(parse_layout(("NHWC", "HWIO", "NHWC"), 3), Problem)


def test_same_padding_at_stride_one_keeps_symbolic_sizes() -> None:
    out = conv_general_dilated(f32(N, H, W, 3), f32(3, 3, 3, 8), (1, 1), "SAME",
                               dimension_numbers=("NHWC", "HWIO", "NHWC"))
    assert out.ok and out.type == f32(N, H, W, 8)
    # (1, 1) around a window of 3 makes up for it too; a stride of 2 does not.
    assert conv_general_dilated(f32(N, 3, H, W), f32(8, 3, 3, 3), (1, 1), ((1, 1), (1, 1))).type == f32(N, 8, H, W)
    assert conv_general_dilated(f32(N, 3, H, W), f32(8, 3, 3, 3), (2, 2), "SAME").type == f32(N, 8, None, None)


def test_unknown_options_give_unknown_sizes_and_no_report() -> None:
    out = conv_general_dilated(f32(2, 3, 8, 8), f32(4, 3, 3, 3), None, None, dimension_numbers=DEFAULT)
    assert out.ok and out.type == f32(2, 4, None, None)
    out = conv_general_dilated(f32(2, 3, 8, 8), f32(4, 3, 3, 3), (1, 1), "VALID", dimension_numbers=None)
    assert out.ok and out.type == f32(None, None, None, None)
    out = conv_general_dilated(f32(2, 6, 8, 8), f32(4, 3, 3, 3), (1, 1), "VALID", feature_group_count=None)
    assert out.ok and out.type == f32(2, 4, 6, 6)
    assert conv_general_dilated(ArrayType.anything("f32"), f32(4, 3, 3, 3), (1, 1), "VALID").type.dims == \
        (None, 4, None, None)


def test_in_features_are_checked_against_rigid_symbols() -> None:
    out = conv_general_dilated(f32(2, Sym("c", rigid=True), 8), f32(4, Sym("d", rigid=True), 3), (1,), "VALID")
    assert [p.code for p in out.problems] == [Code.CONTRACTION_MISMATCH]
    out = conv_general_dilated(f32(2, Sym("c", rigid=True), 8), f32(4, Sym("c", rigid=True), 3), (1,), "VALID")
    assert out.ok and out.type == f32(2, 4, 6)
    assert conv_general_dilated(f32(2, None, 8), f32(4, 5, 3), (1,), "VALID").ok


def test_ranks_and_options_that_do_not_fit() -> None:
    assert [p.code for p in conv_general_dilated(f32(2, 3, 8, 8), f32(4, 3, 3), (1,), "VALID").problems] == \
        [Code.CONTRACTION_MISMATCH]
    assert [p.code for p in conv_general_dilated(f32(2, 3, 8), f32(4, 3, 3), (1,), "VALID",
                                                 lhs_dilation=(0,)).problems] == [Code.INVALID_AXIS_SPEC]


def test_window_output_follows_xla() -> None:
    assert window_output(8, 3, 1, "VALID") == (6, False)
    assert window_output(8, 3, 2, "SAME") == (4, False)
    assert window_output(0, 3, 1, "SAME") == (0, False)
    assert window_output(2, 5, 1, "VALID") == (0, False)  # never below 0
    assert window_output(8, 3, 1, (-5, -5)) == (0, True)  # padding removes more than there is
    assert window_output(8, 2, 1, (0, 0), base_dilation=2) == (14, False)
    assert window_output(H, 3, 1, "SAME") == (H, False)
    assert window_output(H, 1, 1, "VALID") == (H, False)
    assert window_output(H, 3, 1, "VALID") == (None, False)
    assert window_output(8, 3, None, "VALID") == (None, False)


def test_reduce_window_pools_each_dim() -> None:
    out = reduce_window(f32(N, 8, 8, 3), (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    assert out.ok and out.type == f32(N, 4, 4, 3)
    assert reduce_window(f32(N, 8), (1, 3), DEFAULT, "SAME", window_dilation=(1, 2)).problems  # SAME needs strides
    assert reduce_window(f32(N, 8), None, (1, 2), "VALID").type == f32(None, None)
