"""jnp.split, array_split and unstack on values the checker knows only in part (JAX itself
decides the known cases: tests/test_array_api_differential.py)."""

from __future__ import annotations

from shapecheck import f32
from shapecheck.algebra.outcome import Pieces
from shapecheck.algebra.split import MAX_PIECES, split, unstack
from shapecheck.dims import Sym
from shapecheck.types import ArrayType


def codes(pieces: Pieces) -> list[str]:
    return [p.code for p in pieces.problems]


def test_equal_sections() -> None:
    out = split(f32[(8, 12)], 3, axis=-1)
    assert out.types == (f32[(8, 4)],) * 3 and not out.problems


def test_indivisible_sections_name_the_remainder_and_the_fix() -> None:
    out = split(f32[(8, 13)], 3, axis=1)
    assert out.types is None and codes(out) == ["SC107"]
    assert "remainder is 1" in out.problems[0].message and "array_split" in out.problems[0].message
    assert split(f32[(8, 13)], 3, axis=1, equal=False).types == (f32[(8, 5)], f32[(8, 4)], f32[(8, 4)])


def test_indices_cut_where_they_say() -> None:
    out = split(f32[(10, 2)], [2, 7])
    assert out.types == (f32[(2, 2)], f32[(5, 2)], f32[(3, 2)])
    assert split(f32[(10, 2)], []).types == (f32[(10, 2)],)


def test_indices_out_of_order_or_negative_are_refused() -> None:
    assert codes(split(f32[(10,)], [7, 2])) == ["SC107"]
    negative = split(f32[(10,)], [-2])
    assert codes(negative) == ["SC107"] and "negative" in negative.problems[0].message
    assert codes(split(f32[(10,)], [11])) == ["SC107"]


def test_unknown_sizes_keep_the_count_and_report_nothing() -> None:
    value = f32[(None, 4)]
    assert split(value, 3).types == (f32[(None, 4)],) * 3
    assert split(value, 1).types == (value,)
    assert split(value, [2, 5]).types == (f32[(2, 4)], f32[(3, 4)], f32[(None, 4)])
    assert split(value, [2, None, 1]).problems != ()  # 2 then 1 decrease, whatever lies between
    assert split(value, [2, None, 5]).types == (f32[(2, 4)], f32[(None, 4)], f32[(None, 4)], f32[(None, 4)])


def test_a_symbol_split_once_stays() -> None:
    n = Sym("n")
    assert split(ArrayType("f32", (n, 4)), 1).types == (ArrayType("f32", (n, 4)),)
    assert split(ArrayType("f32", (n, 4)), []).types == (ArrayType("f32", (n, 4)),)


def test_open_rank_cuts_a_known_end_or_knows_only_the_count() -> None:
    value = f32[(..., 96), {"b": 2}]
    assert split(value, 3, axis=-1).types == (f32[(..., 32), {"b": 2}],) * 3
    hidden = split(value, 3, axis=0)
    assert hidden.types is not None and len(hidden.types) == 3 and not hidden.problems
    assert all(t.rank is None and t.named == (("b", 2),) for t in hidden.types)
    assert split(f32[(4, ...)], 2, axis=0).types == (f32[(2, ...)],) * 2


def test_axis_beyond_the_rank() -> None:
    assert codes(split(f32[(6,)], 2, axis=1)) == ["SC106"]
    assert codes(split(f32[()], 1)) == ["SC106"]


def test_zero_and_negative_sections() -> None:
    assert codes(split(f32[(6,)], 0)) == ["SC107"]
    assert codes(split(f32[(6,)], -1)) == ["SC107"]
    assert split(f32[(0,)], -1).types == ()  # JAX makes no pieces, and an empty axis has none to fill
    assert split(f32[(None,)], -1).problems == ()


def test_too_many_pieces_are_not_followed() -> None:
    assert split(f32[(None,)], MAX_PIECES + 1).types is None
    assert unstack(f32[(MAX_PIECES + 1,)]).types is None


def test_unstack() -> None:
    assert unstack(f32[(3, 4, 5)], axis=1).types == (f32[(3, 5)],) * 4
    assert unstack(f32[(0, 4)]).types == ()
    assert codes(unstack(f32[()])) == ["SC106"]
    assert unstack(f32[(2, ..., 5)], axis=0).types == (f32[(..., 5)],) * 2
    assert unstack(f32[(None, 4)]).types is None
