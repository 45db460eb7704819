"""Indexing with integer arrays and masks (JAX decides the concrete cases:
tests/test_array_api_differential.py; basic indexing is checked against NumPy in test_properties)."""

from __future__ import annotations

from shapecheck import bool_, f32, i32
from shapecheck.algebra.indexing import ELLIPSIS, NEW_AXIS, OPAQUE, ArrayIndex, Slice, index


def test_an_integer_array_replaces_the_dim_it_indexes() -> None:
    assert index(f32[(100, 16)], [ArrayIndex(i32[(4, 7)])]).type == f32[(4, 7, 16)]
    assert index(f32[(5, 6, 7)], [Slice(), ArrayIndex(i32[(2, 3)])]).type == f32[(5, 2, 3, 7)]


def test_advanced_indices_broadcast_and_move_to_the_front_when_separated() -> None:
    k = ArrayIndex(i32[(3,)])
    assert index(f32[(5, 6, 7)], [k, Slice(), k]).type == f32[(3, 6)]
    assert index(f32[(5, 6, 7)], [Slice(), 0, k]).type == f32[(5, 3)]
    assert index(f32[(5, 6, 7)], [Slice(), 0, NEW_AXIS, k]).type == f32[(3, 5, 1)]
    assert index(f32[(5, 6, 7)], [k, ELLIPSIS, k]).type == f32[(3, 6)]
    bad = index(f32[(5, 6, 7)], [ArrayIndex(i32[(2, 3)]), ArrayIndex(i32[(4,)])])
    assert [p.code for p in bad.problems] == ["SC101"]


def test_ints_are_clamped_as_jax_does() -> None:
    assert index(f32[(3, 4)], [7]).problems == ()
    assert index(f32[(3, 4)], [ArrayIndex(i32[(2,)]), 9]).problems == ()
    assert [p.code for p in index(f32[(0, 4)], [0]).problems] == ["SC106"]


def test_a_mask_keeps_an_unknown_count() -> None:
    assert index(f32[(5, 6)], [ArrayIndex(bool_[(5,)], mask=True)]).type == f32[(None, 6)]
    assert index(f32[(5, 6)], [ArrayIndex(bool_[(5, 6)], mask=True)]).type == f32[(None,)]
    assert index(f32[(5, 6)], [ArrayIndex(bool_[(0,)], mask=True)]).problems != ()
    assert index(f32[(0, 6)], [ArrayIndex(bool_[(0,)], mask=True)]).type == f32[(0, 6)]
    wrong = index(f32[(5, 6)], [ArrayIndex(bool_[(4,)], mask=True)])
    assert [p.code for p in wrong.problems] == ["SC101"]
    # broadcast with an integer array, the count must be its length
    assert index(f32[(5, 6)], [ArrayIndex(bool_[(5,)], mask=True), ArrayIndex(i32[(3,)])]).type == f32[(3,)]


def test_what_is_not_read_stays_unknown() -> None:
    assert index(f32[(5, 6)], [OPAQUE]).type.rank is None
    assert index(f32[(5, 6)], [ArrayIndex(i32[(...,)])]).type.rank is None
    assert index(f32[(5, 6)], [ArrayIndex(bool_[()], mask=True)]).type.rank is None
    assert index(f32[(5, ...)], [ArrayIndex(i32[(2,)])]).type.rank is None


def test_named_axes_of_the_indices_join_the_result() -> None:
    out = index(f32[(100, 16), {"b": 2}], [ArrayIndex(i32[(7,), {"k": 3}])])
    assert out.type == f32[(7, 16), {"b": 2, "k": 3}]
