"""The runtime checks annotated dtypes too (SC301), with the checker's own message."""

from typing import Any

import jax.numpy as jnp
import pytest

from shapecheck import f16, f32, i32
from shapecheck.algebra.promotion import Typed, mismatch_message
from shapecheck.runtime import NamedAxisError, xmap

# Built here, not in the signatures: ruff reads axis names inside annotations as forward references.
F32_BATCH = f32[(), {"batch": 4}]
F16_BATCH = f16[(), {"batch": 4}]
I32_BATCH = i32[(), {"batch": 4}]


def refused(call: Any) -> NamedAxisError:
    with pytest.raises(NamedAxisError) as error:
        call()
    assert error.value.code == "SC301", error.value
    return error.value


def test_an_argument_of_another_dtype_is_refused_with_the_checkers_message() -> None:
    def body(x: I32_BATCH) -> Any:
        return x

    f = xmap(body, in_axes=["batch", ...], out_axes=["batch", ...])
    error = refused(lambda: f(jnp.ones(4)))
    assert mismatch_message("argument 1 (x) of body", "i32", Typed("f32"), x64=False) in str(error)
    assert f(jnp.arange(4)).dtype == jnp.int32


def test_a_result_of_another_dtype_is_refused() -> None:
    def body(x: F32_BATCH) -> I32_BATCH:
        return x * 0.5

    f = xmap(body, in_axes=["batch", ...], out_axes=["batch", ...])
    error = refused(lambda: f(jnp.ones(4)))
    assert "the result of body has dtype f32" in str(error) and "declared i32" in str(error)


def test_what_jax_keeps_is_accepted() -> None:
    def body(x: F16_BATCH) -> F16_BATCH:
        return x * 2.0  # a Python float keeps f16

    f = xmap(body, in_axes=["batch", ...], out_axes=["batch", ...])
    assert f(jnp.ones(4, dtype=jnp.float16)).dtype == jnp.float16
