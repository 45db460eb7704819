"""axis_resources against values and meshes: SC201 co-occurrence, SC205 divisibility, SC206 names."""

from __future__ import annotations

import pytest

from shapecheck.algebra.resources import cooccurrence, divisibility, unknown_resources

# The tutorial's distributed matmul: 'left' over mesh axis 'x', 'right' over 'y'.
TUTORIAL = {"left": ("x",), "right": ("y",)}


def test_axes_on_different_mesh_axes_may_meet() -> None:
    assert cooccurrence(["left", "right"], TUTORIAL) == []


def test_two_axes_on_one_mesh_axis_in_one_value() -> None:
    (problem,) = cooccurrence(["a", "b"], {"a": ("x",), "b": ("x",)})
    assert problem.code == "SC201"
    assert problem.axes == ("a", "b")
    assert all(part in problem.message for part in ("'a'", "'b'", "'x'"))


def test_cooccurrence_needs_both_in_the_value() -> None:
    resources = {"a": ("x",), "b": ("x",)}
    assert cooccurrence(["a", "c"], resources) == []
    assert cooccurrence([], resources) == []


def test_cooccurrence_through_one_of_several_mesh_axes() -> None:
    (problem,) = cooccurrence(["b", "a"], {"a": ("x", "y"), "b": ("y",)})
    assert problem.axes == ("a", "b")
    assert "'y'" in problem.message


def test_cooccurrence_reports_each_shared_mesh_axis() -> None:
    problems = cooccurrence(["a", "b", "c"], {"a": ("x",), "b": ("x",), "c": ("z",), "d": ("z",)})
    assert [p.axes for p in problems] == [("a", "b")]
    problems = cooccurrence(["a", "b", "c"], {"a": ("x",), "b": ("x",), "c": ("x",)})
    assert [p.axes for p in problems] == [("a", "b", "c")]


def test_cooccurrence_is_deterministic() -> None:
    resources = {"p": ("y",), "q": ("y",), "a": ("x",), "b": ("x",)}
    first = cooccurrence(["q", "b", "p", "a"], resources)
    assert first == cooccurrence(["a", "p", "b", "q", "a"], resources)
    assert [p.axes for p in first] == [("a", "b"), ("p", "q")]


@pytest.mark.parametrize(
    ("size", "mesh_axes", "mesh", "devices"),
    [
        (6, ("x",), {"x": 4}, 4),
        (12, ("x", "y"), {"x": 4, "y": 2}, 8),
        (7, ("y",), {"x": 4, "y": 2}, 2),
    ],
)
def test_indivisible_size(size: int, mesh_axes: tuple[str, ...], mesh: dict[str, int], devices: int) -> None:
    (problem,) = divisibility({"a": size}, {"a": mesh_axes}, mesh)
    assert problem.code == "SC205"
    assert problem.axes == ("a", *mesh_axes)
    assert problem.sizes == (size, devices)
    assert str(size) in problem.message and str(devices) in problem.message
    assert "'a'" in problem.message


@pytest.mark.parametrize(
    ("size", "mesh_axes"), [(8, ("x",)), (16, ("x", "y")), (0, ("x",)), (8, ())]
)
def test_divisible_size(size: int, mesh_axes: tuple[str, ...]) -> None:
    assert divisibility({"a": size}, {"a": mesh_axes}, {"x": 4, "y": 2}) == []


def test_divisibility_ignores_what_it_cannot_know() -> None:
    mesh = {"x": 4}
    assert divisibility({"a": None}, {"a": ("x",)}, mesh) == []
    assert divisibility({}, {"a": ("x",)}, mesh) == []
    # A mesh axis the mesh lacks is SC206's business, not a size to divide by.
    assert divisibility({"a": 6}, {"a": ("q",)}, mesh) == []


def test_unknown_mesh_axis() -> None:
    (problem,) = unknown_resources({"a": ("x", "q")}, {"x": 2, "y": 4})
    assert problem.code == "SC206"
    assert problem.axes == ("a", "q")
    assert all(part in problem.message for part in ("'a'", "'q'", "'x'", "'y'"))


def test_known_mesh_axes() -> None:
    assert unknown_resources(TUTORIAL, {"x": 2, "y": 4}) == []
    assert unknown_resources({}, {}) == []
