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
