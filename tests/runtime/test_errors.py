"""What the removed xmap never checked, refused at trace time with the checker's codes."""

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh

import shapecheck.runtime.numpy as named_jnp
from shapecheck import f32
from shapecheck.runtime import NamedAxisError, nn, xmap


def mesh(shape: tuple[int, ...], names: tuple[str, ...]) -> Any:
    """The mesh in scope for a block, through `jax.set_mesh` (the legacy context is tested elsewhere)."""
    count = int(np.prod(shape))
    return jax.set_mesh(Mesh(np.array(jax.devices()[:count]).reshape(shape), names))


# Annotations are built here, not in the signatures: ruff reads the axis-name strings inside an
# annotation as forward references (F821).
A4 = f32[(), {"a": 4}]
B12 = f32[(), {"b": 12}]
BATCH20 = f32[(5,), {"batch": 20}]


def raises(code: str, call: Any, *words: str) -> NamedAxisError:
    with pytest.raises(NamedAxisError) as error:
        call()
    assert error.value.code == code, error.value
    for word in words:
        assert word in str(error.value), error.value
    return error.value


def test_size_conflict_between_arguments_names_both() -> None:
    f = xmap(lambda x, y: x * y, in_axes=(["i", ...], ["i", ...]), out_axes=["i", ...])
    raises("SC102", lambda: f(jnp.arange(5), jnp.arange(7)), "'i'", "5", "7", "argument 2")


def test_axis_sizes_conflict() -> None:
    f = xmap(lambda x: x, in_axes=["i", ...], out_axes=["i", ...], axis_sizes={"i": 4})
    raises("SC102", lambda: f(jnp.arange(5)), "axis_sizes")


def test_unplaced_output_axis() -> None:
    f = xmap(lambda x: x, in_axes=["i", ...], out_axes=[...])
    raises("SC203", lambda: f(jnp.arange(5.0)), "'i'")


def test_out_axes_must_name_defined_axes() -> None:
    raises("SC002", lambda: xmap(lambda x: x, in_axes=["i", ...], out_axes=["j", ...]), "'j'")


def test_rank_assertion_of_a_list_without_ellipsis() -> None:
    f = xmap(lambda x: x, in_axes=["i", None], out_axes=["i", ...])
    raises("SC002", lambda: f(jnp.ones((2, 3, 4))))


def test_cooccurrence_in_an_intermediate_names_axes_mesh_axis_and_line() -> None:
    def body(x: Any, y: Any) -> Any:
        return named_jnp.sum(x * y, axis=("a", "b"))  # x * y holds 'a' and 'b' together

    f = xmap(body, in_axes=(["a", ...], ["b", ...]), out_axes=[...], axis_resources={"a": "x", "b": "x"})
    with mesh((4,), ("x",)):
        error = raises("SC201", lambda: f(jnp.ones(4), jnp.ones(8)), "'a'", "'b'", "'x'", "test_errors.py")
    assert error.problems[0].axes == ("a", "b")


def test_cooccurrence_within_one_argument() -> None:
    f = xmap(lambda x: x, in_axes=["a", "b", ...], out_axes=["a", "b", ...],
             axis_resources={"a": "x", "b": "x"})
    with mesh((2,), ("x",)):
        raises("SC201", lambda: f(jnp.ones((2, 2))), "in_axes")


def test_axes_sharing_a_mesh_axis_are_fine_apart() -> None:
    def sum_two_args(x: A4, y: B12) -> f32[()]:
        return named_jnp.sum(x, axis="a") + named_jnp.sum(y, axis="b")

    f = xmap(sum_two_args, in_axes=(["a", ...], ["b", ...]), out_axes=[...],
             axis_resources={"a": "x", "b": "x"})
    with mesh((4,), ("x",)):
        assert float(f(jnp.ones(4), jnp.ones(12))) == 16.0


def test_indivisible_size() -> None:
    f = xmap(lambda x: x, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": "x"})
    with mesh((4,), ("x",)):
        raises("SC205", lambda: f(jnp.ones(6)), "'i'", "6", "'x'")


def test_unknown_mesh_axis_and_missing_mesh() -> None:
    f = xmap(lambda x: x, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": "z"})
    with mesh((4,), ("x",)):
        raises("SC206", lambda: f(jnp.ones(4)), "'z'", "'x'")
    raises("SC206", lambda: f(jnp.ones(4)), "no mesh")


def test_parameter_annotation_contradicted() -> None:
    def body(x: BATCH20) -> Any:
        return x

    f = xmap(body, in_axes={0: "batch"}, out_axes={1: "batch"})
    raises("SC103", lambda: f(jnp.ones((20, 4))), "argument 1 (x)")
    raises("SC103", lambda: f(jnp.ones((10, 5))), "'batch'")


def test_return_annotation_contradicted() -> None:
    def body(x: BATCH20) -> BATCH20:
        return jnp.sum(x)

    f = xmap(body, in_axes={0: "batch"}, out_axes=["batch", ...])
    raises("SC103", lambda: f(jnp.ones((20, 5))), "result")


def test_string_annotations_are_read_without_eval() -> None:
    def body(x: "f32[(3,), {'i': 2}]") -> Any:  # noqa: F821  (ruff reads 'i' as a name)
        return x

    f = xmap(body, in_axes=["i", ...], out_axes=["i", ...])
    raises("SC103", lambda: f(jnp.ones((2, 4))))


def test_one_hot_size_must_match_the_named_axis() -> None:
    f = xmap(lambda labels: nn.one_hot(labels, 3, axis="classes"), in_axes=[...],
             out_axes=["classes", ...], axis_sizes={"classes": 4})
    raises("SC102", lambda: f(jnp.zeros((2,), jnp.int32)), "'classes'")


def test_malformed_einsum_spec() -> None:
    f = xmap(lambda x, y: named_jnp.einsum("n{b,k}},{k}->n", x, y), in_axes=(["b", "k", ...], ["k", ...]),
             out_axes=["b", ...])
    raises("SC003", lambda: f(jnp.ones((2, 3, 4)), jnp.ones(3)))
