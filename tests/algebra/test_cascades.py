"""One conflict, one problem: the conflicting size is unknown in everything built from it."""

from __future__ import annotations

from shapecheck.algebra.axis_mapping import AxisSizes
from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.conformance import conform, unknown_where
from shapecheck.algebra.einsum import EinsumSpec, einsum, parse_einsum
from shapecheck.algebra.layout import concatenate
from shapecheck.algebra.linalg import matmul
from shapecheck.dims import CONFLICT, Dim, Sym, certainly_differ, unify
from shapecheck.types import ArrayType


def f32(dims: tuple[int, ...], named: dict[str, int] | None = None) -> ArrayType:
    return ArrayType.of("f32", dims, named or {})


def test_named_conflict_is_unknown_and_stays_unknown() -> None:
    first = broadcast([f32((2,), {"k": 3}), f32((2,), {"k": 4})])
    assert [p.code for p in first.problems] == ["SC102"]
    assert first.type.named_dict["k"] is CONFLICT
    # Meeting either side again (or a third size) says nothing new, and does not pick a side.
    for size in (3, 4, 5):
        again = broadcast([first.type, f32((2,), {"k": size})])
        assert again.ok and again.type.named_dict["k"] is CONFLICT


def test_failed_positional_broadcast_is_unknown_downstream() -> None:
    failed = broadcast([f32((3, 4)), f32((5, 4)), f32((7, 4))])
    assert [p.code for p in failed.problems] == ["SC101"]
    assert failed.type.dims == (CONFLICT, 4)
    assert broadcast([failed.type, f32((3, 4))]).type.dims == (CONFLICT, 4)
    assert broadcast([failed.type, f32((6, 4))]).ok


def test_einsum_letter_conflict_is_unknown_in_the_result() -> None:
    spec = parse_einsum("ij,ij->ij")
    assert isinstance(spec, EinsumSpec)
    out = einsum(spec, [f32((3, 4)), f32((3, 5))])
    assert [p.code for p in out.problems] == ["SC104"]
    assert out.type.dims == (3, CONFLICT)


def test_matmul_batch_and_concatenate_conflicts_are_unknown() -> None:
    product = matmul(f32((2, 3, 4)), f32((5, 4, 6)))
    assert [p.code for p in product.problems] == ["SC101"]
    assert product.type.dims == (CONFLICT, 3, 6)
    joined = concatenate([f32((3, 4)), f32((5, 4)), f32((3, 4))], axis=1)
    assert [p.code for p in joined.problems] == ["SC101"]
    assert joined.type.dims == (CONFLICT, 12)


def test_xmap_sizes_report_a_conflict_once() -> None:
    sizes = AxisSizes()
    for operand, size in enumerate((8, 7, 8, 9)):
        sizes.add("k", size, f"argument {operand + 1}", operand)
    assert len(sizes.problems) == 1
    assert sizes.sizes["k"] is CONFLICT


def test_conflict_never_differs_and_absorbs() -> None:
    assert not certainly_differ(CONFLICT, 3)
    assert unify(CONFLICT, 3) is CONFLICT and unify(3, CONFLICT) is CONFLICT


def test_after_an_annotation_mismatch_only_the_contradicted_part_is_unknown() -> None:
    declared = f32((3, 4), {"k": 2})
    problems = conform(declared, f32((5, 4), {"k": 2}), {}, "x")
    assert [p.code for p in problems] == ["SC103"]
    assert unknown_where(declared, problems).dims == (CONFLICT, 4)
    rank = conform(declared, f32((3,), {"k": 2}), {}, "x")
    assert unknown_where(declared, rank).ellipsis is not None


def test_a_symbol_two_arguments_disagree_on_is_unknown() -> None:
    bindings: dict[str, Dim] = {}
    declared = ArrayType.of("f32", (Sym("n"),))
    assert not conform(declared, f32((5,)), bindings, "x")
    assert conform(declared, f32((7,)), bindings, "y")
    assert bindings["n"] is CONFLICT
    assert not conform(declared, f32((9,)), bindings, "z")
