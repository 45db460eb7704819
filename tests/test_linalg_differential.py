"""jnp.linalg's matrix functions, jnp.outer and jnp.diff against JAX: each drawn program calls
one on `jnp.zeros` of drawn shapes (square or not, of rank 0 to 4, right-hand sides that fit
or not) and unpacks a decomposition's parts. Where JAX accepts, the checker reports nothing
and infers the shape and dtype of `out`; where it raises, the checker reports it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases, check

pytest.importorskip("jax")

CASES = cases(150)

PROGRAM = """\
import jax.numpy as jnp

a = jnp.zeros({a}, {dtype})
b = jnp.zeros({b}, jnp.float32)
{body}
"""

SIZES = st.integers(1, 4)


def _tuple(items: list[int]) -> str:
    return "(" + "".join(f"{item}, " for item in items) + ")"


@st.composite
def matrices(draw: st.DrawFn) -> list[int]:
    """Mostly a stack of square matrices; sometimes not square, or of rank below 2."""
    batch = draw(st.lists(SIZES, max_size=2))
    n = draw(SIZES)
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.lists(SIZES, max_size=1))
    if kind == 1:
        return [*batch, n, draw(SIZES)]
    return [*batch, n, n]


@st.composite
def linalg_programs(draw: st.DrawFn) -> str:
    a = draw(matrices())
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32")))
    name = draw(st.sampled_from(("inv", "cholesky", "det", "eigvalsh", "slogdet", "pinv", "solve", "eigh",
                                 "svd", "qr", "outer", "diff")))
    b = [draw(SIZES)]
    if name == "solve":
        n = a[-1] if a else 1
        kind = draw(st.integers(0, 5))
        if kind == 0:
            b = [n]
        elif kind == 1:
            b = [*draw(st.lists(SIZES, max_size=2)), n, draw(SIZES)]
        elif kind == 2:
            b = [*a[:-2], n, draw(SIZES)]
        elif kind == 3:
            b = [n + 1]  # a vector of another size
        elif kind == 4:
            b = [*a[:-2], n + 1, draw(SIZES)]  # matrices with other rows
        else:
            b = draw(st.lists(SIZES, min_size=1, max_size=3))
        body = "out = jnp.linalg.solve(a, b)"
    elif name == "slogdet":
        body = f"sign, logdet = jnp.linalg.slogdet(a)\nout = {draw(st.sampled_from(('sign', 'logdet')))}"
    elif name == "eigh":
        body = f"w, v = jnp.linalg.eigh(a)\nout = {draw(st.sampled_from(('w', 'v')))}"
    elif name == "svd":
        full = draw(st.booleans())
        if draw(st.integers(0, 3)) == 0:
            body = f"out = jnp.linalg.svd(a, full_matrices={full}, compute_uv=False)"
        else:
            part = draw(st.sampled_from(("u", "s", "vh")))
            body = f"u, s, vh = jnp.linalg.svd(a, full_matrices={full})\nout = {part}"
    elif name == "qr":
        mode = draw(st.sampled_from(("reduced", "complete", "r")))
        body = "out = jnp.linalg.qr(a, mode='r')" if mode == "r" else \
            f"q, r = jnp.linalg.qr(a, mode={mode!r})\nout = {draw(st.sampled_from(('q', 'r')))}"
    elif name == "outer":
        b = draw(st.lists(SIZES, max_size=2))
        body = "out = jnp.outer(a, b)"
    elif name == "diff":
        n = draw(st.integers(0, 4))
        axis = draw(st.integers(-len(a) - 1, len(a)))
        body = f"out = jnp.diff(a, n={n}, axis={axis})"
    else:
        body = f"out = jnp.linalg.{name}(a)"
    return PROGRAM.format(a=_tuple(a), dtype=dtype, b=_tuple(b), body=body)


@given(linalg_programs())
@CASES
def test_linalg_agrees_with_jax(program: str) -> None:
    agree(program, frozenset({"SC101", "SC104", "SC106"}))


@pytest.mark.parametrize(("a", "b", "body"), [
    ((3, 3), (4,), "out = jnp.linalg.solve(a, b)"),  # a right-hand vector of another size
    ((5, 3, 3), (5, 3), "out = jnp.linalg.solve(a, b)"),  # rank 2 is matrices: 5 rows, not 3
    ((5, 3, 3), (3,), "out = jnp.linalg.solve(a, b)"),
    ((2, 1, 3, 3), (5, 3, 2), "out = jnp.linalg.solve(a, b)"),
    ((3, 4), (1,), "out = jnp.linalg.inv(a)"),
    ((1, 4), (1,), "out = jnp.linalg.cholesky(a)"),  # symmetrized: (4, 4)
    ((3, 4), (1,), "w, v = jnp.linalg.eigh(a)\nout = v"),
    ((4,), (1,), "out = jnp.linalg.svd(a, compute_uv=False)"),
    ((2, 3, 5), (1,), "u, s, vh = jnp.linalg.svd(a, full_matrices=False)\nout = vh"),
    ((5, 3), (1,), "q, r = jnp.linalg.qr(a, mode='complete')\nout = q"),
    ((4, 5), (1,), "out = jnp.diff(a, n=7)"),
])
def test_fixed_programs(a: tuple[int, ...], b: tuple[int, ...], body: str) -> None:
    agree(PROGRAM.format(a=_tuple(list(a)), dtype="jnp.float32", b=_tuple(list(b)), body=body),
          frozenset({"SC101", "SC104", "SC106"}))


@st.composite
def more_linalg_programs(draw: st.DrawFn) -> str:
    """jnp.linalg's other functions, and the array API's matvec and vecmat."""
    a = draw(matrices())
    b = draw(st.lists(SIZES, max_size=3))
    name = draw(st.sampled_from(("eig", "eigvals", "svdvals", "lstsq", "multi_dot", "outer", "diagonal", "trace",
                                 "vector_norm", "matrix_norm", "matmul", "matvec", "vecmat")))
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32")))
    if name == "eig":
        body = f"w, v = jnp.linalg.eig(a)\nout = {draw(st.sampled_from(('w', 'v')))}"
    elif name == "lstsq":
        m = draw(SIZES)
        a = [m, draw(SIZES)]
        b = [m if draw(st.integers(0, 4)) else m + 1, *draw(st.lists(SIZES, max_size=1))]
        body = f"x, residuals, rank, s = jnp.linalg.lstsq(a, b)\nout = {draw(st.sampled_from(('x', 's')))}"
    elif name == "multi_dot":
        sizes = draw(st.lists(SIZES, min_size=3, max_size=5))
        shapes = [[sizes[i], sizes[i + 1]] for i in range(len(sizes) - 1)]
        if draw(st.booleans()):
            shapes[0] = shapes[0][1:]
        if draw(st.booleans()):
            shapes[-1] = shapes[-1][:1]
        if draw(st.integers(0, 3)) == 0:
            shapes[-1] = [draw(SIZES), *shapes[-1][1:]]
        arrays = ", ".join(f"jnp.zeros({_tuple(shape)})" for shape in shapes)
        body = f"out = jnp.linalg.multi_dot([{arrays}])"
    elif name == "outer":
        body = "out = jnp.linalg.outer(a, b)"
    elif name in ("diagonal", "trace"):
        offset = f", offset={draw(st.integers(-3, 3))}" if draw(st.booleans()) else ""
        body = f"out = jnp.linalg.{name}(a{offset})"
    elif name == "vector_norm":
        axis = f", axis={draw(st.integers(-len(a) - 1, len(a)))}" if draw(st.booleans()) else ""
        keep = ", keepdims=True" if draw(st.booleans()) else ""
        body = f"out = jnp.linalg.vector_norm(a{axis}{keep})"
    elif name == "matrix_norm":
        keep = ", keepdims=True" if draw(st.booleans()) else ""
        body = f"out = jnp.linalg.matrix_norm(a{keep})"
    elif name == "matmul":
        body = "out = jnp.linalg.matmul(a, b)"
    elif name in ("matvec", "vecmat"):
        if draw(st.integers(0, 2)) and a:
            core = a[-1] if name == "matvec" else (a[-2] if len(a) > 1 else a[-1])
            b = [*draw(st.lists(SIZES, max_size=1)), core]
        first, second = ("a", "b") if name == "matvec" else ("b", "a")
        body = f"out = jnp.{name}({first}, {second})"
    else:
        body = f"out = jnp.linalg.{name}(a)"
    return PROGRAM.format(a=_tuple(a), dtype=dtype, b=_tuple(b), body=body)


@given(more_linalg_programs())
@CASES
def test_more_linalg_agrees_with_jax(program: str) -> None:
    agree(program, frozenset({"SC101", "SC104", "SC106"}))


BATCH_MATMUL = """\
import jax.numpy as jnp
from jax import lax

a = jnp.zeros({a}, {a_dtype})
b = jnp.zeros({b}, {b_dtype})
out = lax.batch_matmul(a, b{option})
"""


@st.composite
def batch_matmul_programs(draw: st.DrawFn) -> str:
    """`lax.batch_matmul` of stacks that fit (a batch of 1 or none, empty matrices), or whose
    contracted dims differ, whose batch dims differ (a 1 is not broadcast), whose ranks differ,
    or of which one is below 2-d."""
    batch = draw(st.lists(SIZES, max_size=2))
    m, k, n = draw(st.integers(0, 4)), draw(SIZES), draw(st.integers(0, 4))
    a, b = [*batch, m, k], [*batch, k, n]
    kind = draw(st.integers(0, 7))
    if kind == 1:
        b = [*batch, k + 1, n]
    elif kind == 2 and batch:
        b = [draw(st.sampled_from((1, batch[0] + 1))), *b[1:]]
    elif kind == 3:
        b = b[1:] if batch else [1, *b]
    elif kind == 4:
        a = draw(st.lists(SIZES, max_size=1))
    a_dtype, b_dtype = (draw(st.sampled_from(("jnp.float32", "jnp.int32", "jnp.bfloat16"))) for _ in range(2))
    option = draw(st.sampled_from(("", ", precision=lax.Precision.HIGHEST", ", None")))
    return BATCH_MATMUL.format(a=_tuple(a), b=_tuple(b), a_dtype=a_dtype, b_dtype=b_dtype, option=option)


@given(batch_matmul_programs())
@CASES
def test_batch_matmul_agrees_with_jax(program: str) -> None:
    agree(program, frozenset({"SC101", "SC104", "SC106"}))


@pytest.mark.parametrize(("a", "b", "code"), [
    ((2, 3), (3, 4), None),  # no batch dims: a plain matrix product
    ((1, 2, 3), (1, 3, 4), None),  # a batch of 1
    ((0, 2, 3), (0, 3, 4), None),  # a batch of none
    ((5, 0, 3), (5, 3, 0), None),
    ((2, 3), (5, 3, 4), "SC101"),  # 'Arguments to batch_matmul must have same ndim, got 2, 3'
    ((5, 2, 3), (1, 3, 4), "SC101"),  # 'batch dimensions ... to have the same shape, got (5,) and (1,)'
    ((5, 2, 3), (5, 2, 4), "SC104"),  # 'contracting dimensions to have the same shape, got (3,) and (2,)'
    ((3,), (3,), "SC106"),  # 'Arguments to batch_matmul must be at least 2D, got 1, 1'
    ((), (), "SC106"),
])
def test_batch_matmul_fixed(a: tuple[int, ...], b: tuple[int, ...], code: str | None) -> None:
    program = BATCH_MATMUL.format(a=_tuple(list(a)), b=_tuple(list(b)), a_dtype="jnp.float32", b_dtype="jnp.float32",
                                  option="")
    agree(program, frozenset({code}) if code else None)
    assert bool(check(program).codes) == (code is not None)
