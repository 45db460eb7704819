"""vmap/pmap in_axes and out_axes as the algebra applies them (DESIGN.md section 3a)."""

from __future__ import annotations

from shapecheck.algebra.vmap_axes import KEPT, UNREAD, map_in_axes, place_out_axis
from shapecheck.codes import Code
from shapecheck.dims import CONFLICT
from shapecheck.types import ArrayType

X = ArrayType.of("f32", (8, 4))
W = ArrayType.of("f32", (7, 4))


def test_the_mapped_dim_becomes_the_named_axis() -> None:
    mapped = map_in_axes([X, ArrayType.of("f32", (4, 8))], (0, -1), "b", None, ["`x`", "`w`"])
    assert mapped is not None and not mapped.problems and mapped.size == 8
    assert mapped.args == (ArrayType.of("f32", (4,), {"b": 8}), ArrayType.of("f32", (4,), {"b": 8}))


def test_none_keeps_the_argument_and_unread_entries_know_nothing() -> None:
    mapped = map_in_axes([X, W, X], (0, None, UNREAD), "b", None, ["`x`", "`w`", "`v`"])
    assert mapped is not None and mapped.args[1] is KEPT and mapped.args[2] is None


def test_differing_sizes_are_one_problem_and_the_axis_is_unknown_inside() -> None:
    mapped = map_in_axes([X, W], 0, "b", None, ["`x`", "`w`"])
    assert mapped is not None and mapped.size is CONFLICT
    assert [(p.code, p.operands) for p in mapped.problems] == [(Code.NAMED_SIZE_MISMATCH, (1, 0))]
    assert all(isinstance(arg, ArrayType) and arg.named_dict == {"b": CONFLICT} for arg in mapped.args)


def test_entries_that_do_not_match_the_arguments_or_their_rank_know_nothing() -> None:
    assert map_in_axes([X], (0, 0), "b", None, ["`x`"]) is None
    mapped = map_in_axes([X], 2, "b", None, ["`x`"])
    assert mapped is not None and mapped.args == (None,) and mapped.size is None


def test_out_axes_put_the_axis_back_or_broadcast_along_it() -> None:
    inner = ArrayType.of("f32", (4,), {"b": 8})
    assert place_out_axis(inner, -1, "b", 8) == ArrayType.of("f32", (4, 8))
    assert place_out_axis(ArrayType.of("f32", (4,)), 0, "b", 8) == ArrayType.of("f32", (8, 4))
    assert place_out_axis(inner, None, "b", 8) is inner
    assert place_out_axis(inner, 2, "b", 8) is None
    assert place_out_axis(inner, UNREAD, "b", 8) is None
