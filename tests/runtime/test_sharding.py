"""axis_resources really partitions over the mesh, and never changes results."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, Mesh, PartitionSpec

from shapecheck.runtime import xmap
from tests.runtime.tutorial import IN_AXES, inputs, loss, named_loss


@pytest.fixture(scope="module")
def reference() -> tuple[Any, Any, Any]:
    """The tutorial's inputs, and its loss and gradients without xmap.

    A fixture, not module constants: computing them takes seconds of JAX dispatch, which every
    pytest-xdist worker would pay while collecting, though only one runs these tests.
    """
    args = inputs()
    return args, loss(*args), jax.grad(loss, argnums=(0, 1))(*args)


def devices(shape: tuple[int, ...]) -> Any:
    return np.array(jax.devices()[: int(np.prod(shape))]).reshape(shape)


def shard_shapes(array: Any) -> set[tuple[int, ...]]:
    return {tuple(shard.data.shape) for shard in array.addressable_shards}


BATCH = ({"batch": "x"}, (8,), ("x",))
HIDDEN = ({"hidden": "x"}, (8,), ("x",))
BOTH = ({"batch": "x", "hidden": "y"}, (4, 2), ("x", "y"))
# Every assignment of the tutorial under explicit axes, and each mesh kind at least once.
CASES = [(*BATCH, "legacy"), (*HIDDEN, "auto"), (*BATCH, "explicit"), (*HIDDEN, "explicit"),
         (*BOTH, "explicit"), (*BOTH, "legacy")]


@pytest.mark.parametrize(("resources", "shape", "names", "kind"), CASES)
@pytest.mark.filterwarnings("ignore:.*context manager has been deprecated")
def test_toy_network_partitions_and_matches(resources: dict[str, str], shape: tuple[int, ...],
                                            names: tuple[str, ...], kind: str,
                                            reference: tuple[Any, Any, Any]) -> None:
    args, expected, expected_grad = reference
    f = xmap(named_loss, in_axes=IN_AXES, out_axes=[...], axis_resources=resources)
    if kind == "legacy":
        scope: Any = Mesh(devices(shape), names)
    else:
        axis_type = AxisType.Explicit if kind == "explicit" else AxisType.Auto
        scope = jax.set_mesh(jax.make_mesh(shape, names, (axis_type,) * len(shape)))
    with scope:
        value = f(*args)
        grads = jax.jit(jax.grad(f, argnums=(0, 1)))(*args)
    np.testing.assert_allclose(value, expected, rtol=1e-5)
    for got, want in zip(grads, expected_grad, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    # w1 is [inputs, hidden]: split over the hidden axis's mesh axis when it has one.
    hidden_axis = resources.get("hidden")
    expected_w1 = PartitionSpec(None, hidden_axis) if hidden_axis else PartitionSpec()
    assert grads[0].sharding.spec == expected_w1 or (
        not hidden_axis and grads[0].sharding.is_fully_replicated)


matmul_spec: dict[str, Any] = {"in_axes": ({0: "left"}, {1: "right"}), "out_axes": ["left", "right", ...]}


def test_distributed_matmul_output_and_intermediates_are_split() -> None:
    x = jnp.arange(64.0).reshape(8, 8)
    distr = xmap(jnp.vdot, **matmul_spec, axis_resources={"left": "x", "right": "y"})
    with jax.set_mesh(jax.make_mesh((2, 4), ("x", "y"), (AxisType.Auto, AxisType.Auto))):
        out = distr(x, x)
        text = jax.jit(distr).lower(x, x).as_text()
    np.testing.assert_allclose(out, x @ x)
    assert shard_shapes(out) == {(4, 2)}
    assert len(out.addressable_shards) == 8
    # Each per-example product holds 'left' and 'right': split over both mesh axes.
    assert '[{"x"}, {"y"}' in text


def test_unmapped_values_are_replicated() -> None:
    x = jnp.arange(32.0).reshape(8, 4)
    f = xmap(lambda a, w: (a * 2, w + 1), in_axes=(["i", ...], [...]), out_axes=(["i", ...], [...]),
             axis_resources={"i": "x"})
    with jax.set_mesh(jax.make_mesh((8,), ("x",), (AxisType.Explicit,))):
        split, whole = f(x, jnp.ones(3))
    assert shard_shapes(split) == {(1, 4)}
    assert whole.sharding.is_fully_replicated
    np.testing.assert_allclose(split, x * 2)


def test_inputs_are_split_inside_the_computation() -> None:
    x = jnp.arange(32.0).reshape(8, 4)
    f = xmap(lambda a: a * 2, in_axes=["i", ...], out_axes=[None, "i", ...], axis_resources={"i": "x"})
    with jax.set_mesh(jax.make_mesh((4,), ("x",), (AxisType.Auto,), devices=jax.devices()[:4])):
        text = jax.jit(f).lower(x).as_text()
        out = f(x)
    assert '<@mesh, [{"x"}, {}]>' in text  # the input, constrained before the body runs
    assert shard_shapes(out) == {(4, 2)}
    np.testing.assert_allclose(out, (x * 2).T)
