"""Declared versus inferred types (SC103), with symbols bound consistently along the way."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shapecheck import Sym, f32
from shapecheck.algebra.conformance import Bindings, conform, substitute
from shapecheck.algebra.outcome import Problem
from shapecheck.dims import Dim
from shapecheck.types import ArrayType


def only(problems: list[Problem]) -> Problem:
    assert len(problems) == 1, problems
    assert problems[0].code == "SC103"
    return problems[0]


def test_exact_match() -> None:
    assert conform(f32[(5, 7), {"b": 2}], f32[(5, 7), {"b": 2}], {}, "x") == []


def test_symbol_bound_consistently() -> None:
    bindings: Bindings = {}
    assert conform(f32[("n", "n")], f32[(3, 3)], bindings, "x") == []
    assert bindings == {"n": 3}


def test_symbol_bound_to_two_sizes() -> None:
    bindings: Bindings = {}
    problem = only(conform(f32[("n", "n")], f32[(3, 4)], bindings, "x"))
    assert problem.axes == (1,)
    assert problem.sizes == (3, 4)
    assert "3" in problem.message and "4" in problem.message and "'n'" in problem.message


def test_binding_carries_across_one_signature() -> None:
    bindings: Bindings = {}
    assert conform(f32[("n", 5)], f32[(3, 5)], bindings, "x") == []
    problem = only(conform(f32[(), {"k": "n"}], f32[(), {"k": 4}], bindings, "y"))
    assert problem.axes == ("k",)
    assert problem.sizes == (3, 4)
    assert "y" in problem.message


def test_different_symbols_may_be_equal() -> None:
    assert conform(f32[("n", "m")], f32[(3, 3)], {}, "x") == []


def test_known_mismatch() -> None:
    problem = only(conform(f32[(5, 7)], f32[(5, 8)], {}, "x"))
    assert problem.axes == (1,)
    assert problem.sizes == (7, 8)


def test_rank_mismatch() -> None:
    problem = only(conform(f32[(5, 7)], f32[(5,)], {}, "x"))
    assert "(5,)" in problem.message and "(5, 7)" in problem.message


def test_declared_ellipsis() -> None:
    declared = f32[(5, ..., 2)]
    assert conform(declared, f32[(5, 2)], {}, "x") == []
    assert conform(declared, f32[(5, 9, 9, 2)], {}, "x") == []
    problem = only(conform(declared, f32[(5, 3, 3)], {}, "x"))
    assert problem.axes == (2,)
    assert problem.sizes == (2, 3)
    only(conform(declared, f32[(5,)], {}, "x"))


def test_unknowns_are_never_reported() -> None:
    bindings: Bindings = {}
    assert conform(f32[(5, "n"), {"k": 3}], f32[(None, None), {"k": None}], bindings, "x") == []
    # An unknown size binds nothing: a later known size is free to bind the symbol.
    assert bindings == {}
    assert conform(f32[(5,)], f32[("m",)], {}, "x") == []
    assert conform(f32[(5, 7), {"k": 3}], f32[...], {}, "x") == []
    assert conform(f32[(5, 7)], f32[(5, ...)], {}, "x") == []


def test_undeclared_named_axis() -> None:
    problem = only(conform(f32[(5,)], f32[(5,), {"k": 3}], {}, "x"))
    assert problem.axes == ("k",)
    assert "'k'" in problem.message


def test_missing_named_axis() -> None:
    problem = only(conform(f32[(5,), {"k": 3}], f32[(5,)], {}, "x"))
    assert problem.axes == ("k",)


def test_any_named_axes_declared() -> None:
    assert conform(f32[(5,), ...], f32[(5,), {"k": 3, "b": 2}], {}, "x") == []


def test_inferred_value_with_unknown_named_axes() -> None:
    # The value may or may not have 'k': nothing is certain.
    assert conform(f32[(5,), {"k": 3}], f32[(5,), ...], {}, "x") == []


def test_substitute() -> None:
    declared = f32[("n", "m"), {"k": "n"}]
    assert substitute(declared, {"n": 3}) == ArrayType.of("f32", (3, Sym("m")), {"k": 3})
    assert substitute(declared, {}) == declared


# Property: a declaration that forgets sizes of a real type (None, or one symbol per size) always
# fits it; changing one known size of the declaration is always reported.

concrete_shapes = st.lists(st.integers(0, 5), max_size=4)
masks = st.lists(st.sampled_from(["keep", "none", "sym"]), min_size=4, max_size=4)


def forget(dims: list[int], mask: list[str]) -> list[Dim]:
    out: list[Dim] = []
    for size, choice in zip(dims, mask, strict=False):
        out.append(size if choice == "keep" else None if choice == "none" else Sym(f"s{size}"))
    return out


@settings(max_examples=200, deadline=None)
@given(concrete_shapes, masks, st.data())
def test_forgetful_declarations_fit_and_changes_are_caught(dims: list[int], mask: list[str], data: st.DataObject) -> None:
    actual = f32[tuple(dims)]
    declared = ArrayType.of("f32", forget(dims, mask))
    bindings: Bindings = {}
    assert conform(declared, actual, bindings, "x") == []
    assert all(bindings[f"s{d}"] == d for d, m in zip(dims, mask, strict=False) if m == "sym")
    known = [i for i, m in enumerate(mask[: len(dims)]) if m == "keep"]
    if known:
        axis = data.draw(st.sampled_from(known))
        changed = list(declared.dims)
        changed[axis] = dims[axis] + 1
        problem = only(conform(declared.with_dims(changed), actual, {}, "x"))
        assert problem.axes == (axis,)
