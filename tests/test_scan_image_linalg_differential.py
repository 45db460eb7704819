"""lax.associative_scan, jax.image.resize and jax.scipy.linalg's inv, det, cholesky, expm,
cho_factor, cho_solve, solve_triangular and block_diag against JAX, on `jnp.zeros` of drawn
shapes (rank 0 to 4, sizes 1 to 4): scanned leaves of one length or not, along drawn axes
(a function that changes its operands' shapes is not drawn: it fails inside JAX's scan);
target shapes of the image's rank or not; matrices square or not, right-hand sides of their
rows or not. Where JAX accepts, the checker reports nothing and infers the shape and dtype of
`out`; where it raises, the checker reports it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases

pytest.importorskip("jax")

CASES = cases(150)
CODES = frozenset({"SC101", "SC103", "SC104", "SC106", "SC107"})

SIZES = st.integers(1, 4)


def _zeros(shape: list[int] | tuple[int, ...], dtype: str = "jnp.float32") -> str:
    return "jnp.zeros((" + "".join(f"{size}, " for size in shape) + f"), {dtype})"


@st.composite
def programs(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(("associative_scan", "resize", "inv", "det", "cholesky", "expm", "cho_factor",
                                 "cho_solve", "solve_triangular", "block_diag")))
    if name == "associative_scan":
        shape = draw(st.lists(SIZES, min_size=1, max_size=3))
        axis = draw(st.integers(-len(shape) - 1, len(shape)))
        # The pair's second leaf has the first's shape, or another length along the axis: a
        # function that changes its operands' shapes fails inside JAX's scan, which the
        # checker does not follow (it checks the leaves' lengths and the function's body).
        other = list(shape)
        if draw(st.integers(0, 3)) == 0 and -len(shape) <= axis < len(shape):
            other[axis] = draw(SIZES)
        fn = draw(st.sampled_from(("jnp.add", "jnp.maximum", "lambda a, b: a * b")))
        if draw(st.booleans()):
            body = f"out = jax.lax.associative_scan({fn}, {_zeros(shape)}, axis={axis})"
        else:
            pair = "lambda a, b: (a[0] * b[0], a[1] * b[0] + b[1])"
            body = (f"a, b = jax.lax.associative_scan({pair}, ({_zeros(shape)}, {_zeros(other)}), axis={axis})\n"
                    f"out = {draw(st.sampled_from(('a', 'b')))}")
    elif name == "resize":
        shape = draw(st.lists(SIZES, min_size=1, max_size=4))
        target = [draw(SIZES) for _ in range(len(shape) + draw(st.sampled_from((0, 0, 0, -1, 1))))]
        method = draw(st.sampled_from(("nearest", "linear", "bilinear", "cubic", "lanczos3")))
        dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32")))
        body = f"out = jax.image.resize({_zeros(shape, dtype)}, {tuple(target)!r}, {method!r})"
    elif name == "block_diag":
        arrays = ", ".join(_zeros(draw(st.lists(SIZES, max_size=2))) for _ in range(draw(st.integers(1, 3))))
        body = f"out = jax.scipy.linalg.block_diag({arrays})"
    else:
        n = draw(SIZES)
        matrix = [*draw(st.lists(SIZES, max_size=1)), n, n if draw(st.integers(0, 4)) else draw(SIZES)]
        if name in ("cho_solve", "solve_triangular"):
            matrix = matrix[-2:]
            rows = n if draw(st.integers(0, 4)) else draw(SIZES)
            b = _zeros([rows, *draw(st.lists(SIZES, max_size=1))])
            first = f"({_zeros(matrix)}, True)" if name == "cho_solve" else _zeros(matrix)
            body = f"out = jax.scipy.linalg.{name}({first}, {b})"
        elif name == "cho_factor":
            body = f"c, lower = jax.scipy.linalg.cho_factor({_zeros(matrix)})\nout = c"
        else:
            body = f"out = jax.scipy.linalg.{name}({_zeros(matrix)})"
    return f"import jax\nimport jax.numpy as jnp\nimport jax.scipy.linalg\n\n{body}\n"


@given(programs())
@CASES
def test_scan_image_linalg_agree_with_jax(program: str) -> None:
    agree(program, CODES)


@pytest.mark.parametrize("body", [
    "out = jax.lax.associative_scan(jnp.add, jnp.zeros((5, 3)), axis=1)",
    "a, b = jax.lax.associative_scan(lambda x, y: (x[0] * y[0], x[1] * y[0] + y[1]), "
    "(jnp.zeros((5, 4)), jnp.zeros((4, 4))))\nout = a",  # leaves of two lengths
    "out = jax.image.resize(jnp.zeros((8, 8, 3)), (16, 16), 'bilinear')",  # the channels' size missing
    "out = jax.image.resize(jnp.zeros((8, 8, 3), jnp.int32), (16, 16, 3), 'bilinear')",  # floating point
    "out = jax.scipy.linalg.solve_triangular(jnp.zeros((3, 3)), jnp.zeros((4,)))",
    "out = jax.scipy.linalg.block_diag(jnp.zeros(()), jnp.zeros((4, 5)))",  # (5, 6)
    "out = jax.lax.associative_scan(jnp.add, jnp.zeros((0, 2)))",  # nothing to scan: (0, 2)
])
def test_fixed_programs(body: str) -> None:
    agree(f"import jax\nimport jax.numpy as jnp\nimport jax.scipy.linalg\n\n{body}\n", CODES)
