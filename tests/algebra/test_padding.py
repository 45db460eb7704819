"""jnp.pad's widths on values the checker knows only in part (JAX decides the known cases:
tests/test_array_api_differential.py)."""

from __future__ import annotations

from shapecheck import f32
from shapecheck.algebra.padding import pad


def test_each_form_of_pad_width() -> None:
    x = f32[(2, 3)]
    assert pad(x, 1).type == f32[(4, 5)]
    assert pad(x, (1,)).type == f32[(4, 5)]
    assert pad(x, (1, 2)).type == f32[(5, 6)]
    assert pad(x, ((1, 2),)).type == f32[(5, 6)]
    assert pad(x, ((1, 2), (0, 3))).type == f32[(5, 6)]


def test_shapes_that_fit_no_rank() -> None:
    for width in ((1, 2, 3), ((1, 2), (3, 4), (5, 6)), ((1, 2, 3),), ((1, 2), 3), ()):
        out = pad(f32[(2, 3)], width)
        assert [p.code for p in out.problems] == ["SC107"], width
        assert out.type == f32[(None, None)]


def test_negative_widths_and_a_0d_value() -> None:
    assert [p.code for p in pad(f32[(2,)], -1).problems] == ["SC107"]
    assert pad(f32[()], -1).problems == ()  # JAX returns a 0-d array unchecked
    assert [p.code for p in pad(f32[()], ((1, 2), (3, 4))).problems] == ["SC107"]


def test_copying_modes_cannot_widen_an_empty_axis() -> None:
    assert [p.code for p in pad(f32[(0, 3)], 1, "wrap").problems] == ["SC107"]
    assert pad(f32[(0, 3)], 1, "constant").type == f32[(2, 5)]
    assert pad(f32[(0, 3)], ((0, 0), (1, 1)), "edge").problems == ()
    assert pad(f32[(0, 3)], 1, None).problems == ()  # an unread mode: not certain


def test_unknown_widths_and_sizes() -> None:
    assert pad(f32[(2, None)], 1).type == f32[(4, None)]
    assert pad(f32[(2, 3)], (None, 1)).type == f32[(None, None)]
    assert pad(f32[(2, 3)], ((0, 0), (None, 1))).type == f32[(2, None)]


def test_open_rank() -> None:
    assert pad(f32[(..., 3)], 1).type == f32[(..., 5)]
    assert pad(f32[(2, ..., 3)], ((0, 0), (1, 1), (1, 1))).type == f32[(2, None, 5)]
    assert [p.code for p in pad(f32[(2, ..., 3, 4)], ((0, 0), (1, 1))).problems] == ["SC107"]
    assert pad(f32[(...,)], -1).problems == ()  # it may be a 0-d array
    assert [p.code for p in pad(f32[(...,)], (1, 2, 3)).problems] == ["SC107"]
