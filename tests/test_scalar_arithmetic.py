"""Python's numbers as the program computes them: module constants as sizes (`D // H`), float
scales (`1 / math.sqrt(d)`, `d ** -0.5`) that keep an array's type, and `math` on known numbers."""

from __future__ import annotations

import ast
import operator as py
import textwrap

import pytest

from shapecheck.analyzer.folding import number_operation
from shapecheck.analyzer.values import AxisSize, Const
from shapecheck.api import analyze_source

_PYTHON = {ast.Add: py.add, ast.Sub: py.sub, ast.Mult: py.mul, ast.Div: py.truediv, ast.FloorDiv: py.floordiv,
           ast.Mod: py.mod, ast.Pow: py.pow, ast.LShift: py.lshift, ast.RShift: py.rshift, ast.BitAnd: py.and_,
           ast.BitOr: py.or_, ast.BitXor: py.xor}


def codes(source: str) -> list[tuple[int, str]]:
    result = analyze_source("t.py", textwrap.dedent(source))
    assert result.error is None, result.error
    return [(d.span.line, d.code) for d in result.diagnostics]


@pytest.mark.parametrize(("operator", "a", "b"), [
    (ast.Add, 2, 3), (ast.Sub, 2, 3.5), (ast.Mult, 4, 16), (ast.Div, 1, 8), (ast.Div, 7, 2.0),
    (ast.FloorDiv, 64, 8), (ast.FloorDiv, -7, 2), (ast.Mod, -7, 3), (ast.Mod, 7.5, 2), (ast.Pow, 64, -0.5),
    (ast.Pow, 2, 10), (ast.Pow, 2, -1), (ast.LShift, 1, 10), (ast.RShift, 1024, 3), (ast.BitAnd, 6, 3),
    (ast.BitOr, 6, 3), (ast.BitXor, 6, 3), (ast.Add, True, 1),
])
def test_numbers_fold_as_python_computes_them(operator: type[ast.operator], a: float, b: float) -> None:
    expected = _PYTHON[operator](a, b)
    folded = number_operation(operator, Const(a), Const(b))
    assert folded == Const(expected) and type(folded.value) is type(expected)


@pytest.mark.parametrize(("operator", "a", "b"), [
    (ast.Div, 1, 0), (ast.FloorDiv, 1, 0), (ast.Mod, 1.0, 0), (ast.Pow, -8, 0.5), (ast.Pow, 10, 10**6),
    (ast.LShift, 1, 10**6), (ast.LShift, 1, -1), (ast.BitAnd, 1.0, 1), (ast.Add, "a", "b"), (ast.Pow, 2.0, 5000),
    (ast.MatMult, 1, 2),
])
def test_what_python_refuses_or_is_too_large_stays_unknown(operator: type[ast.operator], a: object,
                                                            b: object) -> None:
    assert number_operation(operator, Const(a), Const(b)) is None  # type: ignore[arg-type]


def test_an_axis_size_is_a_number_once_known() -> None:
    assert number_operation(ast.FloorDiv, Const(64), AxisSize("k", 8)) == Const(8)
    assert number_operation(ast.FloorDiv, Const(64), AxisSize("k", None)) is None


def test_module_constants_are_sizes_in_functions() -> None:
    assert codes("""\
        import jax.numpy as jnp
        from shapecheck import f32

        D = 64
        H = 8

        def split_heads(x):
            return x.reshape(x.shape[0], H, D // H)

        ok: f32[(4, 8, 8)] = split_heads(jnp.ones((4, 64), jnp.float32))
        wrong: f32[(4, 8, 9)] = split_heads(jnp.ones((4, 64), jnp.float32))
        """) == [(11, "SC103")]


def test_a_float_scale_keeps_the_array_type() -> None:
    # Once unknown, `q * scale` lost its rank and dtype: the wrong annotation went unreported.
    assert codes("""\
        import math
        import jax.numpy as jnp
        from shapecheck import f32

        HEAD = 64 // 8

        def scaled(q):
            return q * (1 / math.sqrt(HEAD))

        def scaled_pow(q):
            return q * HEAD ** -0.5

        a: f32[(4, 64)] = scaled(jnp.ones((4, 64), jnp.float32))
        b: f32[(4, 9)] = scaled(jnp.ones((4, 64), jnp.float32))
        c: f32[(4, 9)] = scaled_pow(jnp.ones((4, 64), jnp.float32))
        """) == [(14, "SC103"), (15, "SC103")]


def test_math_functions_on_known_numbers() -> None:
    assert codes("""\
        import math
        import jax.numpy as jnp
        from shapecheck import f32

        side = math.isqrt(49)
        a: f32[(7, 3)] = jnp.zeros((side, math.ceil(2.5)), jnp.float32)
        b: f32[(12,)] = jnp.zeros(math.prod((3, 4)), jnp.float32)
        c: f32[(3,)] = jnp.zeros(int(math.log2(8)), jnp.float32)
        d: f32[(5,)] = jnp.zeros(math.prod((2, 3), start=1), jnp.float32)
        e: f32[(2,)] = jnp.zeros(math.floor(math.log(100, 10)), jnp.float32)
        """) == [(9, "SC103")]


def test_what_math_refuses_is_unknown_not_a_crash() -> None:
    assert codes("""\
        import math
        import jax.numpy as jnp

        a = jnp.zeros(math.isqrt(-1))
        b = jnp.zeros(math.sqrt(-1.0))
        c = math.log(0)
        d = math.prod([2, object()])
        """) == []


def test_int_truncates_a_known_float() -> None:
    assert codes("""\
        import math
        import jax.numpy as jnp
        from shapecheck import f32

        D, H = 96, 4
        a: f32[(24,)] = jnp.zeros(int(D / H), jnp.float32)
        b: f32[(3,)] = jnp.zeros(int(math.sqrt(10)), jnp.float32)
        c: f32[(4,)] = jnp.zeros(int(-3.7 + 8), jnp.float32)
        d: f32[(5,)] = jnp.zeros(int(2.5), jnp.float32)
        """) == [(9, "SC103")]
