"""vmap/pmap in_axes and out_axes as the algebra applies them (DESIGN.md section 3a); each
problem is one JAX 0.10 raises, each accepted case one it accepts."""

from __future__ import annotations

from shapecheck.algebra.vmap_axes import (
    KEPT,
    UNREAD,
    BadLeaf,
    Entries,
    map_in_axes,
    place_out_axes,
    spec_problems,
    static_problem,
)
from shapecheck.codes import Code
from shapecheck.dims import CONFLICT
from shapecheck.types import ArrayType

X = ArrayType.of("f32", (8, 4))
W = ArrayType.of("f32", (7, 4))
SCALAR = ArrayType.of("f32", ())
LABELS = ["`x`", "`w`", "`v`"]


def tup(*items: object, container: str = "tuple") -> Entries:
    return Entries(tuple(items), container, text=str(items))  # type: ignore[arg-type]


def codes(problems: object) -> list[Code]:
    return [p.code for p in problems]  # type: ignore[attr-defined]


def test_the_mapped_dim_becomes_the_named_axis() -> None:
    mapped = map_in_axes([X, ArrayType.of("f32", (4, 8))], tup(0, -1), "b", None, LABELS)
    assert not mapped.problems and mapped.size == 8
    assert mapped.args == (ArrayType.of("f32", (4,), {"b": 8}), ArrayType.of("f32", (4,), {"b": 8}))


def test_none_keeps_the_argument_and_unread_entries_know_nothing() -> None:
    mapped = map_in_axes([X, W, X], tup(0, None, UNREAD), "b", None, LABELS)
    assert mapped.args is not None and mapped.args[1] is KEPT and mapped.args[2] is None


def test_differing_sizes_are_one_problem_and_the_axis_is_unknown_inside() -> None:
    mapped = map_in_axes([X, W, X], 0, "b", None, LABELS)
    assert mapped.size is CONFLICT
    assert [(p.code, p.operands) for p in mapped.problems] == [(Code.NAMED_SIZE_MISMATCH, (1, 0))]
    # The argument blamed is unknown inside (its shape there is the mistake); the others keep
    # their shapes, with the axis's size unknown.
    assert mapped.args == (ArrayType.of("f32", (4,), {"b": CONFLICT}), None, ArrayType.of("f32", (4,), {"b": CONFLICT}))


def test_keyword_arguments_are_mapped_over_axis_0_whatever_in_axes_says() -> None:
    # jax.vmap(h, in_axes=1)(ones((4, 8)), b=ones((8, 4))) runs; b=ones((7, 4)) does not.
    mapped = map_in_axes([ArrayType.of("f32", (4, 8))], 1, "b", None, LABELS, kwargs=[X], kwarg_labels=["`b`"])
    assert not mapped.problems and mapped.kwargs == (ArrayType.of("f32", (4,), {"b": 8}),)
    mapped = map_in_axes([X], None, "b", None, LABELS, kwargs=[W], kwarg_labels=["`b`"])
    assert not mapped.problems and mapped.size == 7  # a keyword argument alone is mapped
    mapped = map_in_axes([X], 0, "b", None, LABELS, kwargs=[W], kwarg_labels=["keyword argument `b`"])
    assert [(p.code, p.operands) for p in mapped.problems] == [(Code.NAMED_SIZE_MISMATCH, (1, 0))]
    assert "keyword argument `b`" in mapped.problems[0].message and "`x`" in mapped.problems[0].message


def test_a_tuple_of_the_wrong_length_is_sc002_and_maps_nothing() -> None:
    for entries in (tup(0), tup(0, 0, 0)):
        mapped = map_in_axes([X, X], entries, "b", None, LABELS)
        assert mapped.args is None and codes(mapped.problems) == [Code.INVALID_AXIS_SPEC]
    # vmap reads a list as a tuple; pmap never matches a list (or a dict) to the argument tuple.
    assert not map_in_axes([X, X], tup(0, None, container="list"), "b", None, LABELS).problems
    mapped = map_in_axes([X, X], tup(0, None, container="list"), "b", None, LABELS, "pmap")
    assert mapped.args is None and codes(mapped.problems) == [Code.INVALID_AXIS_SPEC]


def test_an_entry_must_be_a_prefix_of_its_argument() -> None:
    mapped = map_in_axes([X], tup(tup(0, 1)), "b", None, LABELS)
    assert codes(mapped.problems) == [Code.INVALID_AXIS_SPEC]  # one vmap maps one axis of an array
    pair = (X, ArrayType.of("f32", (4, 8)))
    mapped = map_in_axes([pair], tup(tup(0, 1)), "b", None, LABELS)
    assert not mapped.problems and mapped.args == ((ArrayType.of("f32", (4,), {"b": 8}),) * 2,)
    assert codes(map_in_axes([pair], tup(tup(0, 1, 0)), "b", None, LABELS).problems) == [Code.INVALID_AXIS_SPEC]
    params = {"w": X, "b": ArrayType.of("f32", (8,))}
    mapped = map_in_axes([params], tup(Entries((0, None), "dict", ("w", "b"))), "b", None, LABELS)
    assert not mapped.problems and mapped.args == ({"w": ArrayType.of("f32", (4,), {"b": 8}), "b": params["b"]},)
    wrong_keys = Entries((0,), "dict", ("kernel",))
    assert codes(map_in_axes([params], tup(wrong_keys), "b", None, LABELS).problems) == [Code.INVALID_AXIS_SPEC]


def test_an_int_entry_maps_every_leaf_of_its_argument() -> None:
    mapped = map_in_axes([(X, W)], 0, "b", None, LABELS)
    assert [(p.code, p.operands) for p in mapped.problems] == [(Code.NAMED_SIZE_MISMATCH, (0, 0))]
    assert "`x`[1]" in mapped.problems[0].message and "`x`[0]" in mapped.problems[0].message


def test_axes_beyond_the_rank_and_scalars_are_sc106() -> None:
    for axis in (2, -3):
        assert codes(map_in_axes([X], axis, "b", None, LABELS).problems) == [Code.AXIS_OUT_OF_RANGE]
    assert not map_in_axes([X], -2, "b", None, LABELS).problems
    for kind in ("vmap", "pmap"):
        mapped = map_in_axes([SCALAR], 0, "b", None, LABELS, kind)  # type: ignore[arg-type]
        assert codes(mapped.problems) == [Code.AXIS_OUT_OF_RANGE] and "scalar" in mapped.problems[0].message
    assert not map_in_axes([X, SCALAR], tup(0, None), "b", None, LABELS).problems


def test_nothing_mapped_needs_axis_size_for_vmap_and_is_refused_by_pmap() -> None:
    for entries in (None, tup(None, None)):
        assert codes(map_in_axes([X, X], entries, "b", None, LABELS).problems) == [Code.INVALID_AXIS_SPEC]
        assert not map_in_axes([X, X], entries, "b", 3, LABELS).problems
        assert codes(map_in_axes([X, X], entries, "b", 3, LABELS, "pmap").problems) == [Code.INVALID_AXIS_SPEC]
    assert codes(map_in_axes([], 0, "b", None, LABELS).problems) == [Code.INVALID_AXIS_SPEC]  # no argument
    assert not map_in_axes([None], None, "b", None, LABELS, kwargs=[None]).problems  # unknown: in doubt
    assert not map_in_axes([None], 0, "b", None, LABELS).problems


def test_axis_size_must_agree_with_the_mapped_arguments() -> None:
    assert codes(map_in_axes([X], 0, "b", 6, LABELS).problems) == [Code.NAMED_SIZE_MISMATCH]
    assert codes(map_in_axes([X], 0, "b", 6, LABELS, "pmap").problems) == [Code.NAMED_SIZE_MISMATCH]


def test_pmap_negative_axes_are_not_vmaps_and_stay_unknown() -> None:
    # JAX 0.10's pmap shards axis 0 for a negative in_axes and assembles along axis 0 for a
    # negative out_axes: neither is vmap's meaning, and neither always raises.
    mapped = map_in_axes([ArrayType.of("f32", (3, 8))], -1, "b", None, LABELS, "pmap")
    assert not mapped.problems and mapped.args == (None,)
    placed, problems = place_out_axes(ArrayType.of("f32", (4,), {"b": 8}), -1, "b", 8, "pmap")
    assert placed is None and not problems


def test_spec_leaves_must_be_ints_and_in_axes_not_a_bare_dict() -> None:
    assert codes(spec_problems(Entries((0,), "dict", ("a",)), "in_axes")) == [Code.INVALID_AXIS_SPEC]
    assert codes(spec_problems(BadLeaf("0.5"), "in_axes")) == [Code.INVALID_AXIS_SPEC]
    assert codes(spec_problems(tup(0, BadLeaf("'a'")), "out_axes", "pmap")) == [Code.INVALID_AXIS_SPEC]
    assert not spec_problems(Entries((0,), "dict", ("a",)), "out_axes")  # a dict result's out_axes
    assert not spec_problems(tup(0, None, tup(1, UNREAD)), "in_axes")


def test_out_axes_put_the_axis_back_or_broadcast_along_it() -> None:
    inner = ArrayType.of("f32", (4,), {"b": 8})
    assert place_out_axes(inner, -1, "b", 8) == (ArrayType.of("f32", (4, 8)), [])
    assert place_out_axes(ArrayType.of("f32", (4,)), 0, "b", 8) == (ArrayType.of("f32", (8, 4)), [])
    assert place_out_axes(inner, UNREAD, "b", 8) == (None, [])


def test_out_axes_beyond_the_result_rank_are_sc106() -> None:
    inner = ArrayType.of("f32", (4,), {"b": 8})
    for axis in (2, -3):
        placed, problems = place_out_axes(inner, axis, "b", 8)
        assert placed is None and codes(problems) == [Code.AXIS_OUT_OF_RANGE]
    for kind in ("vmap", "pmap"):
        assert codes(place_out_axes(inner, 2, "b", 8, kind)[1]) == [Code.AXIS_OUT_OF_RANGE]  # type: ignore[arg-type]


def test_out_axes_follow_the_result_tree() -> None:
    grads = (ArrayType.of("f32", (3, 2), {"b": 16}), ArrayType.of("f32", (2,), {"b": 16}))
    placed, problems = place_out_axes(grads, 0, "b", 16)
    assert not problems and placed == (ArrayType.of("f32", (16, 3, 2)), ArrayType.of("f32", (16, 2)))
    placed, problems = place_out_axes((grads[0], ArrayType.of("f32", ())), tup(1, None), "b", 16)
    assert not problems and placed == (ArrayType.of("f32", (3, 16, 2)), ArrayType.of("f32", ()))
    assert codes(place_out_axes(grads, tup(0), "b", 16)[1]) == [Code.INVALID_AXIS_SPEC]
    assert codes(place_out_axes(grads[0], tup(0, 0), "b", 16)[1]) == [Code.INVALID_AXIS_SPEC]


def test_out_axes_none_never_keeps_the_axis() -> None:
    inner = ArrayType.of("f32", (4,), {"b": 8})
    # vmap refuses a None out_axes for a value that still varies (SC002, naming the axis and
    # its size); pmap returns one device's.
    placed, problems = place_out_axes(inner, None, "b", 8)
    assert placed is None and codes(problems) == [Code.INVALID_AXIS_SPEC]
    assert "axis 'b' (of size 8)" in problems[0].message
    assert "'<" not in place_out_axes(ArrayType.of("f32", (4,), {"<vmap@1>": 8}), None, "<vmap@1>", 8)[1][0].message
    assert place_out_axes(inner, None, "b", 8, "pmap") == (ArrayType.of("f32", (4,)), [])
    unmapped = ArrayType.of("f32", (3,))
    assert place_out_axes(unmapped, None, "b", 8) == (unmapped, [])


def test_pmap_static_argnums_name_positional_arguments() -> None:
    problem = static_problem((1,), 1)
    assert problem is not None and problem.code == Code.INVALID_AXIS_SPEC
    assert static_problem((1, 2), 3) is None and static_problem((), 0) is None
