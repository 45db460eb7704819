"""Symbols of a signature inside its body: type variables, equal only to themselves where a rule
demands equality, and free to be 1 where broadcasting allows it."""

from __future__ import annotations

from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.conformance import conform, rigid
from shapecheck.algebra.einsum import EinsumSpec, einsum, parse_einsum
from shapecheck.algebra.linalg import matmul
from shapecheck.algebra.reshape import reshape
from shapecheck.algebra.vmap_axes import Mapped, mapped_size
from shapecheck.dims import CONFLICT, Dim, Sym, certainly_differ
from shapecheck.types import ArrayType

N, K, M = (Sym(name, rigid=True) for name in "nkm")


def f32(*dims: Dim) -> ArrayType:
    return ArrayType.of("f32", dims)


def test_distinct_rigid_symbols_differ_plain_ones_do_not() -> None:
    assert certainly_differ(N, K)
    assert not certainly_differ(N, Sym("n", rigid=True))
    assert not certainly_differ(Sym("n"), Sym("k"))  # a caller's unknown sizes: may be equal
    assert not certainly_differ(N, 3)  # the function may be meant for that one size


def test_returning_swapped_symbols_contradicts_the_signature() -> None:
    bindings: dict[str, Dim] = {}
    param = rigid(ArrayType.of("f32", (Sym("n"), Sym("k"))), bindings)
    declared = ArrayType.of("f32", (Sym("k"), Sym("n")))
    assert {p.code for p in conform(declared, param, bindings, "the result")} == {"SC103"}
    assert not conform(declared, param.with_dims(param.dims[::-1]), dict(bindings), "the result")


def test_equality_rules_see_distinct_symbols() -> None:
    assert [p.code for p in matmul(f32(N, K), f32(M, K)).problems] == ["SC104"]
    assert matmul(f32(N, K), f32(K, M)).ok
    spec = parse_einsum("ij,kj->ik")
    assert isinstance(spec, EinsumSpec)
    assert [p.code for p in einsum(spec, [f32(N, K), f32(N, M)]).problems] == ["SC104"]
    named = broadcast([ArrayType.of("f32", (), {"a": N}), ArrayType.of("f32", (), {"a": M})])
    assert [p.code for p in named.problems] == ["SC102"]


def test_positional_broadcasting_of_distinct_symbols_is_not_reported() -> None:
    out = broadcast([f32(N), f32(M)])
    assert out.ok and out.type.dims == (None,)


def test_reshape_counts_are_monomials() -> None:
    assert [p.code for p in reshape(f32(N, K), (N, N)).problems] == ["SC105"]
    assert reshape(f32(N, K), (K, N)).ok
    assert reshape(f32(N, K, 2), (2, -1, N)).type.dims == (2, K, N)
    assert reshape(f32(N, 6), (-1, 3)).type.dims == (None, 3)  # 2n: no single dim to name
    assert reshape(f32(N, K), (-1, 3)).ok  # n*k a multiple of 3 for some sizes: in doubt


def test_vmap_mapped_sizes_must_agree_once() -> None:
    size, problems = mapped_size([Mapped(0, "`x`", 0, 8), Mapped(1, "`w`", 0, 7), Mapped(2, "`v`", 0, 9)])
    assert size is CONFLICT and [p.operands for p in problems] == [(1, 0)]
    size, problems = mapped_size([Mapped(0, "`x`", 0, None), Mapped(1, "`w`", 1, 8)], axis_size=8)
    assert size == 8 and not problems


def test_reshape_between_factorisations_is_not_reported() -> None:
    # heads = kv_heads * groups is a relation the annotations cannot state (seen in easydel).
    heads, kv_heads, groups, d = (Sym(name, rigid=True) for name in ("h", "kv", "g", "d"))
    assert reshape(f32(heads, d), (kv_heads, groups, d)).ok
    assert reshape(f32(N, K), (N,)).ok  # k may be 1
    assert reshape(f32(N, K, 1), (N, M)).ok  # a unit axis among symbols: in doubt
