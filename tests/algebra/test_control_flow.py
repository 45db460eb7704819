"""Loop carries and branch outputs compared as JAX compares them, scan's slices, stacks and
length (shapecheck/algebra/control_flow.py)."""

from __future__ import annotations

from shapecheck.algebra.control_flow import (
    BOOL_KIND,
    INDEX_KINDS,
    NONE,
    PRED_KINDS,
    Node,
    branch_problems,
    carry_problems,
    leading_problem,
    leaves,
    mismatches,
    promoted,
    scalar_problem,
    scan_length,
    settled,
    sliced,
    stacked,
)
from shapecheck.codes import Code
from shapecheck.dims import Sym
from shapecheck.types import ArrayType, scalar

F32 = ArrayType.of("f32", (8, 16))
WEAK_FLOAT = scalar("f64")
WEAK_INT = scalar("i64")


def pair(a: ArrayType | Node | None, b: ArrayType | Node | None, kind: str = "tuple") -> Node:
    return Node(kind, (0, 1), (a, b))


def test_an_unchanged_carry_and_the_trivial_ones_have_no_mismatch() -> None:
    assert mismatches(F32, F32, "c") == []
    assert mismatches(NONE, NONE, "c") == []
    assert mismatches(Node("tuple"), Node("tuple"), "c") == []
    assert mismatches(ArrayType.of("f32", ()), ArrayType.of("f32", ()), "c") == []


def test_shapes_and_dtypes_differ_only_when_certain() -> None:
    assert [m.path for m in mismatches(F32, ArrayType.of("f32", (8, 32)), "c")] == ["c"]
    assert mismatches(F32, ArrayType.of("f32", (8, None)), "c") == []
    assert mismatches(F32, ArrayType.of(None, (8, 16)), "c") == []
    assert mismatches(F32, ArrayType.of("f32", (8,), ellipsis=0), "c") == []
    # `(..., 8, 16, 1)` has at least three dims: never the two of F32.
    assert mismatches(F32, ArrayType.of("f32", (8, 16, 1), ellipsis=0), "c") != []
    assert mismatches(F32, ArrayType.of("f16", (8, 16)), "c") != []
    # f64 is f32 with x64 off: the same dtype unless x64 is known on.
    f64 = ArrayType.of("f64", (8, 16))
    assert mismatches(F32, f64, "c") == []
    assert mismatches(F32, f64, "c", x64=True) != []


def test_a_weak_value_is_compared_at_its_default_width() -> None:
    assert mismatches(scalar("f32", weak=False), WEAK_FLOAT, "c") == []  # 1.0 is f32 (x64 off)
    assert mismatches(scalar("f16", weak=False), WEAK_FLOAT, "c") != []
    assert mismatches(scalar("f32", weak=False), WEAK_INT, "c") != []
    assert mismatches(WEAK_INT, WEAK_FLOAT, "c") != []


def test_structures_differ_by_kind_length_and_keys_but_not_dict_order() -> None:
    assert mismatches(pair(F32, F32), pair(F32, F32, "list"), "c")[0].structural
    assert mismatches(pair(F32, F32), Node("tuple", (0,), (F32,)), "c")[0].structural
    assert mismatches(NONE, WEAK_FLOAT, "c")[0].structural
    ab = Node("dict", ("a", "b"), (F32, WEAK_INT))
    assert mismatches(ab, Node("dict", ("b", "a"), (WEAK_INT, F32)), "c") == []
    assert mismatches(ab, Node("dict", ("a", "c"), (F32, WEAK_INT)), "c")[0].structural
    assert mismatches(pair(F32, None), pair(F32, pair(F32, F32)), "c") == []  # unknown: anything


def test_members_are_named_as_the_program_reads_them() -> None:
    wide = ArrayType.of("f32", (8, 32))
    assert [m.path for m in mismatches(pair(F32, F32), pair(F32, wide), "carry")] == ["carry[1]"]
    keyed = Node("dict", ("h",), (F32,))
    assert [m.path for m in mismatches(keyed, Node("dict", ("h",), (wide,)), "c")] == ["c['h']"]
    fields = Node("State", ("h", "n"), (F32, WEAK_INT), fields=True)
    changed = Node("State", ("h", "n"), (wide, WEAK_INT), fields=True)
    assert [m.path for m in mismatches(fields, changed, "s")] == ["s.h"]


def test_carry_problems_name_the_member_and_both_types() -> None:
    problems = carry_problems("lax.scan", pair(F32, F32), pair(F32, ArrayType.of("f32", (8, 32))), "carry")
    assert [p.code for p in problems] == [Code.ANNOTATION_MISMATCH]
    assert "`carry[1]`" in problems[0].message and "f32[(8, 16)]" in problems[0].message \
        and "f32[(8, 32)]" in problems[0].message
    assert carry_problems("lax.scan", F32, F32, "c") == []


def test_branch_problems_name_both_branches() -> None:
    (problem,) = branch_problems("lax.switch", ("branch 0", "branch 2"), F32, ArrayType.of("f32", (16, 8)))
    assert "branch 0" in problem.message and "branch 2" in problem.message
    assert branch_problems("lax.cond", ("true_fun", "false_fun"), F32, F32) == []


def test_a_weak_initial_carry_is_promoted_to_what_the_body_returns() -> None:
    # 0 returned as f32: JAX traces again with an f32 carry.
    assert promoted(WEAK_INT, scalar("f32", weak=False)) == scalar("f32", weak=False)
    # 0.0 returned as 1: still a weak float (result_type of the two), which the check then refuses.
    again = promoted(WEAK_FLOAT, WEAK_INT)
    assert again == WEAK_FLOAT and mismatches(again, WEAK_INT, "c") != []
    # A strong carry is never promoted; nor a weak one whose dtype may match.
    assert promoted(scalar("i32", weak=False), WEAK_FLOAT) == scalar("i32", weak=False)
    assert promoted(WEAK_FLOAT, scalar("f32", weak=False)) == WEAK_FLOAT
    assert promoted(pair(WEAK_INT, F32), pair(scalar("f32", weak=False), F32)) == \
        pair(scalar("f32", weak=False), F32)


def test_settled_keeps_what_either_side_knows() -> None:
    assert settled(ArrayType.of("f32", (8, None)), ArrayType.of(None, (None, 16))) == F32
    assert settled(WEAK_INT, scalar("f32", weak=False)) == scalar("f32", weak=False)
    assert settled(None, F32) == F32
    batched = ArrayType.of("f32", (8, 16), {"b": 4})
    assert settled(F32, batched) == batched  # a map's body batches the carry: it stays batched
    assert settled(pair(F32, None), pair(None, WEAK_INT)) == pair(F32, WEAK_INT)


def test_scan_slices_leading_axes_and_stacks_ys() -> None:
    assert sliced(F32) == (ArrayType.of("f32", (16,)), 8)
    assert sliced(ArrayType.of("f32", ())) == (None, None)
    assert sliced(ArrayType.of("f32", (3,), ellipsis=0)) == (ArrayType.of("f32", (), ellipsis=0), None)
    assert sliced(ArrayType.of("f32", (5, 3), ellipsis=1)) == (ArrayType.of("f32", (3,), ellipsis=0), 5)
    assert stacked(ArrayType.of("f32", (16,)), 8) == F32
    assert stacked(ArrayType.of("f32", (), ellipsis=0), Sym("T")) == ArrayType.of("f32", (Sym("T"),), ellipsis=1)
    problem = leading_problem("lax.scan", "xs[1]", ArrayType.of("f32", ()))
    assert problem is not None and problem.code == Code.AXIS_OUT_OF_RANGE
    assert leading_problem("lax.scan", "xs", F32) is None


def test_scan_length_agrees_across_leaves_and_length() -> None:
    assert scan_length("lax.scan", [("xs[0]", 8), ("xs[1]", 8)], None, False) == (8, [])
    assert scan_length("lax.scan", [], 5, True) == (5, [])
    assert scan_length("lax.scan", [], None, False) == (None, [])
    assert scan_length("lax.scan", [("xs", Sym("T"))], None, False) == (Sym("T"), [])
    assert scan_length("lax.scan", [("xs[0]", Sym("T")), ("xs[1]", 8)], None, False) == (8, [])
    size, problems = scan_length("lax.scan", [("xs[0]", 8), ("xs[1]", 7)], None, False)
    assert [(p.code, p.operands) for p in problems] == [(Code.NAMED_SIZE_MISMATCH, (0,))]
    size, problems = scan_length("lax.scan", [("xs", 8)], 10, True)
    assert size == 8 and [(p.code, p.operands) for p in problems] == [(Code.NAMED_SIZE_MISMATCH, (1,))]


def test_scalars_the_apis_demand() -> None:
    assert scalar_problem("pred", scalar("bool_", weak=False), PRED_KINDS) is None
    assert scalar_problem("pred", WEAK_FLOAT, PRED_KINDS) is None  # a number is compared with 0
    assert scalar_problem("pred", ArrayType.of("bool_", (1,)), PRED_KINDS) is not None
    assert scalar_problem("pred", ArrayType.of("bool_", (), ellipsis=0), PRED_KINDS) is None
    assert scalar_problem("index", WEAK_INT, INDEX_KINDS) is None
    assert scalar_problem("index", WEAK_FLOAT, INDEX_KINDS) is not None
    assert scalar_problem("cond_fun", WEAK_INT, BOOL_KIND) is not None
    assert scalar_problem("cond_fun", ArrayType.of(None, ()), BOOL_KIND) is None


def test_leaves_carry_their_paths() -> None:
    assert leaves(pair(F32, Node("dict", ("h",), (WEAK_INT,))), "xs") == [("xs[0]", F32), ("xs[1]['h']", WEAK_INT)]
    assert leaves(NONE, "xs") == []
