"""shard_map's in_specs and out_specs as pytree prefixes of its arguments and result, in the
algebra: which leaf each spec splits or assembles, the SC002 of a structure that does not match,
and jit's in_shardings arity (DESIGN.md section 3a). Each refusal is one JAX 0.10 raises."""

from __future__ import annotations

from shapecheck.algebra.partition_spec import MeshAxes, PartitionSpec
from shapecheck.algebra.spec_trees import (
    Node,
    Site,
    assemble_results,
    shardings_arity,
    split_arguments,
)
from shapecheck.algebra.vmap_axes import KEPT, UNREAD
from shapecheck.codes import Code
from shapecheck.types import ArrayType

MESH = MeshAxes((("x", 2), ("y", 4)))
SITE = Site(MESH, {"x": 2, "y": 4}, name="`f`")
X = ArrayType("f32", (8, 8))


def spec(*entries: tuple[str, ...]) -> PartitionSpec:
    return PartitionSpec(entries)


def codes(problems: object) -> list[Code]:
    return [problem.code for problem in problems]  # type: ignore[attr-defined]


def test_no_arguments_and_empty_specs_are_valid() -> None:
    assert split_arguments([], Node("tuple", ()), SITE).args == ()
    assert split_arguments([X], spec(), SITE).args == (X,)
    assert assemble_results(X, spec(), SITE) == (X, [])


def test_one_spec_splits_every_argument_and_every_leaf_under_it() -> None:
    split = split_arguments([X, Node("tuple", (X, None))], spec(("x",)), SITE)
    block = ArrayType("f32", (4, 8), (("x", 2),))
    assert split.problems == () and split.args == (block, Node("tuple", (block, None)))


def test_none_passes_an_argument_as_it_is() -> None:
    split = split_arguments([X, X], Node("tuple", (None, spec((), ("y",)))), SITE)
    assert split.args == (KEPT, ArrayType("f32", (8, 2), (("y", 4),)))


def test_in_specs_need_one_entry_per_argument() -> None:
    split = split_arguments([X], Node("tuple", (spec(), spec())), SITE)
    assert split.args is None and codes(split.problems) == [Code.INVALID_AXIS_SPEC]
    assert "2 entries but `f` is called with 1 argument" in split.problems[0].message
    listed = split_arguments([X], Node("list", (spec(),)), SITE)
    assert listed.args is None and "in_specs is a list" in listed.problems[0].message


def test_a_dict_entry_matches_a_dict_by_its_keys_in_any_order() -> None:
    params = Node("dict", (X, ArrayType("f32", (6,))), ("w", "b"))
    specs = Node("dict", (spec(), spec(("x",))), ("b", "w"))
    split = split_arguments([params], Node("tuple", (specs,)), SITE)
    assert split.args == (Node("dict", (ArrayType("f32", (4, 8), (("x", 2),)), ArrayType("f32", (6,))),
                                    ("w", "b")),)


def test_a_structure_that_does_not_match_is_sc002_at_any_depth() -> None:
    # JAX's "pytree structure error" below the top, as at it: the call is refused.
    split = split_arguments([Node("list", (X,))], Node("tuple", (Node("tuple", (spec(),)),)), SITE)
    assert split.args is None and codes(split.problems) == [Code.INVALID_AXIS_SPEC]
    assert "is a list of 1, but its in_specs entry is a tuple of 1" in split.problems[0].message
    keyed = split_arguments([Node("dict", (X,), ("a",))], Node("tuple", (Node("dict", (spec(),), ("b",)),)), SITE)
    assert codes(keyed.problems) == [Code.INVALID_AXIS_SPEC] and "keys 'a'" in keyed.problems[0].message
    nested = split_arguments([X], Node("tuple", (Node("tuple", (spec(), spec())),)), SITE)
    assert codes(nested.problems) == [Code.INVALID_AXIS_SPEC]  # a container of specs for an array
    # What the checker cannot read is never reported: an unread spec, an unknown argument.
    assert split_arguments([X], UNREAD, SITE).args == (ArrayType("f32", (None, None)),)
    assert split_arguments([None], Node("tuple", (Node("tuple", (spec(),)),)), SITE).problems == ()


def test_a_refused_leaf_refuses_the_call_and_names_its_argument() -> None:
    unknown_axis = spec(("z",), ("x",))
    split = split_arguments([X, ArrayType("f32", (7,))], Node("tuple", (unknown_axis, spec(("x",)))), SITE,
                            ["`a`", "`b`"])
    assert split.args is None
    assert [(p.code, p.operands) for p in split.problems] == [
        (Code.UNKNOWN_RESOURCE, (0,)), (Code.MESH_INDIVISIBLE, (1,))]
    assert "argument `b` of `f` (in_specs[1])" in split.problems[1].message


def test_the_spec_s_own_faults_come_first() -> None:
    # JAX raises a spec's faults against its mesh when the shard_map is built, before any value.
    split = split_arguments([ArrayType("f32", (8,))], spec(("x",), ("z",)), SITE)
    assert codes(split.problems) == [Code.UNKNOWN_RESOURCE, Code.AXIS_OUT_OF_RANGE]


def test_out_specs_assemble_and_check_replication() -> None:
    varying = ArrayType("f32", (4, 8), (("x", 2),))
    assert assemble_results(varying, spec(("x",)), SITE) == (X, [])
    _, problems = assemble_results(varying, spec(), SITE)
    assert codes(problems) == [Code.UNREPLICATED_OUTPUT]
    unchecked = Site(MESH, {"x": 2, "y": 4}, name="`f`", check_vma=False)
    assert assemble_results(varying, spec(), unchecked)[1] == []


def test_an_out_structure_that_does_not_match_is_reported_at_any_depth() -> None:
    pair = Node("tuple", (X, X))
    _, problems = assemble_results(pair, Node("tuple", (spec(),)), SITE)
    assert codes(problems) == [Code.INVALID_AXIS_SPEC]
    assert "out_specs is a tuple of 1 but `f` returns a tuple of 2" in problems[0].message
    _, nested = assemble_results(Node("tuple", (pair,)), Node("tuple", (Node("tuple", (spec(),)),)), SITE)
    assert codes(nested) == [Code.INVALID_AXIS_SPEC] and "out_specs[0] is a tuple of 1" in nested[0].message
    _, keyed = assemble_results(Node("dict", (X,), ("a",)), Node("tuple", (spec(),)), SITE)
    assert codes(keyed) == [Code.INVALID_AXIS_SPEC] and "returns a dict with keys 'a'" in keyed[0].message
    assert assemble_results(Node("tuple", (pair,)), Node("tuple", (spec(),)), SITE)[1] == []  # a prefix


def test_jit_in_shardings_arity() -> None:
    problem = shardings_arity(2, 1, "`f`")
    assert problem.code == Code.INVALID_AXIS_SPEC and "in_shardings has 2 entries" in problem.message
