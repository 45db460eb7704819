"""xmap refuses malformed specs when it is built, before tracing, with the checker's own messages."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest

import shapecheck.runtime.numpy as snp
from shapecheck.api import analyze_source
from shapecheck.config import Config
from shapecheck.literal import from_value
from shapecheck.runtime import NamedAxisError, nn, specs, xmap

GOOD: dict[str, Any] = {"in_axes": ["i", ...], "out_axes": ["i", ...]}

# Each case changes one argument of a good xmap; each value is certainly wrong.
BAD: list[dict[str, Any]] = [
    {"axis_sizes": {"k": 2.7}},
    {"axis_sizes": {"k": -3}},
    {"axis_sizes": {"k": "big"}},
    {"axis_sizes": {"k": True}},
    {"axis_sizes": {"k": None}},
    {"axis_sizes": {3: 4}},
    {"axis_sizes": {"k": 2.7, "m": -1}},
    {"axis_resources": {"i": 3}},
    {"axis_resources": {"i": ("x", 2)}},
    {"axis_resources": {"z": "x"}},
    {"out_axes": ["q", ...]},
    {"out_axes": {0: "q"}, "axis_resources": {"r": "x"}},
    {"in_axes": {0: "i", 1: "i"}},
    {"in_axes": {-1: "i"}},
    {"in_axes": ["i", ..., "j"]},
    {"in_axes": "i"},
    {"in_axes": 5},
]


def source(arguments: dict[str, Any]) -> str:
    """The program that calls xmap with these arguments, as the checker reads it."""
    return f"from jax.experimental.maps import xmap\n\nf = xmap(lambda x: x, {written(arguments)})\n"


def analyzer_messages(arguments: dict[str, Any]) -> list[str]:
    result = analyze_source("prog.py", source(arguments))
    assert result.error is None
    return sorted(d.message for d in result.diagnostics if d.code == "SC002")


def written(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{key}={from_value(value).text}" for key, value in arguments.items())


@pytest.mark.parametrize("change", BAD, ids=[written(change) for change in BAD])
def test_runtime_refuses_with_the_checker_s_messages_before_tracing(change: dict[str, Any]) -> None:
    arguments = {**GOOD, **change}
    traced: list[object] = []

    def body(x: Any) -> Any:
        traced.append(x)
        return x

    with pytest.raises(NamedAxisError) as error:
        xmap(body, **arguments)  # refused here, when the xmap is built: nothing is called yet
    assert not traced
    assert error.value.code == "SC002"
    runtime = sorted(problem.message for problem in error.value.problems)
    assert runtime, error.value
    assert runtime == analyzer_messages(arguments)


def test_fractional_axis_size_is_not_truncated() -> None:
    with pytest.raises(NamedAxisError, match=r"axis_sizes\['k'\] must be a non-negative int; got 2.7"):
        xmap(lambda x: x, in_axes=["i", ...], out_axes=["i", "k", ...], axis_sizes={"k": 2.7})


def test_numpy_integers_are_sizes_and_positions() -> None:
    f = xmap(lambda x: x, in_axes={np.int64(0): "i"}, out_axes=["i", "k", ...],
             axis_sizes={"k": np.int32(3)})
    assert np.asarray(f(np.ones((2, 5)))).shape == (2, 3, 5)


def test_good_values_of_every_option_are_accepted() -> None:
    f = xmap(lambda x: x, in_axes=["i", ...], out_axes=["i", "k", ...], axis_sizes={"k": 0},
             axis_resources={"i": ("x", "y"), "k": "z"})
    assert f.__name__ == "<lambda>"


def test_the_checker_reads_names_bound_to_constants_as_the_runtime_sees_their_values() -> None:
    text = ("from jax.experimental.maps import xmap\n\nSIZE = -3\nAXES = ('x', 2)\nGOOD = 4\n"
            "f = xmap(lambda x: x, ['i', ...], ['i', 'k', 'm', ...], axis_sizes={'k': SIZE, 'm': GOOD},\n"
            "         axis_resources={'i': AXES})\n")
    result = analyze_source("prog.py", text)
    reported = sorted((d.span.line, d.message) for d in result.diagnostics if d.code == "SC002")
    with pytest.raises(NamedAxisError) as error:
        xmap(lambda x: x, ["i", ...], ["i", "k", "m", ...], axis_sizes={"k": -3, "m": 4},
             axis_resources={"i": ("x", 2)})
    assert sorted(message for _, message in reported) == sorted(p.message for p in error.value.problems)
    assert [line for line, _ in reported] == [3, 4, 6]  # each bad value where it was written


def test_a_value_unpacked_from_a_tuple_is_described_by_itself() -> None:
    text = ("from jax.experimental.maps import xmap\n\nK, M = 2.7, 4\n"
            "f = xmap(lambda x: x, ['i', ...], ['i', ...], axis_sizes={'k': K, 'm': M})\n")
    reported = [d.message for d in analyze_source("prog.py", text).diagnostics if d.code == "SC002"]
    with pytest.raises(NamedAxisError) as error:
        xmap(lambda x: x, ["i", ...], ["i", ...], axis_sizes={"k": 2.7, "m": 4})
    assert reported == [p.message for p in error.value.problems] == [
        "axis_sizes['k'] must be a non-negative int; got 2.7"]



# (the body, written and as a function; xmap's arguments; the shapes of the call's arguments)
CALLS: list[tuple[str, Any, dict[str, Any], list[tuple[int, ...]]]] = [
    ("lambda x, y: x * y", lambda x, y: x * y, {"in_axes": (["i", ...], ["i", ...]), "out_axes": ["i", ...]},
     [(5,), (7,)]),
    ("lambda x: x", lambda x: x, {**GOOD, "axis_sizes": {"i": 4}}, [(5,)]),
    ("lambda x: x", lambda x: x, {**GOOD, "in_axes": ["i", None]}, [(2, 3, 4)]),
    ("lambda x: x", lambda x: x, {**GOOD, "out_axes": [...]}, [(5,)]),
    ("lambda x: x", lambda x: x, {**GOOD, "out_axes": [None, None, "i", ...]}, [(5,)]),
    ("lambda x: x", lambda x: x, {**GOOD, "out_axes": (["i", ...], ["i", ...])}, [(5,)]),
    ("lambda x: (x, x)", lambda x: (x, x), {**GOOD, "out_axes": {"a": ["i", ...]}}, [(5,)]),
]


@pytest.mark.parametrize(("body_text", "body", "arguments", "shapes"), CALLS,
                         ids=[written(c[2]) for c in CALLS])
def test_call_time_refusals_match_the_checker(body_text: str, body: Any, arguments: dict[str, Any],
                                              shapes: list[tuple[int, ...]]) -> None:
    """Argument sizes, ranks and results: the runtime's message is the checker's, for the same call."""
    called = ", ".join(f"jnp.ones({shape}, dtype=jnp.float32)" for shape in shapes)
    text = (f"import jax.numpy as jnp\nfrom jax.experimental.maps import xmap\n\n"
            f"f = xmap({body_text}, {written(arguments)})\ny = f({called})\n")
    reported = [(d.code, d.message) for d in analyze_source("prog.py", text).diagnostics]
    with pytest.raises(NamedAxisError) as error:
        xmap(body, **arguments)(*[np.ones(shape, np.float32) for shape in shapes])
    assert reported == [(error.value.code, error.value.message)]


def test_one_hot_refuses_a_wrong_size_with_the_checker_s_message() -> None:
    text = ("import jax\nimport jax.numpy as jnp\nfrom jax.experimental.maps import xmap\n\n"
            "f = xmap(lambda labels: jax.nn.one_hot(labels, 3, axis='classes'), in_axes=[...],\n"
            "         out_axes=['classes', ...], axis_sizes={'classes': 4})\n"
            "y = f(jnp.zeros((2,), dtype=jnp.int32))\n")
    reported = [(d.code, d.message) for d in analyze_source("prog.py", text).diagnostics]
    f = xmap(lambda labels: nn.one_hot(labels, 3, axis="classes"), in_axes=[...],
             out_axes=["classes", ...], axis_sizes={"classes": 4})
    with pytest.raises(NamedAxisError) as error:
        f(np.zeros((2,), np.int32))
    assert reported == [(error.value.code, error.value.message)] == [
        ("SC102", "one_hot: num_classes is 3 but named axis 'classes' has size 4")]


# (the einsum call as written; the same call, run)
EINSUMS: list[tuple[str, Any]] = [
    ("'a{i},a{i},a{i}->a', x, x, x", lambda x: snp.einsum("a{i},a{i},a{i}->a", x, x, x)),
    ("'a{i},a{i}->a', x", lambda x: snp.einsum("a{i},a{i}->a", x)),
    ("'a{i}->a', x, x", lambda x: snp.einsum("a{i}->a", x, x)),
]


@pytest.mark.parametrize(("call", "body"), EINSUMS, ids=[c for c, _ in EINSUMS])
def test_einsum_refuses_an_operand_count_with_the_checker_s_message(call: str, body: Any) -> None:
    text = ("import jax.numpy as jnp\nfrom jax.experimental.maps import xmap\n\n"
            f"f = xmap(lambda x: jnp.einsum({call}), in_axes=['i', ...], out_axes=[...])\n"
            "y = f(jnp.ones((2, 3)))\n")
    reported = [(d.code, d.message) for d in analyze_source("prog.py", text).diagnostics]
    with pytest.raises(NamedAxisError) as error:
        xmap(body, in_axes=["i", ...], out_axes=[...])(np.ones((2, 3), np.float32))
    assert reported == [(error.value.code, error.value.message)]
    assert error.value.code == "SC003"


@pytest.mark.parametrize("name", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                  "float16", "bfloat16", "float32", "float64", "complex64", "complex128"])
def test_the_checker_and_the_runtime_name_a_dtype_alike(name: str) -> None:
    text = f"import jax.numpy as jnp\n\nx = jnp.zeros((2,), dtype=jnp.{name})\n"
    # With x64 on, as requested (off, JAX's default, shows 64-bit requests as the 32-bit types they make).
    result = analyze_source("prog.py", text, Config(x64=True), keep_types=True)
    inferred = [t.type for t in result.types if t.span.line == 3 and t.span.column == 4]
    assert [getattr(t, "dtype", None) for t in inferred] == [specs.dtype_name(jnp.dtype(name))]
    assert specs.dtype_name(jnp.dtype(name)) is not None
