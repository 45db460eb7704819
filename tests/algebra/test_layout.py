"""Positional rearrangements of values whose rank `...` leaves open, and squeeze's repeated axes.

NumPy cannot be the oracle for an open rank; these are the certain facts a checker may claim.
"""

from __future__ import annotations

from shapecheck import f32
from shapecheck.algebra import layout
from shapecheck.algebra.reshape import squeeze


def test_transpose_of_open_rank_mirrors_the_known_dims() -> None:
    out = layout.transpose(f32[(5, ..., 3), {"b": 2}])
    assert out.ok
    assert out.type == f32[(3, ..., 5), {"b": 2}]
    assert layout.transpose(f32[(5, ...)]).type == f32[(..., 5)]


def test_transpose_of_open_rank_with_axes_knows_only_the_rank() -> None:
    out = layout.transpose(f32[(5, ...)], (1, 0, 2))
    assert out.ok
    assert out.type == f32[(None, None, None)]


def test_moves_of_open_rank_forget_positions() -> None:
    value = f32[(5, ..., 3), {"b": 2}]
    for out in (
        layout.swapaxes(value, 0, 1),
        layout.moveaxis(value, 0, -1),
        layout.expand_dims(value, 0),
    ):
        assert out.ok
        assert out.type == f32[(...,), {"b": 2}]


def test_squeeze_repeated_axis() -> None:
    out = squeeze(f32[(1, 1, 3)], (0, -3))
    assert [p.code for p in out.problems] == ["SC106"]
    assert out.problems[0].axes == (-3,)


def test_squeeze_non_unit_axis_names_its_size() -> None:
    out = squeeze(f32[(1, 7)], 1)
    (problem,) = out.problems
    assert problem.code == "SC105" and problem.sizes == (7,)
    assert "7" in problem.message
