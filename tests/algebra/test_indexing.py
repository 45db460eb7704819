"""Indexing with integer arrays and masks (JAX decides the concrete cases:
tests/test_array_api_differential.py; basic indexing is checked against NumPy in test_properties)."""

from __future__ import annotations

from shapecheck import bool_, f32, i32
from shapecheck.algebra.indexing import (
    ELLIPSIS,
    NEW_AXIS,
    OPAQUE,
    ArrayIndex,
    Slice,
    UntypedArray,
    index,
)


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


def test_an_array_of_unknown_dtype_is_read_as_integers_where_it_cannot_be_a_mask() -> None:
    from shapecheck.types import ArrayType

    def untyped(*dims: int | None) -> UntypedArray:
        return UntypedArray(ArrayType(None, dims))

    # (8,) cannot mask a dim of 5, nor (2, 3) the dims (5, 6): integers, or an error at run time.
    assert index(f32[(5, 5)], [untyped(8)]).type == f32[(8, 5)]
    assert index(f32[(5, 6)], [untyped(2, 3)]).type == f32[(2, 3, 6)]
    assert index(f32[(5, 6)], [Slice(), untyped(4)]).type == f32[(5, 4)]
    assert index(f32[(5,)], [untyped(5, 2)]).type == f32[(5, 2)]  # more dims than there are left
    # A shape a mask could have (or could not be told from one) leaves the result unknown.
    unknown = f32[(5, 6)].with_dims((), 0)
    assert index(f32[(5, 6)], [untyped(5)]).type == unknown
    assert index(f32[(5, 6)], [untyped(None)]).type == unknown
    assert index(f32[(5, 6)], [Slice(), untyped(6)]).type == unknown
    assert index(f32[(5, 6)], [ELLIPSIS, untyped(3)]).type == unknown  # where it starts is not read
    assert index(f32[(5, 6)], [OPAQUE, untyped(3)]).type == unknown
    # An empty array runs as a mask of any shape: with one dim it gives the integers' shape,
    # with more it covers more dims than integers would.
    assert index(f32[(5, 6)], [untyped(0)]).type == f32[(0, 6)]
    assert index(f32[(1, 1)], [untyped(0, 2)]).type == f32[(1, 1)].with_dims((), 0)
