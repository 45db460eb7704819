"""The sampling algebra on what JAX cannot show: symbolic and unknown sizes.

What it computes on known sizes is checked against JAX and NumPy in
tests/test_random_differential.py."""

from __future__ import annotations

from shapecheck.algebra.sampling import categorical, choice, drawn, permutation, split, to_shape
from shapecheck.codes import Code
from shapecheck.dims import Sym
from shapecheck.types import ArrayType

N = Sym("n", rigid=True)


def f32(*dims: object) -> ArrayType:
    return ArrayType.of("f32", dims)  # type: ignore[arg-type]


def test_parameters_broadcast_to_the_shape() -> None:
    assert to_shape((N, 3), [f32(3), f32(1, 1), f32(N, 1), f32(None, 3)], "t") == []
    assert [p.code for p in to_shape((3,), [f32(1, 3)], "t")] == [Code.BROADCAST_MISMATCH]  # a new dim
    assert [p.code for p in to_shape((N,), [f32(4)], "t")] == []  # n may be 4
    assert to_shape((3,), [ArrayType.anything("f32")], "t") == []


def test_without_a_shape_the_parameters_make_it() -> None:
    out = drawn(None, [f32(N, 1), f32(4)], "f32", "t")
    assert out.ok and out.type == f32(N, 4)
    assert drawn(None, [], "f32", "t").type == f32()


def test_keys_split_along_new_leading_dims() -> None:
    assert split(ArrayType.of("u32", (2,)), (N,)) == ArrayType.of("u32", (N, 2))
    assert split(ArrayType(None, ()), (2, 3)) == ArrayType(None, (2, 3))
    assert split(ArrayType(None, (2,)), (3,)) is None  # a batch of typed keys, or a raw key: not known


def test_categorical_permutation_choice_with_symbols() -> None:
    assert categorical(f32(N, 10), -1, None, True, "i32").type == ArrayType.of("i32", (N,))
    assert categorical(f32(N, 10), 0, (4, 10), True, "i32").ok
    assert [p.code for p in categorical(f32(N, 5), -1, (6, N), False, "i32").problems] == \
        [Code.SIZE_ARGUMENT_MISMATCH]
    assert categorical(f32(N, None), -1, (6, N), False, "i32").ok
    assert permutation(f32(N, 3), 1).ok and permutation(f32(N), 1).problems
    assert choice(f32(N, 2), (3,), False, None, 0, "i32").type == f32(3, 2)  # n may be 3 or more
    assert choice(5, (N,), False, None, 0, "i32").ok
