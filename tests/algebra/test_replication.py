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
