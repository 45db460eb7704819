"""lax.pdot and lax.all_gather as the algebra computes them (DESIGN.md section 3)."""

from __future__ import annotations

from shapecheck.algebra.collectives import all_gather, pdot
from shapecheck.codes import Code
from shapecheck.types import ArrayType


def test_pdot_contracts_the_named_axes_and_orders_batch_lhs_rhs() -> None:
    x = ArrayType.of("f32", (3, 4), {"k": 5, "b": 2})
    y = ArrayType.of("f32", (3, 6), {"k": 5})
    outcome = pdot(x, y, ["k"], ([], []), ([0], [0]))
    assert outcome.ok and outcome.type == ArrayType.of("f32", (3, 4, 6), {"b": 2})


def test_pdot_reports_differing_and_out_of_range_pairs() -> None:
    x, y = ArrayType.of("f32", (3, 4)), ArrayType.of("f32", (5,))
    outcome = pdot(x, y, [], ([1, 2], [0, 0]), ([], []))
    assert [p.code for p in outcome.problems] == [Code.CONTRACTION_MISMATCH, Code.AXIS_OUT_OF_RANGE]


def test_all_gather_makes_the_named_axis_positional() -> None:
    x = ArrayType.of("f32", (3,), {"i": 4})
    assert all_gather(x, "i", 4, 0, False) == ArrayType.of("f32", (4, 3))
    assert all_gather(x, "i", 4, 0, True) == ArrayType.of("f32", (12,))
    assert all_gather(x, "i", 4, 2, False) == ArrayType("f32", (), (), 0)


# Each case below is what JAX 0.10.2 does with a (2, 4) or (2, 6) block over an axis of size 2.


def test_all_gather_axis_range_is_one_wider_untiled() -> None:
    from shapecheck.algebra.collectives import all_gather_problems

    block = ArrayType("f32", (2, 4))
    assert not all_gather_problems(block, -3, False) and not all_gather_problems(block, 2, False)
    assert [p.code for p in all_gather_problems(block, 3, False)] == [Code.AXIS_OUT_OF_RANGE]
    assert [p.code for p in all_gather_problems(block, 2, True)] == [Code.AXIS_OUT_OF_RANGE]
    assert [p.code for p in all_gather_problems(ArrayType("f32", ()), 0, True)] == [Code.AXIS_OUT_OF_RANGE]
    assert all_gather(block, "x", 2, -1, False).dims == (2, 4, 2)
    assert all_gather(block, "x", 2, -1, True).dims == (2, 8)


def test_psum_scatter_dimension_range_size_and_divisibility() -> None:
    from shapecheck.algebra.collectives import psum_scatter

    block = ArrayType("f32", (2, 4))
    assert psum_scatter(block, "x", 2, 0, False).type.dims == (4,)
    assert psum_scatter(block, "x", 2, -1, True).type.dims == (2, 2)
    assert [p.code for p in psum_scatter(block, "x", 2, 1, False).problems] == [Code.NAMED_SIZE_MISMATCH]
    assert [p.code for p in psum_scatter(ArrayType("f32", (6,)), "x", 4, 0, True).problems] == [Code.MESH_INDIVISIBLE]
    assert [p.code for p in psum_scatter(block, "x", 2, 2, True).problems] == [Code.AXIS_OUT_OF_RANGE]
    assert [p.code for p in psum_scatter(ArrayType("f32", ()), "x", 2, 0, False).problems] == [Code.AXIS_OUT_OF_RANGE]
    assert psum_scatter(block, "x", None, 1, False).ok  # an unknown axis size: nothing certain


def test_all_to_all_axes_sizes_and_shapes() -> None:
    from shapecheck.algebra.collectives import all_to_all

    block = ArrayType("f32", (2, 6))
    assert all_to_all(block, "x", 2, 0, 1, False).type.dims == (6, 2)
    assert all_to_all(block, "x", 2, 0, 0, False).type.dims == (2, 6)
    assert all_to_all(block, "x", 2, 1, 0, True).type.dims == (4, 3)
    assert all_to_all(ArrayType("f32", (2, 3, 5)), "x", 2, 0, 2, False).type.dims == (3, 5, 2)
    assert [p.code for p in all_to_all(block, "x", 2, 1, 0, False).problems] == [Code.NAMED_SIZE_MISMATCH]
    assert [p.code for p in all_to_all(ArrayType("f32", (3, 2)), "x", 2, 0, 1, True).problems] == \
        [Code.MESH_INDIVISIBLE]
    assert [p.code for p in all_to_all(block, "x", 2, 2, 0, True).problems] == [Code.AXIS_OUT_OF_RANGE]
    assert [p.code for p in all_to_all(block, "x", 2, 0, 2, False).problems] == [Code.AXIS_OUT_OF_RANGE]
    assert [p.code for p in all_to_all(ArrayType("f32", ()), "x", 2, 0, 0, False).problems] == \
        [Code.AXIS_OUT_OF_RANGE]
    # A negative concat_axis: JAX reads it apart from its positive twin; the shape is unknown.
    assert all_to_all(block, "x", 2, -2, -1, False).type.rank is None


def test_ppermute_pairs_name_members_of_the_axis() -> None:
    from shapecheck.algebra.collectives import ppermute_problems

    assert ppermute_problems([(0, 1), (1, 0)], "x", 2) == []
    assert [p.code for p in ppermute_problems([(0, 2)], "x", 2)] == [Code.AXIS_OUT_OF_RANGE]
    assert ppermute_problems([(0, 9)], "x", None) == []  # an unknown size: nothing certain
