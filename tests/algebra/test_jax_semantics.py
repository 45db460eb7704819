"""Where NumPy and JAX disagree on a shape, the algebra follows JAX: checked with jax.eval_shape.

The property tests use NumPy as the oracle and leave these cases out; here JAX itself decides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from shapecheck.algebra import layout, linalg
from shapecheck.algebra.einsum import einsum, parse_einsum
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.algebra.reduction import reduce
from shapecheck.algebra.reshape import reshape, squeeze
from shapecheck.types import ArrayType

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def typ(*dims: int) -> ArrayType:
    return ArrayType.of("f32", dims)


def spec(text: str) -> Any:
    parsed = parse_einsum(text)
    assert not isinstance(parsed, Problem)
    return parsed


def jax_shape(fn: Callable[..., Any], *shapes: tuple[int, ...]) -> tuple[int, ...] | None:
    args = [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]
    try:
        return tuple(jax.eval_shape(fn, *args).shape)
    except (ValueError, TypeError, IndexError):
        return None


CASES: list[tuple[str, Callable[..., Any], tuple[tuple[int, ...], ...], Callable[[], Outcome]]] = [
    # NumPy 2 reads -2 as -1; JAX refuses negative sizes.
    ("reshape -2", lambda x: x.reshape(2, -2, 3), ((2, 3),), lambda: reshape(typ(2, 3), [2, -2, 3])),
    # NumPy still lets axis 0 reduce a 0-d array.
    ("sum 0-d axis 0", lambda x: jnp.sum(x, axis=0), ((),), lambda: reduce(typ(), 0)),
    ("max 0-d axis -1", lambda x: jnp.max(x, axis=-1), ((),), lambda: reduce(typ(), -1)),
    ("squeeze 0-d axis 0", lambda x: jnp.squeeze(x, 0), ((),), lambda: squeeze(typ(), 0)),
    ("squeeze repeated", lambda x: jnp.squeeze(x, (0, -2)), ((1, 1),), lambda: squeeze(typ(1, 1), (0, -2))),
    # A diagonal over sizes 1 and 3: NumPy refuses, JAX broadcasts.
    ("einsum ii 1x3", lambda x: jnp.einsum("ii->i", x), ((1, 3),),
     lambda: einsum(spec("ii->i"), [typ(1, 3)])),
    # A diagonal over sizes 0 and 2: NumPy accepts it, JAX refuses.
    ("einsum ee 0x2", lambda x: jnp.einsum("ee->e", x), ((0, 2),),
     lambda: einsum(spec("ee->e"), [typ(0, 2)])),
    # Ellipsis dims left out of the output: NumPy refuses, JAX sums them.
    ("einsum drop ...", lambda x: jnp.einsum("...i->i", x), ((2, 3),),
     lambda: einsum(spec("...i->i"), [typ(2, 3)])),
    ("einsum drop ... mismatched", lambda x, y: jnp.einsum("...i,...i->i", x, y), ((2, 3), (4, 3)),
     lambda: einsum(spec("...i,...i->i"), [typ(2, 3), typ(4, 3)])),
    # jnp.einsum takes any symbol as a subscript (flax writes 'kh1d'); NumPy only letters.
    ("einsum digit subscripts", lambda x, y: jnp.einsum("hk,kh1d->hd", x, y), ((2, 5), (5, 2, 1, 6)),
     lambda: einsum(spec("hk,kh1d->hd"), [typ(2, 5), typ(5, 2, 1, 6)])),
    ("einsum greek subscripts", lambda x, y: jnp.einsum("αβ,βγ->αγ", x, y), ((2, 3), (3, 4)),
     lambda: einsum(spec("αβ,βγ->αγ"), [typ(2, 3), typ(3, 4)])),
    # Both agree, and the algebra used to refuse it: a negative count contracts nothing.
    ("tensordot -1", lambda x, y: jnp.tensordot(x, y, -1), ((2, 3), (3, 4)),
     lambda: linalg.tensordot(typ(2, 3), typ(3, 4), -1)),
    ("tensordot repeated axes", lambda x, y: jnp.tensordot(x, y, ([0, 0], [1, 1])), ((2, 2), (2, 2)),
     lambda: linalg.tensordot(typ(2, 2), typ(2, 2), ([0, 0], [1, 1]))),
    ("expand_dims repeated", lambda x: jnp.expand_dims(x, (0, -3)), ((3,),),
     lambda: layout.expand_dims(typ(3), (0, -3))),
]


@pytest.mark.parametrize(("name", "fn", "shapes", "algebra"), CASES, ids=[c[0] for c in CASES])
def test_algebra_follows_jax(
    name: str, fn: Callable[..., Any], shapes: tuple[tuple[int, ...], ...], algebra: Callable[[], Outcome]
) -> None:
    expected = jax_shape(fn, *shapes)
    out = algebra()
    if expected is None:
        assert out.problems, f"{name}: JAX refuses it but the algebra reports nothing"
    else:
        assert out.problems == (), out
        assert out.type.dims == expected
