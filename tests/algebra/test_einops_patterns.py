"""The einops pattern algebra on its own: parsing, fitting a pattern to an operation, binding
sizes (symbols included) and composing the output; pack and unpack. einops itself decides what
is valid in tests/test_einops_differential.py; these pin the cases where sizes are not ints."""

from __future__ import annotations

import pytest

from shapecheck.algebra.einops_packing import pack, parse_star, unpack
from shapecheck.algebra.einops_patterns import (
    ELLIPSIS,
    Numeric,
    Operation,
    Pattern,
    einsum_spec,
    fit,
    parse,
    reduced_dtype,
    transform,
)
from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import Dim, Sym
from shapecheck.types import ArrayType

B, T = Sym("B", rigid=True), Sym("T", rigid=True)


def parsed(text: str) -> Pattern:
    pattern = parse(text, "einops.rearrange")
    assert isinstance(pattern, Pattern), pattern
    return pattern


def result(operation: Operation, text: str, dims: tuple[Dim, ...], **lengths: Dim) -> ArrayType | Problem:
    pattern = parsed(text)
    problem = fit(operation, pattern, lengths)
    if problem is not None:
        return problem
    outcome = transform(operation, pattern, ArrayType("f32", dims), lengths)
    return outcome.problems[0] if outcome.problems else outcome.type


def test_a_pattern_parses_into_dims_groups_and_ellipsis() -> None:
    pattern = parsed("b (h d) ... 1 () -> b h d ... (1)")
    assert pattern.left.entries[:2] == (("b",), ("h", "d"))
    assert pattern.left.entries[2] == ELLIPSIS
    assert isinstance(pattern.left.entries[3][0], Numeric) and pattern.left.entries[4] == ()


@pytest.mark.parametrize("text", [
    "a b", "a -> b -> c", "a (b -> a b", "a b) -> a b", "a ((b)) -> a b", "a .. -> a", "a ... ... -> a",
    "_a -> _a", "a_ -> a_", "a-b -> a", "a 0 -> a", "a\tb -> a b", "a a -> a",
])
def test_malformed_patterns_are_sc003(text: str) -> None:
    problem = parse(text, "einops.rearrange")
    assert isinstance(problem, Problem) and problem.code == Code.INVALID_EINSUM_SPEC


def test_symbols_move_with_their_axes() -> None:
    assert result("rearrange", "b t d -> t b d", (B, T, 8)) == ArrayType("f32", (T, B, 8))
    assert result("rearrange", "b t (h d) -> b h t d", (B, T, 32), h=4) == ArrayType("f32", (B, 4, T, 8))
    assert result("rearrange", "b t d -> (b t) d", (B, T, 8)) == ArrayType("f32", (None, 8))
    assert result("rearrange", "b 1 d -> b d", (B, 1, 8)) == ArrayType("f32", (B, 8))


def test_unknown_sizes_are_never_reported() -> None:
    # A symbol may be any size: a group that splits it, or a length given for it, is not wrong.
    assert result("rearrange", "b (h d) -> b h d", (B, T), h=5) == ArrayType("f32", (B, 5, None))
    assert result("rearrange", "b d -> b d", (B, T), d=5) == ArrayType("f32", (B, 5))
    assert result("rearrange", "b (h d) -> b h d", (B, None), h=5) == ArrayType("f32", (B, 5, None))
    # A length whose value is unknown is given: nothing is underdetermined.
    assert result("rearrange", "b (h d) -> b h d", (2, 12), h=None) == ArrayType("f32", (2, None, None))
    assert transform("rearrange", parsed("a b -> b a"), ArrayType.anything("f32"), {}).ok


def test_sizes_that_cannot_bind_are_reported() -> None:
    split = result("rearrange", "b (h d) -> b h d", (2, 12), h=5)
    assert isinstance(split, Problem) and split.code == Code.RESHAPE_MISMATCH
    given = result("rearrange", "b d -> b d", (2, 12), d=5)
    assert isinstance(given, Problem) and given.code == Code.NAMED_SIZE_MISMATCH
    rank = result("rearrange", "b t d -> b t d", (2, 12))
    assert isinstance(rank, Problem) and rank.code == Code.INVALID_EINSUM_SPEC
    unit = result("rearrange", "b 1 -> b", (2, 3))
    assert isinstance(unit, Problem) and unit.code == Code.RESHAPE_MISMATCH


@pytest.mark.parametrize(("operation", "text", "lengths"), [
    ("rearrange", "a b -> a", {}),
    ("rearrange", "a b -> a b 2", {}),
    ("rearrange", "a (b c) -> a b c", {}),
    ("rearrange", "a b -> a b", {"z": 2}),
    ("repeat", "a b -> a b c", {}),
    ("repeat", "a b -> a", {}),
    ("repeat", "a 3 -> a 3", {}),
    ("reduce", "a b -> a c", {"c": 2}),
    ("reduce", "a b -> a 2", {}),
    ("rearrange", "a -> a ...", {}),
    ("rearrange", "a (b ...) -> a b ...", {}),
])
def test_patterns_that_do_not_fit_the_operation_are_sc003(operation: Operation, text: str,
                                                           lengths: dict[str, Dim]) -> None:
    problem = fit(operation, parsed(text), lengths)
    assert problem is not None and problem.code == Code.INVALID_EINSUM_SPEC


def test_without_known_lengths_only_the_pattern_is_judged() -> None:
    assert fit("repeat", parsed("a b -> a b c"), None) is None
    assert fit("rearrange", parsed("a b -> a"), None) is not None


def test_repeat_reduce_and_ellipsis() -> None:
    assert result("repeat", "b d -> b r d 2", (B, 4), r=3) == ArrayType("f32", (B, 3, 4, 2))
    assert result("reduce", "b (t 2) d -> b t", (B, 8, 3)) == ArrayType("f32", (B, 4))
    assert result("rearrange", "b ... d -> d (b ...)", (2, 3, 4, 5)) == ArrayType("f32", (5, 24))
    assert result("rearrange", "b ... d -> d b ...", (B, T, 5)) == ArrayType("f32", (5, B, T))


def test_reduction_dtypes_follow_jax_numpy() -> None:
    assert reduced_dtype("max", "i8") == "i8"
    assert reduced_dtype("any", "f32") == "bool_"
    assert reduced_dtype("mean", "bf16") == "bf16"
    assert reduced_dtype("mean", "i32") is None  # einops refuses it; unknown
    assert reduced_dtype(None, "f32") is None  # a function of its own


def test_einops_einsum_becomes_a_jnp_spec() -> None:
    assert einsum_spec("batch d, d k -> batch k") == "ab,bc->ac"
    assert einsum_spec("a a -> a") == "aa->a"
    assert einsum_spec("... d, d -> ...") == "...a,a->..."
    for bad in ("a b, b c", "a b -> c", "a (b c) -> a", "a 1 -> a", "a b -> a a"):
        problem = einsum_spec(bad)
        assert isinstance(problem, Problem) and problem.code == Code.INVALID_EINSUM_SPEC, bad


def test_pack_and_unpack() -> None:
    pattern = parse_star("b * d", "einops.pack")
    assert not isinstance(pattern, Problem)
    packed = pack(pattern, [ArrayType("f32", (B, 1, 8)), ArrayType("f32", (B, 4, 5, 8))])
    assert packed.type == ArrayType("f32", (B, 21, 8)) and packed.shapes == ((1,), (4, 5))
    clash = pack(pattern, [ArrayType("f32", (2, 1, 8)), ArrayType("f32", (2, 4, 16))])
    assert clash.problems[0].code == Code.BROADCAST_MISMATCH
    pieces = unpack(pattern, ArrayType("f32", (B, 21, 8)), [(1,), (4, -1)])
    assert pieces.types == (ArrayType("f32", (B, 1, 8)), ArrayType("f32", (B, 4, 5, 8)))
    wrong = unpack(pattern, ArrayType("f32", (B, 21, 8)), [(1,), (4, 4)])
    assert wrong.problems[0].code == Code.RESHAPE_MISMATCH
    unknown = unpack(pattern, ArrayType("f32", (B, T, 8)), [(1,), (4, 4)])
    assert not unknown.problems  # a symbolic packed dim may be any size
    for bad in ("b d", "* *", "a (b) *", "a a *", "... *"):
        assert isinstance(parse_star(bad, "einops.pack"), Problem), bad
