"""take, take_along_axis, top_k and the segment reductions on values the checker knows only in
part (JAX decides the known cases: tests/test_array_api_differential.py)."""

from __future__ import annotations

import pytest

from shapecheck import f32, i32
from shapecheck.algebra.gather import segment, take, take_along_axis, top_k
from shapecheck.codes import Code
from shapecheck.dims import Sym
from shapecheck.types import ArrayType


def test_take_places_the_indices_dims() -> None:
    assert take(f32[(5, 6, 7)], i32[(2, 3)], 1).type == f32[(5, 2, 3, 7)]
    assert take(f32[(5, 6)], i32[(2, 3)], None).type == f32[(2, 3)]
    assert take(f32[(5, 6)], i32[()], -1).type == f32[(5,)]


def test_take_from_an_empty_axis() -> None:
    assert [p.code for p in take(f32[(0, 3)], i32[(2,)], 0).problems] == ["SC106"]
    assert take(f32[(0, 3)], i32[(0,)], 0).type == f32[(0, 3)]  # JAX returns the array as it is
    assert take(f32[(0, 3)], i32[(None,)], 0).problems == ()


def test_take_with_open_ranks() -> None:
    assert take(f32[(5, ..., 7)], i32[(2,)], 0).type == f32[(2, ..., 7)]
    assert take(f32[(5, ..., 7)], i32[(2, 3)], -1).type == f32[(5, ..., 2, 3)]
    assert take(f32[(5, 6)], i32[(..., 3)], 1).type == f32[(5, ..., 3)]
    assert take(f32[(5, ...)], i32[(2,)], 3).type.rank is None


def test_take_along_axis_broadcasts_the_other_dims() -> None:
    assert take_along_axis(f32[(6, 4)], i32[(1, 2)], 1).type == f32[(6, 2)]
    assert [p.code for p in take_along_axis(f32[(6, 4)], i32[(5, 2)], 1).problems] == ["SC101"]
    assert [p.code for p in take_along_axis(f32[(6, 4)], i32[(2,)], 1).problems] == ["SC101"]
    assert [p.code for p in take_along_axis(f32[(6, 4)], i32[(2, 2)], None).problems] == ["SC101"]
    assert take_along_axis(f32[(6, None)], i32[(6, 2)], 1).problems == ()
    assert take_along_axis(f32[(6, ...)], i32[(6, 2)], 1).type == f32[(None, None)]


def test_top_k() -> None:
    out = top_k(f32[(3, 8)], 2)
    assert out.types == (f32[(3, 2)], i32[(3, 2)])
    assert [p.code for p in top_k(f32[(3, 8)], 9).problems] == ["SC107"]
    assert [p.code for p in top_k(f32[(3, 8)], -1).problems] == ["SC107"]
    assert [p.code for p in top_k(f32[()], 1).problems] == ["SC106"]
    assert top_k(f32[(3, None)], 9).problems == ()
    k = Sym("k")
    assert top_k(f32[(3, 8)], k).types == (ArrayType("f32", (3, k)), ArrayType("i32", (3, k)))


def test_segment_rows() -> None:
    assert segment(f32[(12, 4)], i32[(12,)], 6, "segment_sum").type == f32[(6, 4)]
    assert segment(f32[(12, 4)], i32[(12,)], None, "segment_sum").type == f32[(None, 4)]
    assert segment(f32[(1, 4)], i32[(12,)], 6, "segment_sum").problems == ()  # one row broadcasts
    assert [p.code for p in segment(f32[(12, 4)], i32[(11,)], 6, "segment_sum").problems] == ["SC101"]
    assert [p.code for p in segment(f32[(12, 4)], i32[()], 6, "segment_sum").problems] == ["SC101"]
    assert [p.code for p in segment(f32[(12,)], i32[(12,)], -1, "segment_sum").problems] == ["SC107"]
    # Nothing to write: JAX skips the scatter and its check.
    assert segment(f32[(0, 3)], i32[(2,)], 2, "segment_sum").problems != ()
    assert segment(f32[(3, 0)], i32[(2, 2)], 2, "segment_sum").problems == ()
    assert segment(f32[(12, 4)], i32[(None,)], 6, "segment_sum").problems == ()
    assert segment(f32[(..., 4)], i32[(12,)], 6, "segment_max").type == f32[(6, ...)]


@pytest.mark.parametrize("labels", [None, [], ["`a`"], ["`a`", "`i`"]])
def test_float_indices_are_refused_whatever_the_labels(labels: list[str] | None) -> None:
    a, indices = ArrayType("f32", (5, 3)), ArrayType("f32", (2,))
    for outcome in (take(a, indices, 0, labels), take_along_axis(a, ArrayType("f32", (5, 1)), 1, labels),
                    segment(a, ArrayType("f32", (5,)), 4, "segment_sum", labels)):
        assert [p.code for p in outcome.problems] == [Code.DTYPE_MISMATCH]
        assert ("`i`" if labels and len(labels) > 1 else "operand 2") in outcome.problems[0].message


def test_no_float_indices_to_take_take_nothing() -> None:
    # JAX returns at once for empty indices, before it reads their dtype.
    assert take(ArrayType("f32", (5, 3)), ArrayType("f32", (0,)), 0).problems == ()
