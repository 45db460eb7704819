"""Replication under shard_map's check_vma: variation put on at the arguments, taken off at the
results, and SC207 for an out_spec that omits an axis the result varies over."""

from __future__ import annotations

from shapecheck.algebra.collectives import all_gather
from shapecheck.algebra.partition_spec import UNKNOWN_ENTRY, PartitionSpec, Varying
from shapecheck.algebra.reduction import reduce
from shapecheck.algebra.replication import settle, unreplicated, vary
from shapecheck.types import ArrayType

MANUAL = {"x": 2, "y": 4}
WHAT = "the result of `f`"


def spec(*entries: tuple[str, ...]) -> PartitionSpec:
    return PartitionSpec(entries)


def test_vary_adds_the_split_manual_axes() -> None:
    block = ArrayType("f32", (4, 2))
    assert vary(block, spec(("x",), ("y",)), MANUAL) == ArrayType("f32", (4, 2), (("x", 2), ("y", 4)))
    assert vary(block, spec((), ()), MANUAL) == block
    # An axis that is not manual (axis_names leaves it to the compiler) is not tracked.
    assert vary(block, spec(("x",), ("y",)), {"x": 2}) == ArrayType("f32", (4, 2), (("x", 2),))


def test_settle_takes_the_mesh_axes_off() -> None:
    value = ArrayType("f32", (3,), (("k", 5), ("x", 2)))
    assert settle(value, MANUAL) == (ArrayType("f32", (3,), (("k", 5),)), Varying(frozenset({"x"})))
    assert settle(ArrayType("f32", (3,)), MANUAL) == (ArrayType("f32", (3,)), Varying())


def test_psum_makes_a_value_invariant_along_its_axis() -> None:
    # The named-axis reduction is the replication rule: psum over 'x' removes 'x'.
    varying = vary(ArrayType("f32", (4,)), spec(("x", "y")), MANUAL)
    summed = reduce(varying, "x").type
    assert settle(summed, MANUAL)[1] == Varying(frozenset({"y"}))


def test_out_spec_omitting_a_varying_axis() -> None:
    (problem,) = unreplicated(spec(("x",)), Varying(frozenset({"x", "y"})), WHAT)
    assert problem.code == "SC207"
    assert problem.axes == ("y",)
    assert "'y'" in problem.message and "P('x')" in problem.message and WHAT in problem.message


def test_out_spec_naming_every_varying_axis() -> None:
    assert unreplicated(spec(("x",), ("y",)), Varying(frozenset({"x", "y"})), WHAT) == []
    assert unreplicated(spec((), ("y", "x")), Varying(frozenset({"x", "y"})), WHAT) == []
    # Naming an axis the value does not vary over is fine: JAX assembles copies.
    assert unreplicated(spec(("x",)), Varying(), WHAT) == []


def test_several_missing_axes_in_one_problem() -> None:
    (problem,) = unreplicated(spec(), Varying(frozenset({"y", "x"})), WHAT)
    assert problem.axes == ("x", "y")
    assert "('x', 'y')" in problem.message


def test_unread_out_spec_reports_nothing() -> None:
    assert unreplicated(PartitionSpec((UNKNOWN_ENTRY,)), Varying(frozenset({"x"})), WHAT) == []


def test_an_all_gather_over_a_manual_axis_varies_over_it() -> None:
    # JAX 0.10.2: all_gather(float32[4], 'x') in a shard_map body is float32[2,4]{V:x}, even from
    # an invariant argument, so out_specs=P() is refused; over a vmap's axis nothing varies.
    invariant = ArrayType("f32", (4,))
    gathered = all_gather(invariant, "x", 2, 0, False, manual=True)
    assert gathered == ArrayType("f32", (2, 4), (("x", 2),))
    assert unreplicated(spec(), settle(gathered, MANUAL)[1], WHAT) != []
    assert all_gather(ArrayType("f32", (4,), (("i", 2),)), "i", 2, 0, False) == ArrayType("f32", (2, 4))


# ---------------------------------------------------------------- the varying type (SC210)

CHECKED = ("x", "y")


def test_vma_text_is_what_jax_typeof_prints() -> None:
    from shapecheck.algebra.replication import typed, vma_text

    assert vma_text((), CHECKED) == ""
    assert vma_text(("x",), CHECKED) == "{V:x}"
    assert vma_text(("y", "x"), CHECKED) == "{V:(x,y)}"  # in the mesh's order
    assert typed(ArrayType("f32", (4, 4), (("x", 2), ("y", 4))), CHECKED) == "float32[4,4]{V:(x,y)}"


def test_pcast_adds_axes_and_refuses_one_already_varying() -> None:
    from shapecheck.algebra.replication import pcast, varying

    fresh = ArrayType("f32", (4,))
    cast, problems = pcast(fresh, ("x", "y"), MANUAL, CHECKED, "z")
    assert varying(cast, CHECKED) == {"x", "y"} and not problems
    _, problems = pcast(cast, ("x",), MANUAL, CHECKED, "z")
    assert [p.code for p in problems] == ["SC210"] and "drop the pcast" in problems[0].message
    _, problems = pcast(vary(fresh, spec(("x",)), MANUAL), ("x", "y"), MANUAL, CHECKED, "z")
    assert "jax.lax.pcast(..., ('y',), to='varying')" in problems[0].message
    # Without check_vma nothing is refused.
    assert pcast(cast, ("x",), MANUAL, (), "z")[1] == []


def test_varying_mismatches_of_carries_and_branches() -> None:
    from shapecheck.algebra.control_flow import Node
    from shapecheck.algebra.replication import carry_problem, varying_mismatches

    fresh = ArrayType("f32", (4,))
    both = vary(fresh, spec(("x", "y")), MANUAL)
    assert varying_mismatches(fresh, fresh, "c", CHECKED) == []
    (found,) = varying_mismatches(Node("tuple", (0, 1), (both, fresh)), Node("tuple", (0, 1), (both, both)), "c",
                                  CHECKED)
    assert (found.path, found.keys, found.gained, found.lost) == ("c[1]", (1,), ("x", "y"), ())
    problem = carry_problem("lax.scan", found, CHECKED, exact=True)
    assert problem.message.endswith("cast it: jax.lax.pcast(..., ('x', 'y'), to='varying')")
    # An open named shape may vary over more: nothing it lacks for certain is reported.
    assert varying_mismatches(ArrayType("f32", (4,), named_open=True), both, "c", CHECKED) == []


def test_psum_over_axes_partly_varying_is_refused() -> None:
    from shapecheck.algebra.replication import mixed_reduction

    on_x = vary(ArrayType("f32", (4,)), spec(("x",)), MANUAL)
    assert mixed_reduction(on_x, ("x",), CHECKED, "lax.psum", "a") is None
    assert mixed_reduction(on_x, ("y",), CHECKED, "lax.psum", "a") is None
    problem = mixed_reduction(on_x, ("x", "y"), CHECKED, "lax.psum", "a")
    assert problem is not None and problem.axes == ("y",)
