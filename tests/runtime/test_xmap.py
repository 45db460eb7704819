"""xmap's meaning: the tutorial's programs against the same computations written positionally."""


from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.scipy.linalg import expm_frechet

import shapecheck.runtime.numpy as named_jnp
from shapecheck import f32
from shapecheck.runtime import lax, xmap

BATCH20 = f32[(5,), {"batch": 20}]  # outside the signature: ruff reads 'batch' there as a name


def close(a: Any, b: Any) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def test_vdot_becomes_a_matmul() -> None:
    x = jnp.arange(10.0).reshape((2, 5))
    out = xmap(jnp.vdot, in_axes=({0: "left"}, {1: "right"}), out_axes=["left", "right", ...])(x, x.T)
    close(out, x @ x.T)


def test_out_axes_position_transposes() -> None:
    def my_func(x: BATCH20) -> BATCH20:
        assert x.shape == (5,)
        return x

    x = jnp.arange(100.0).reshape((20, 5))
    y = xmap(my_func, in_axes={0: "batch"}, out_axes={1: "batch"})(x)
    close(y, x.T)


def test_named_broadcasting_unions_names() -> None:
    def named_broadcasting(x: Any, y: Any, z: Any) -> Any:
        return (x + y) + (y + z)

    x, y, z = jnp.ones((2, 2, 1, 1)), 2 * jnp.ones((3, 1, 3, 1)), 3 * jnp.ones((5, 1, 1, 5))
    k = xmap(named_broadcasting, in_axes=(["a", ...], ["b", ...], ["c", ...]),
             out_axes=["a", "b", "c", ...])(x, y, z)
    expected = (x[:, None, None] + y[None, :, None]) + (y[None, :, None] + z[None, None, :])
    assert k.shape == (2, 3, 5, 2, 3, 5)
    close(k, expected)


def test_named_and_positional_reduction() -> None:
    def reduce(x: Any, y: Any) -> Any:
        z = x + y
        return named_jnp.sum(z, axis=(0, "x", "y"))

    a, b = jnp.arange(2.0), jnp.arange(20.0).reshape((5, 4))
    out = xmap(reduce, in_axes=({0: "x"}, {1: "y"}), out_axes={})(a, b)
    close(out, jnp.sum(a[:, None, None] + b[None]))


def test_einsum_with_braces() -> None:
    def named(x: Any, y: Any) -> Any:
        return named_jnp.einsum("n{b,k},{k,m}->n{b,m}", x, y)

    x, y = jnp.arange(140.0).reshape((4, 5, 7)) / 100, jnp.arange(77.0).reshape((7, 11)) / 10
    out = xmap(named, in_axes=[{0: "b", 2: "k"}, ["k", "m", ...]], out_axes={0: "b", 2: "m"})(x, y)
    close(out, jnp.einsum("bnk,km->bnm", x, y))


def test_expm_frechet_batched_and_all_pairs() -> None:
    f = partial(expm_frechet, compute_expm=False)
    a = jnp.eye(3) * 0.1 + jnp.arange(9.0).reshape(3, 3) / 50
    batch_a = jnp.stack([a * i for i in range(3)])
    batch_e = jnp.stack([a.T * (i + 1) for i in range(2)])
    pairs = xmap(f, in_axes=(["ba", ...], ["be", ...]), out_axes=["ba", "be", ...])(batch_a, batch_e)
    for i in range(3):
        for j in range(2):
            close(pairs[i, j], f(batch_a[i], batch_e[j]))


def test_pshuffle_and_axis_sizes_only_axis() -> None:
    x = jnp.arange(8)
    out = xmap(lambda x: lax.pshuffle(x, "i", list(reversed(range(8)))),
               in_axes=["i", ...], out_axes=["i", ...])(x)
    close(out, x[::-1])
    # 'j' is defined by axis_sizes alone: the result broadcasts along it.
    both = xmap(lambda x: x * 2 + lax.axis_index("j"), in_axes=["i", ...],
                out_axes=["i", "j", ...], axis_sizes={"j": 3})(x)
    close(both, x[:, None] * 2 + jnp.arange(3)[None, :])


def test_pytree_prefix_and_dict_containers() -> None:
    def body(pair: Any, extra: Any) -> Any:
        a, b = pair
        return {"sum": a + b, "scaled": extra["w"] * 2}

    a, b, w = jnp.arange(6.0).reshape(2, 3), jnp.ones((2, 3)), jnp.arange(4.0)
    out = xmap(body, in_axes=(["i", ...], {"w": ["k", ...]}),
               out_axes={"sum": [None, "i", ...], "scaled": ["k", ...]})((a, b), {"w": w})
    close(out["sum"], (a + b).T)
    close(out["scaled"], w * 2)


def test_result_lacking_an_out_axis_broadcasts() -> None:
    out = xmap(lambda x: jnp.ones(()), in_axes=["i", ...], out_axes=["i", ...])(jnp.arange(4.0))
    close(out, jnp.ones(4))


matmul = xmap(jnp.vdot, in_axes=({0: "left"}, {1: "right"}), out_axes=["left", "right", ...])


def test_composes_with_jit_grad_vmap() -> None:
    x = jnp.arange(12.0).reshape((3, 4)) / 10
    y = jnp.arange(8.0).reshape((4, 2)) / 10
    close(jax.jit(matmul)(x, y), x @ y)
    named_grad = jax.grad(lambda x, y: jnp.sum(jnp.sin(matmul(x, y))), argnums=(0, 1))(x, y)
    plain_grad = jax.grad(lambda x, y: jnp.sum(jnp.sin(x @ y)), argnums=(0, 1))(x, y)
    close(named_grad[0], plain_grad[0])
    close(named_grad[1], plain_grad[1])
    stacked = jnp.stack([x, 2 * x])
    close(jax.vmap(matmul, in_axes=(0, None))(stacked, y), stacked @ y)


def test_nested_xmap() -> None:
    def outer(row: Any) -> Any:
        return xmap(lambda v: v * lax.axis_index("inner"), in_axes=["inner", ...],
                    out_axes=["inner", ...])(row)

    x = jnp.ones((3, 4))
    close(xmap(outer, in_axes=["outer", ...], out_axes=["outer", ...])(x), x * jnp.arange(4.0))


@pytest.mark.parametrize("bad", [{"i": 2}, "i"])
def test_malformed_specs_raise(bad: Any) -> None:
    from shapecheck.runtime import NamedAxisError

    with pytest.raises(NamedAxisError) as error:
        xmap(lambda x: x, in_axes=bad, out_axes=["i", ...])
    assert error.value.code == "SC002"
