"""PartitionSpecs against values and meshes: SC106, SC206, SC201, SC205, blocks and assembly.

Each wrong case is one JAX 0.10 raises for (shard_map on 8 CPU devices, `Mesh((2, 4), ('x',
'y'))`): "in_specs entry which is too long", "must refer to an axis marked as manual",
DuplicateSpecError, "not evenly divisible by the corresponding mesh axis sizes".
"""

from __future__ import annotations

import pytest

from shapecheck.algebra.partition_spec import (
    UNKNOWN_ENTRY,
    MeshAxes,
    PartitionSpec,
    SpecEntry,
    assemble,
    block,
    out_spec_problems,
    spec_problems,
)
from shapecheck.dims import CONFLICT, Dim, Sym
from shapecheck.types import ArrayType

MESH = MeshAxes((("x", 2), ("y", 4)))
WHAT = "argument 'a' of shard_map (in_specs[0])"


def P(*entries: str | tuple[str, ...] | None) -> PartitionSpec:
    dims: list[SpecEntry] = []
    for entry in entries:
        dims.append(() if entry is None else (entry,) if isinstance(entry, str) else entry)
    return PartitionSpec(tuple(dims))


def arr(*dims: Dim) -> ArrayType:
    return ArrayType("f32", dims)


def codes(spec: PartitionSpec, value: ArrayType, mesh: MeshAxes = MESH) -> list[str]:
    return [problem.code for problem in spec_problems(spec, value, mesh, WHAT)]


@pytest.mark.parametrize("spec", [P(), P("x"), P(None, "y"), P(("x", "y")), P("y", "x"), P(None, None)])
def test_specs_jax_accepts(spec: PartitionSpec) -> None:
    assert codes(spec, arr(8, 8)) == []


def test_spec_longer_than_rank() -> None:
    (problem,) = spec_problems(P("x", None, None), arr(4, 4), MESH, WHAT)
    assert problem.code == "SC106"
    assert problem.sizes == (3, 2)
    assert "P('x', None, None)" in problem.message and "rank 2" in problem.message
    assert WHAT in problem.message


def test_spec_on_a_scalar() -> None:
    assert codes(P("x"), arr()) == ["SC106"]
    assert codes(P(), arr()) == []


def test_unknown_mesh_axis() -> None:
    (problem,) = spec_problems(P(None, "z"), arr(4, 4), MESH, WHAT)
    assert problem.code == "SC206"
    assert problem.axes == ("z",)
    assert "'z'" in problem.message and "'x', 'y'" in problem.message and "dim 1" in problem.message


def test_unknown_mesh_axis_in_a_tuple_entry() -> None:
    assert codes(P(("x", "model")), arr(4, 4)) == ["SC206"]


def test_mesh_with_unread_names_reports_no_missing_axis() -> None:
    partial = MeshAxes((("x", 2),), names_known=False)
    assert codes(P("z"), arr(4, 4), partial) == []


@pytest.mark.parametrize("spec", [P("x", "x"), P(("x", "x")), P(("x", "y"), "y")])
def test_mesh_axis_twice(spec: PartitionSpec) -> None:
    (problem,) = spec_problems(spec, arr(8, 8), MESH, WHAT)
    assert problem.code == "SC201"
    assert len(problem.axes) == 1 and f"'{problem.axes[0]}'" in problem.message


def test_mesh_axis_twice_names_both_dims() -> None:
    (problem,) = spec_problems(P("x", "x"), arr(8, 8), MESH, WHAT)
    assert "dims 0 and 1" in problem.message


def test_indivisible_dim() -> None:
    (problem,) = spec_problems(P("y"), arr(6, 4), MESH, WHAT)
    assert problem.code == "SC205"
    assert problem.sizes == (6, 4)
    assert problem.axes == ("y",)
    assert "dim 0" in problem.message and "'y' (4)" in problem.message and "6" in problem.message


def test_indivisible_by_the_product_of_a_tuple_entry() -> None:
    # 4 splits over 'x' (2) and over 'y' (4), but not over both (8).
    (problem,) = spec_problems(P(("x", "y")), arr(4, 4), MESH, WHAT)
    assert problem.code == "SC205"
    assert problem.sizes == (4, 8)
    assert "'x' (2) x 'y' (4)" in problem.message


def test_indivisible_by_the_known_part_of_a_product() -> None:
    # Whatever size 'b' has, 2 * size('b') cannot divide 3.
    mesh = MeshAxes((("a", 2), ("b", None)))
    assert codes(P(("a", "b")), arr(3), mesh) == ["SC205"]
    assert codes(P(("a", "b")), arr(4), mesh) == []


@pytest.mark.parametrize("size", [None, Sym("n"), Sym("n", rigid=True), CONFLICT])
def test_unknown_sizes_never_report(size: Dim) -> None:
    assert codes(P("y"), arr(size, 4)) == []
    assert codes(P("y"), arr(6, 4), MeshAxes((("x", 2), ("y", None)))) == []


def test_unknown_entries_never_report() -> None:
    spec = PartitionSpec((UNKNOWN_ENTRY, ("y",)))
    assert codes(spec, arr(3, 8)) == []
    assert block(spec, arr(3, 8), MESH) == arr(None, 2)


def test_unknown_rank_checks_only_the_certain_dims() -> None:
    open_rank = ArrayType("f32", (6,), ellipsis=1)
    assert codes(P("x", None, None, None), open_rank) == []
    assert codes(P("y", None), open_rank) == ["SC205"]


def test_one_problem_per_mistake() -> None:
    # The duplicate is SC201 only: dividing the second dim by 'x' again would echo it.
    assert codes(P("x", "x"), arr(8, 3)) == ["SC201"]
    assert codes(P("z"), arr(3)) == ["SC206"]


def test_several_mistakes_in_one_spec() -> None:
    assert sorted(codes(P("y", "z", None), arr(6, 4))) == ["SC106", "SC205", "SC206"]


def test_block_divides_each_dim_by_its_mesh_axes() -> None:
    assert block(P("x"), arr(8, 6), MESH) == arr(4, 6)
    assert block(P(None, ("x", "y")), arr(3, 16), MESH) == arr(3, 2)
    assert block(P("y", "x"), arr(8, 6, 5), MESH) == arr(2, 3, 5)
    assert block(P(), arr(8, 6), MESH) == arr(8, 6)


def test_block_is_unknown_where_not_certain() -> None:
    assert block(P("y"), arr(6), MESH) == arr(None)  # indivisible: SC205 says so
    assert block(P("y"), arr(Sym("n")), MESH) == arr(None)
    assert block(P("q"), arr(8), MeshAxes((("q", None),))) == arr(None)
    assert block(P(None), arr(Sym("n")), MESH) == arr(Sym("n"))


def test_block_keeps_dtype_and_named_axes() -> None:
    value = ArrayType("bf16", (8,), (("k", 3),))
    assert block(P("x"), value, MESH) == ArrayType("bf16", (4,), (("k", 3),))


def test_block_past_an_ellipsis_is_unknown() -> None:
    value = ArrayType("f32", (8, 5), ellipsis=1)
    assert block(P("x", "y"), value, MESH) == ArrayType("f32", (4, None), ellipsis=1)
    assert block(P("x", None), value, MESH) == ArrayType("f32", (4, 5), ellipsis=1)


def test_assemble_multiplies_back() -> None:
    assert assemble(P("x"), arr(4, 6), MESH) == arr(8, 6)
    assert assemble(P(None, ("x", "y")), arr(3, 2), MESH) == arr(3, 16)
    assert assemble(P(), arr(4), MESH) == arr(4)
    assert assemble(P("x"), arr(None), MESH) == arr(None)
    assert assemble(PartitionSpec((UNKNOWN_ENTRY,)), arr(4), MESH) == arr(None)


@pytest.mark.parametrize("spec", [P("x"), P(None, "y"), P(("x", "y"), None), P("y", "x")])
def test_assemble_inverts_block(spec: PartitionSpec) -> None:
    value = arr(16, 8)
    assert assemble(spec, block(spec, value, MESH), MESH) == value


def test_out_spec_problems() -> None:
    what = "result of shard_map (out_specs)"
    assert [p.code for p in out_spec_problems(P("x", None, None), arr(2, 4), MESH, what)] == ["SC106"]
    assert [p.code for p in out_spec_problems(P("z"), arr(2, 4), MESH, what)] == ["SC206"]
    assert [p.code for p in out_spec_problems(P("x", "x"), arr(2, 4), MESH, what)] == ["SC201"]
    # Assembly multiplies: any block size is fine.
    assert out_spec_problems(P("y"), arr(3, 4), MESH, what) == []


def test_shown_text() -> None:
    assert P("x", None, ("x", "y")).shown == "P('x', None, ('x', 'y'))"
    assert PartitionSpec((("x",),), text="P('x')").shown == "P('x')"
    assert PartitionSpec((UNKNOWN_ENTRY,)).shown == "P(...)"
