"""axis_sizes, axis_resources and defined axes: what is certain statically, and at run time."""

from __future__ import annotations

from shapecheck.algebra.axis_mapping import parse_axis_spec
from shapecheck.algebra.xmap_options import (
    defined_axes,
    read_axis_resources,
    read_axis_sizes,
    undefined_axes,
)
from shapecheck.literal import Kind, Lit, from_value

UNKNOWN = Lit(Kind.NAME, "n", text="n")  # a parameter: the analyzer cannot tell its value


def dict_lit(*pairs: tuple[Lit, Lit]) -> Lit:
    return Lit(Kind.DICT, items=tuple(item for pair in pairs for item in pair))


def test_sizes_must_be_non_negative_ints() -> None:
    read = read_axis_sizes(from_value({"a": 2, "b": 0, "c": 2.7, "d": -3, "e": "big", "f": True}))
    assert read.sizes == {"a": 2, "b": 0}
    assert [p.axes for p in read.problems] == [("c",), ("d",), ("e",), ("f",)]
    assert read.problems[0].message == "axis_sizes['c'] must be a non-negative int; got 2.7"
    assert {p.code for p in read.problems} == {"SC002"}


def test_an_unknown_size_is_unknown_statically_and_wrong_at_run_time() -> None:
    node = dict_lit((from_value("k"), UNKNOWN))
    assert read_axis_sizes(node).sizes == {"k": None}
    assert not read_axis_sizes(node).problems
    assert read_axis_sizes(node, concrete=True).problems


def test_keys_must_be_names_and_an_unknown_key_may_define_anything() -> None:
    read = read_axis_sizes(from_value({3: 4}))
    assert read.problems[0].message == "axis_sizes: axis name `3` must be a string"
    assert not read.complete
    unknown = read_axis_sizes(dict_lit((UNKNOWN, from_value(4))))
    assert not unknown.problems and not unknown.complete
    assert read_axis_sizes(None).complete and read_axis_sizes(from_value(None)).complete


def test_resources_are_mesh_axis_names() -> None:
    read = read_axis_resources(from_value({"a": "x", "b": ("x", "y"), "c": 3, "d": ("x", 2)}))
    assert read.resources == {"a": ("x",), "b": ("x", "y")}
    assert [p.axes for p in read.problems] == [("c",), ("d",)]
    partly_unknown = dict_lit((from_value("a"), Lit(Kind.TUPLE, items=(from_value("x"), UNKNOWN))))
    assert not read_axis_resources(partly_unknown).problems
    assert read_axis_resources(partly_unknown, concrete=True).problems


def test_defined_axes_in_order_and_undefined_names() -> None:
    in_tree, _ = parse_axis_spec(from_value((["b", "a", ...], {0: "c"})), "in_axes")
    out_tree, _ = parse_axis_spec(from_value(["a", "q", ...]), "out_axes")
    assert in_tree is not None
    assert defined_axes(in_tree, ["k", "a"]) == ["b", "a", "c", "k"]
    problems = undefined_axes(in_tree, out_tree, ["k"], {"r": None, "a": None})
    assert [p.axes for p in problems] == [("q",), ("r",)]
    assert problems[0].message == ("out_axes uses axis 'q', which neither in_axes nor axis_sizes "
                                   "defines (defined: 'a', 'b', 'c', 'k')")
