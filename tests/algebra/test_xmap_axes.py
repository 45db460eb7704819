"""xmap's in_axes/out_axes: parsed from the literal trees of real Python specs, applied to types."""

from __future__ import annotations

import numpy as np
import pytest

from shapecheck import f32
from shapecheck.algebra.axis_mapping import (
    AxisMapping,
    SpecContainer,
    SpecTree,
    apply_in_axes,
    apply_out_axes,
    parse_axis_spec,
    spec_names,
)
from shapecheck.algebra.outcome import Problem
from shapecheck.literal import Kind, Lit, from_value


def parse(value: object, what: str = "in_axes") -> SpecTree:
    tree, problems = parse_axis_spec(from_value(value), what)
    assert problems == [], problems
    assert tree is not None
    return tree


def parse_problems(value: object | Lit) -> list[Problem]:
    node = value if isinstance(value, Lit) else from_value(value)
    tree, problems = parse_axis_spec(node, "in_axes")
    assert tree is None
    return problems


def codes(problems: list[Problem]) -> list[str]:
    return [p.code for p in problems]


# --- parsing --------------------------------------------------------------------------------


def test_dict_mapping() -> None:
    tree = parse({2: "k", 0: "b"})
    assert isinstance(tree, AxisMapping)
    assert tree.entries == ((0, "b"), (2, "k"))
    assert tree.rank is None


def test_empty_dict_is_a_mapping_with_no_names() -> None:
    tree = parse({})
    assert isinstance(tree, AxisMapping) and tree.entries == ()


def test_list_ending_with_ellipsis_names_a_prefix() -> None:
    tree = parse(["k", "m", ...])
    assert isinstance(tree, AxisMapping)
    assert tree.entries == ((0, "k"), (1, "m"))
    assert tree.rank is None


def test_list_without_ellipsis_asserts_the_rank() -> None:
    tree = parse(["i", None])
    assert isinstance(tree, AxisMapping)
    assert tree.entries == ((0, "i"),)
    assert tree.rank == 2


def test_tuple_of_names_and_ellipsis_is_one_mapping() -> None:
    tree = parse(("i", ...))
    assert isinstance(tree, AxisMapping) and tree.entries == ((0, "i"),)


def test_container_of_mappings() -> None:
    tree = parse([{0: "b", 2: "k"}, ["k", "m", ...]])
    assert isinstance(tree, SpecContainer)
    assert tree.keys is None
    first, second = tree.items
    assert isinstance(first, AxisMapping) and first.entries == ((0, "b"), (2, "k"))
    assert isinstance(second, AxisMapping) and second.entries == ((0, "k"), (1, "m"))
    assert sorted(name for name, _ in spec_names(tree)) == ["b", "k", "k", "m"]


def test_dict_container_with_string_keys() -> None:
    tree = parse({"x": ["i", ...], "y": {}})
    assert isinstance(tree, SpecContainer)
    assert tree.keys == ("x", "y")


def test_negative_position_is_sc002() -> None:
    (problem,) = parse_problems({-1: "b"})
    assert problem.code == "SC002"
    assert "-1" in problem.message


@pytest.mark.parametrize("spec", [{0: "a", 1: "a"}, ["a", "a", ...], ("a", None, "a")])
def test_name_repeated_in_one_mapping_is_sc002(spec: object) -> None:
    (problem,) = parse_problems(spec)
    assert problem.code == "SC002"
    assert problem.axes == ("a",)


def test_name_may_repeat_across_mappings() -> None:
    parse([["a", ...], ["a", ...]])


@pytest.mark.parametrize(
    ("spec", "part"),
    [
        ("batch", "'batch'"),  # a bare name is not a mapping
        ([..., "a"], "..."),  # `...` only ends a list
        ({0: 3}, "3"),  # names are strings
        ({0: "a", "x": ["b", ...]}, "{0: 'batch'}"),  # keys all ints or all strings
        (3, "3"),
        ([{0: "a"}, 3.5], "3.5"),
    ],
)
def test_malformed_spec_is_sc002(spec: object, part: str) -> None:
    problems = parse_problems(spec)
    assert codes(problems) == ["SC002"]
    assert part in problems[0].message


def test_problems_point_at_the_node() -> None:
    marker = object()
    bad_key = Lit(Kind.INT, -2, text="-2", origin=marker)
    node = Lit(Kind.DICT, items=(bad_key, from_value("b")))
    (problem,) = parse_problems(node)
    assert problem.origin is marker


def test_a_spec_that_is_not_a_literal_is_left_alone() -> None:
    tree, problems = parse_axis_spec(Lit(Kind.NAME, "SPEC", text="SPEC"), "in_axes")
    assert tree is None and problems == []


# --- in_axes --------------------------------------------------------------------------------


def test_tutorial_batch_in_and_out() -> None:
    x = f32[(20, 5)]
    (inner,), sizes = apply_in_axes(parse({0: "batch"}), [x])
    assert inner == f32[(5,), {"batch": 20}]
    assert sizes.problems == [] and sizes.sizes == {"batch": 20}
    result, problems = apply_out_axes(parse({1: "batch"}, "out_axes"), inner, sizes.sizes)
    assert problems == []
    # The tutorial: the result equals x.T.
    assert result == f32[np.zeros((20, 5)).T.shape]


def test_tutorial_einsum_in_axes() -> None:
    args, sizes = apply_in_axes(parse([{0: "b", 2: "k"}, ["k", "m", ...]]), [f32[(20, 5, 7)], f32[(7, 11)]])
    assert args == [f32[(5,), {"b": 20, "k": 7}], f32[(), {"k": 7, "m": 11}]]
    assert sizes.problems == []
    assert sizes.sizes == {"b": 20, "k": 7, "m": 11}


def test_one_mapping_for_every_argument() -> None:
    args, sizes = apply_in_axes(parse(["b", ...]), [f32[(3, 5, 5)], f32[(3, 5, 5)]])
    assert args == [f32[(5, 5), {"b": 3}]] * 2
    assert sizes.problems == []


def test_mapping_with_none_skips_positions() -> None:
    (inner,), _ = apply_in_axes(parse(["i", None, "j"]), [f32[(2, 3, 4)]])
    assert inner == f32[(3,), {"i": 2, "j": 4}]


def test_rank_assertion_holds() -> None:
    (inner,), sizes = apply_in_axes(parse(["i", None]), [f32[(2, 3)]])
    assert inner == f32[(3,), {"i": 2}]
    assert sizes.problems == []


def test_rank_assertion_fails() -> None:
    _, sizes = apply_in_axes(parse(["i", None]), [f32[(2, 3, 4)]])
    (problem,) = sizes.problems
    assert problem.code == "SC002"
    assert "2" in problem.message and "3" in problem.message
    assert problem.operands == (0,)


def test_argument_keeps_its_own_named_axes() -> None:
    (inner,), _ = apply_in_axes(parse({0: "b"}), [f32[(2, 3), {"h": 4}]])
    assert inner == f32[(3,), {"b": 2, "h": 4}]


def test_position_beyond_the_argument_rank_is_sc106() -> None:
    _, sizes = apply_in_axes(parse({3: "b"}), [f32[(2, 3)]])
    (problem,) = sizes.problems
    assert problem.code == "SC106"
    assert problem.axes == (3,)


def test_size_conflict_across_arguments_names_both() -> None:
    _, sizes = apply_in_axes(parse([{2: "k"}, ["k", ...]]), [f32[(20, 5, 7)], f32[(8, 11)]])
    (problem,) = sizes.problems
    assert problem.code == "SC102"
    assert problem.axes == ("k",)
    assert set(problem.sizes) == {7, 8}
    for part in ("'k'", "7", "8", "argument 1", "argument 2", "in_axes[0]", "in_axes[1]"):
        assert part in problem.message, part


def test_size_conflict_with_axis_sizes() -> None:
    _, sizes = apply_in_axes(parse({0: "k"}), [f32[(7,)]], axis_sizes={"k": 9})
    (problem,) = sizes.problems
    assert problem.code == "SC102"
    assert "axis_sizes" in problem.message and "7" in problem.message and "9" in problem.message


def test_axis_sizes_define_axes() -> None:
    _, sizes = apply_in_axes(parse({0: "k"}), [f32[(7,)]], axis_sizes={"extra": 3})
    assert sizes.sizes == {"k": 7, "extra": 3}


def test_unknown_sizes_never_conflict() -> None:
    _, sizes = apply_in_axes(parse([{0: "k"}, {0: "k"}, {0: "k"}]), [f32[(None,)], f32[("n",)], f32[(7,)]])
    assert sizes.problems == []
    assert sizes.sizes["k"] == 7


def test_unknown_argument() -> None:
    args, sizes = apply_in_axes(parse([{0: "k"}, {0: "k"}]), [None, f32[(7,)]])
    assert args[0] is None
    assert sizes.problems == [] and sizes.sizes == {"k": 7}


def test_argument_of_open_rank() -> None:
    (inner,), sizes = apply_in_axes(parse({0: "a", 1: "b"}), [f32[(5, ...)]])
    assert sizes.problems == []
    assert inner is not None and not isinstance(inner, tuple | dict)
    assert inner.named_dict == {"a": 5, "b": None}
    assert inner.rank is None


def test_container_count_must_match_arguments() -> None:
    _, sizes = apply_in_axes(parse([{0: "a"}, {0: "b"}]), [f32[(2,)]])
    assert codes(sizes.problems) == ["SC002"]
    assert "2" in sizes.problems[0].message and "1" in sizes.problems[0].message


def test_structure_that_is_not_a_prefix_of_the_arguments() -> None:
    # A container spec where the argument is an array.
    _, sizes = apply_in_axes(parse([[{0: "a"}, {0: "b"}]]), [f32[(2,)]])
    assert codes(sizes.problems) == ["SC002"]


def test_mapping_stands_for_a_whole_subtree() -> None:
    (inner,), sizes = apply_in_axes(parse([["b", ...]]), [(f32[(3, 4)], {"w": f32[(3,)]})])
    assert inner == (f32[(4,), {"b": 3}], {"w": f32[(), {"b": 3}]})
    assert sizes.problems == []


def test_dict_container_matches_dict_arguments() -> None:
    (inner,), sizes = apply_in_axes(
        parse([{"x": ["i", ...], "y": {}}]), [{"x": f32[(2, 3)], "y": f32[(4,)]}]
    )
    assert inner == {"x": f32[(3,), {"i": 2}], "y": f32[(4,)]}
    assert sizes.problems == [] and sizes.sizes == {"i": 2}
    _, bad = apply_in_axes(parse([{"x": ["i", ...], "z": {}}]), [{"x": f32[(2, 3)], "y": f32[(4,)]}])
    assert codes(bad.problems) == ["SC002"]


# --- out_axes -------------------------------------------------------------------------------


def test_out_axes_insert_at_positions_of_the_result() -> None:
    result, problems = apply_out_axes(
        parse({0: "b", 2: "m"}, "out_axes"), f32[(5,), {"b": 20, "m": 11}], {"b": 20, "m": 11}
    )
    assert problems == []
    assert result == f32[(20, 5, 11)]


def test_out_axes_list_prefix() -> None:
    result, problems = apply_out_axes(
        parse(["a", "b", ...], "out_axes"), f32[(7,), {"a": 2, "b": 3}], {"a": 2, "b": 3}
    )
    assert problems == []
    assert result == f32[(2, 3, 7)]


def test_out_axes_name_the_result_lacks_broadcasts() -> None:
    result, problems = apply_out_axes(parse(["i", ...], "out_axes"), f32[(3,)], {"i": 2})
    assert problems == []
    assert result == f32[(2, 3)]


def test_sc203_result_keeps_an_unplaced_axis() -> None:
    result, problems = apply_out_axes(parse({}, "out_axes"), f32[(3,), {"k": 7}], {"k": 7})
    (problem,) = problems
    assert problem.code == "SC203"
    assert problem.axes == ("k",)
    assert "'k'" in problem.message and "7" in problem.message
    assert result == f32[(3,)]


def test_names_the_xmap_does_not_define_stay_named() -> None:
    # An axis bound by an enclosing map passes through.
    result, problems = apply_out_axes(parse({}, "out_axes"), f32[(3,), {"outer": 4}], {"k": 7})
    assert problems == []
    assert result == f32[(3,), {"outer": 4}]


def test_sc106_out_position_beyond_the_rank() -> None:
    _, problems = apply_out_axes(parse({2: "b"}, "out_axes"), f32[(5,), {"b": 20}], {"b": 20})
    (problem,) = problems
    assert problem.code == "SC106"
    assert problem.axes == (2,)


def test_out_position_at_the_end_is_fine() -> None:
    result, problems = apply_out_axes(parse({1: "b"}, "out_axes"), f32[(5,), {"b": 20}], {"b": 20})
    assert problems == [] and result == f32[(5, 20)]


def test_out_rank_assertion() -> None:
    spec = parse(["i", None], "out_axes")
    ok, problems = apply_out_axes(spec, f32[(3,), {"i": 2}], {"i": 2})
    assert problems == [] and ok == f32[(2, 3)]
    _, problems = apply_out_axes(spec, f32[(3, 4), {"i": 2}], {"i": 2})
    assert codes(problems) == ["SC002"]


def test_out_axes_container_for_several_results() -> None:
    result, problems = apply_out_axes(
        parse([["i", ...], {}], "out_axes"), (f32[(3,), {"i": 2}], f32[(4,)]), {"i": 2}
    )
    assert problems == []
    assert result == (f32[(2, 3)], f32[(4,)])
    _, problems = apply_out_axes(parse([["i", ...], {}], "out_axes"), f32[(3,), {"i": 2}], {"i": 2})
    assert codes(problems) == ["SC002"]
