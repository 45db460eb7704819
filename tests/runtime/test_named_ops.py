"""Named-axis numpy/lax/nn against positional JAX, values and gradients."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import shapecheck.runtime.numpy as named_jnp
from shapecheck.runtime import lax, nn, xmap
from tests.runtime.tutorial import IN_AXES, inputs, loss, named_loss

X = jnp.arange(24.0).reshape(2, 3, 4) / 7 - 1.0


def close(a: Any, b: Any) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def over_i(body: Any, x: Any = X) -> Any:
    """`body` with x's first dim named 'i' and its result reduced over 'i' (positional rest)."""
    return xmap(body, in_axes=["i", ...], out_axes=[...])(x)


@pytest.mark.parametrize("name", ["sum", "max", "min", "mean", "prod", "var", "std"])
def test_reductions_over_names_and_positions(name: str) -> None:
    named, positional = getattr(named_jnp, name), getattr(jnp, name)
    close(over_i(lambda x: named(x, axis="i")), positional(X, axis=0))
    close(over_i(lambda x: named(x, axis=("i", 1))), positional(X, axis=(0, 2)))
    close(over_i(lambda x: named(x, axis=("i", 0), keepdims=True)), positional(X, axis=(0, 1))[None])


def test_argmax_and_methods_over_a_name() -> None:
    close(over_i(lambda x: named_jnp.argmax(x, axis="i")), jnp.argmax(X, axis=0))
    close(over_i(lambda x: x.sum(axis="i")), X.sum(axis=0))


@pytest.mark.parametrize("name", ["psum", "pmean", "pmax", "pmin"])
def test_collectives_values_and_gradients(name: str) -> None:
    collective = getattr(lax, name)
    positional = {"psum": jnp.sum, "pmean": jnp.mean, "pmax": jnp.max, "pmin": jnp.min}[name]
    close(over_i(lambda x: collective(x, ("i", 0))), positional(X, axis=(0, 1)))
    named_grad = jax.grad(lambda x: jnp.sum(over_i(lambda v: jnp.sin(collective(v, "i")), x)))(X)
    close(named_grad, jax.grad(lambda x: jnp.sum(jnp.sin(positional(x, axis=0))))(X))


def test_psum_of_one_is_the_axis_size() -> None:
    sizes = xmap(lambda x: x * 0 + lax.psum(1, "i"), in_axes=["i", ...], out_axes=["i", ...])(X)
    close(sizes, jnp.full(X.shape, 2.0))


def test_pdot_contracts_named_and_positional_axes() -> None:
    a, b = jnp.arange(24.0).reshape(4, 2, 3), jnp.arange(20.0).reshape(4, 5)
    out = xmap(lambda a, b: lax.pdot(a, b, "k"), in_axes=(["k", ...], ["k", ...]), out_axes=[...])(a, b)
    close(out, jnp.einsum("kij,kl->ijl", a, b))
    c = jnp.arange(60.0).reshape(4, 3, 5) / 10
    out = xmap(lambda a, c: lax.pdot(a, c, "k", pos_contract=((1,), (0,))),
               in_axes=(["k", ...], ["k", ...]), out_axes=[...])(a, c)
    close(out, jnp.einsum("kij,kjl->il", a, c))


def test_einsum_with_an_implicit_output_and_a_one_sided_name() -> None:
    a, b = jnp.arange(12.0).reshape(3, 4), jnp.arange(4.0)
    out = xmap(lambda a, b: named_jnp.einsum("{r,c},{c}->{r}", a, b), in_axes=(["r", "c", ...], ["c", ...]),
               out_axes=["r", ...])(a, b)
    close(out, a @ b)
    out = xmap(lambda a: named_jnp.einsum("{r,c}->", a), in_axes=["r", "c", ...], out_axes=[...])(a)
    close(out, jnp.sum(a))


def test_one_hot_along_a_named_axis() -> None:
    labels = jnp.array([2, 0, 1])
    out = xmap(lambda label: nn.one_hot(label, 4, axis="classes"), in_axes=["b", ...],
               out_axes=["b", "classes", ...], axis_sizes={"classes": 4})(labels)
    close(out, jax.nn.one_hot(labels, 4))


def test_logsumexp_softmax_over_names_with_gradients_inside_and_outside() -> None:
    def named(x: Any) -> Any:
        entropy = named_jnp.sum(nn.softmax(x, "i") * nn.log_softmax(x, "i"), axis=("i", 1))
        return nn.logsumexp(x, ("i", 1)) + entropy

    def positional(x: Any) -> Any:
        entropy = jnp.sum(jax.nn.softmax(x, 0) * jax.nn.log_softmax(x, 0), axis=(0, 2))
        return jax.nn.logsumexp(x, (0, 2)) + entropy

    named_fn = xmap(named, in_axes=["i", ...], out_axes=[...])
    close(named_fn(X), positional(X))
    close(jax.grad(lambda x: jnp.sum(named_fn(x)))(X), jax.grad(lambda x: jnp.sum(positional(x)))(X))
    # Differentiated inside the body: the removed xmap failed here (pmax had no derivative).
    # As with jax.vmap's collectives, every instance of 'i' seeds the replicated result, so
    # the gradient is that of the sum over the 2 instances.
    inner = xmap(lambda x: jax.grad(lambda v: nn.logsumexp(v, ("i", 0, 1)))(x),
                 in_axes=["i", ...], out_axes=["i", ...])(X)
    close(inner, jax.grad(lambda x: 2 * jax.nn.logsumexp(x))(X))


def test_toy_network_loss_and_gradients_match_positional() -> None:
    args = inputs()
    named = xmap(named_loss, in_axes=IN_AXES, out_axes=[...])
    close(named(*args), loss(*args))
    for got, want in zip(jax.grad(named, argnums=(0, 1))(*args), jax.grad(loss, argnums=(0, 1))(*args),
                         strict=True):
        close(got, want)


def test_everything_else_passes_through() -> None:
    assert named_jnp.float32 is jnp.float32
    assert named_jnp.dot is jnp.dot
    assert nn.relu is jax.nn.relu
    assert lax.dot_general is jax.lax.dot_general


def test_names_the_runtime_does_not_redefine_are_jaxs_own() -> None:
    # A stand-in module that imported a public helper called `split` or `gather` shadowed
    # jnp.split / lax.gather for every program run under `shapecheck run` or migrated to it.
    # What a stand-in redefines on purpose is defined in it or exported in its __all__.
    import jax.scipy.special

    import shapecheck.runtime.special as named_special

    for stand_in, original in ((named_jnp, jnp), (lax, jax.lax), (nn, jax.nn), (named_special, jax.scipy.special)):
        exported = set(getattr(stand_in, "__all__", ()))
        for name, value in vars(stand_in).items():
            if name.startswith("_") or not hasattr(original, name) or name in exported:
                continue
            if getattr(value, "__module__", None) == stand_in.__name__:
                continue  # a named-axis version written there
            assert value is getattr(original, name), f"{stand_in.__name__}.{name} shadows {original.__name__}.{name}"
    close(named_jnp.split(jnp.arange(4.0), 2)[1], jnp.array([2.0, 3.0]))
    assert lax.gather is jax.lax.gather
