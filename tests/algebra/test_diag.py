"""`jnp.diag` and `jnp.diagflat` against JAX: every size and offset of a small grid."""

from __future__ import annotations

import pytest

from shapecheck.algebra.layout import diagonal_matrix
from shapecheck.codes import Code
from shapecheck.types import ArrayType

jnp = pytest.importorskip("jax.numpy")

CASES = [((n,), k) for n in (0, 1, 3) for k in (-4, -1, 0, 2)] + \
        [((m, n), k) for m in (1, 3) for n in (2, 4) for k in (-5, -2, 0, 1, 5)]


@pytest.mark.parametrize(("shape", "k"), CASES)
@pytest.mark.parametrize("flat", [False, True])
def test_matches_jax(shape: tuple[int, ...], k: int, flat: bool) -> None:
    outcome = diagonal_matrix(ArrayType("f32", shape), k, flat=flat)
    real = (jnp.diagflat if flat else jnp.diag)(jnp.ones(shape), k)
    assert outcome.problems == ()
    assert outcome.type.dims == real.shape


@pytest.mark.parametrize("shape", [(), (2, 2, 2)])
def test_other_ranks_are_refused_as_jax_refuses_them(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError):
        jnp.diag(jnp.ones(shape))
    assert [p.code for p in diagonal_matrix(ArrayType("f32", shape), 0).problems] == [Code.AXIS_OUT_OF_RANGE]
    assert diagonal_matrix(ArrayType("f32", shape), 0, flat=True).problems == ()


def test_an_unknown_offset_keeps_the_rank() -> None:
    assert diagonal_matrix(ArrayType("f32", (3,)), None).type.dims == (None, None)
    assert diagonal_matrix(ArrayType("f32", (3, 4)), None).type.dims == (None,)
