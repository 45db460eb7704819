"""SC301 in conform: a dtype the value certainly lacks, beside the shape checks (SC103)."""

from __future__ import annotations

from shapecheck import f16, f32, i32
from shapecheck.algebra.conformance import conform, dtype_problem, unknown_where
from shapecheck.codes import Code
from shapecheck.types import ArrayType, scalar


def test_a_contradicted_dtype_is_one_problem_naming_both_and_the_source() -> None:
    problems = conform(i32[(3,)], ArrayType.of("f64", (3,)), {}, "`y`", source="`jnp.ones(3) * 0.5`")
    assert [p.code for p in problems] == [Code.DTYPE_MISMATCH]
    assert problems[0].message.startswith(
        "`y` has dtype f32 (f64 with jax_enable_x64) from `jnp.ones(3) * 0.5` but is declared i32")


def test_shape_and_dtype_are_reported_apart() -> None:
    problems = conform(i32[(3,)], ArrayType.of("f32", (4,)), {}, "`y`")
    assert sorted(p.code for p in problems) == [Code.ANNOTATION_MISMATCH, Code.DTYPE_MISMATCH]


def test_what_may_fit_is_never_reported() -> None:
    assert dtype_problem(f32[(3,)], ArrayType.of(None, (3,)), "`y`") is None  # unknown dtype
    assert dtype_problem(ArrayType.of(None, (3,)), ArrayType.of("i32", (3,)), "`y`") is None  # Array[...]
    assert dtype_problem(f16[()], scalar("f64"), "`y`") is None  # a Python float adapts
    assert dtype_problem(f32[()], scalar("i64"), "`y`") is None  # so does a Python int
    assert dtype_problem(ArrayType.of("f64", ()), ArrayType.of("f64", ()), "`y`", x64=False) is not None
    assert dtype_problem(ArrayType.of("f64", ()), ArrayType.of("f64", ()), "`y`") is None


def test_jaxtyping_categories() -> None:
    floats = ArrayType.of("Float", (3,))
    assert dtype_problem(floats, ArrayType.of("bf16", (3,)), "`y`") is None
    problem = dtype_problem(floats, ArrayType.of("i64", (3,)), "`y`")
    assert problem is not None and "declared Float" in problem.message


def test_after_a_dtype_mismatch_the_dtype_is_unknown_and_the_shape_kept() -> None:
    value = ArrayType.of("f64", (3,))
    problems = conform(i32[(3,)], value, {}, "`y`")
    assert unknown_where(value, problems) == ArrayType.of(None, (3,))
