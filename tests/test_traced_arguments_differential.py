"""A Python int passed to a jitted function is traced there: where JAX needs a concrete value (a
shape, a count, an axis, a slice bound, `range`, `int`) it refuses one, and the checker reports
SC107 on that line. Each case runs on JAX: reported exactly where JAX refuses, silent where JAX
runs (a static argument, an index, a shift, a loop bound, repeats with total_repeat_length)."""

from __future__ import annotations

import pytest

from shapecheck.api import analyze_source

pytest.importorskip("jax")

HEADER = """\
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax

x = jnp.ones(12)
"""

# name -> (the jitted body's expression of `x` and `n`, whether JAX refuses it)
CASES: dict[str, tuple[str, bool]] = {
    "zeros": ("jnp.zeros(n)", True),
    "zeros of a tuple": ("jnp.zeros((n, 2))", True),
    "reshape method": ("x.reshape(n, -1)", True),
    "reshape function": ("jnp.reshape(x, (n, -1))", True),
    "one_hot classes": ("jax.nn.one_hot(jnp.arange(3), n)", True),
    "segment_sum segments": ("jax.ops.segment_sum(x, jnp.zeros(12, jnp.int32), num_segments=n)", True),
    "linspace num": ("jnp.linspace(0.0, 1.0, num=n)", True),
    "linspace bounds": ("jnp.linspace(0.0, n, num=4)", False),
    "arange": ("jnp.arange(n)", True),
    "arange from a start": ("jnp.arange(1, n)", True),
    "dynamic_slice sizes": ("lax.dynamic_slice(x, (0,), (n,))", True),
    "top_k": ("lax.top_k(x, n)", True),
    "tile reps": ("jnp.tile(x, n)", True),
    "sum axis": ("jnp.sum(x.reshape(3, 4), axis=n - 3)", True),
    "repeat count": ("jnp.repeat(x, n)", True),
    "repeat with total length": ("jnp.repeat(x, n, total_repeat_length=36)", False),
    "a slice bound": ("x[:n]", True),
    "an index": ("x[n]", False),
    "a roll": ("jnp.roll(x, n)", False),
    "dynamic_slice start": ("lax.dynamic_slice(x, (n,), (2,))", False),
    "fori_loop bound": ("lax.fori_loop(0, n, lambda i, c: c + 1.0, x)", False),
    "range": ("sum(x[i] for i in range(n))", True),
    "int of it": ("jnp.zeros(int(n))", True),
    "arithmetic": ("x * n", False),
    "a size from arithmetic": ("jnp.zeros(2 * n - 1)", True),
    "a roll by a traced shift": ("jnp.roll(x, 2 * n)", False),
}

# What JAX refuses but the checker does not follow (a miss, never a false report): none now
# (arithmetic on a traced int is traced too).
NOT_FOLLOWED: set[str] = set()


def _program(expression: str, static: bool) -> str:
    jit = "partial(jax.jit, static_argnums=(1,))" if static else "jax.jit"
    return HEADER + f"\n\n@{jit}\ndef f(x, n):\n    return {expression}\n\n\nout = f(x, 3)\n"


@pytest.mark.parametrize("static", [False, True], ids=["traced", "static"])
@pytest.mark.parametrize("name", list(CASES))
def test_checker_and_jax_agree(name: str, static: bool) -> None:
    expression, refused = CASES[name]
    source = _program(expression, static)
    found = [(d.span.line, d.code) for d in analyze_source("t.py", source).diagnostics]
    body = source.splitlines().index(f"    return {expression}") + 1
    reported = refused and not static and name not in NOT_FOLLOWED
    assert found == ([(body, "SC107")] if reported else []), found
    namespace: dict[str, object] = {"__name__": "t"}
    program = compile(source, "t.py", "exec", dont_inherit=True)
    if refused and not static:
        with pytest.raises((TypeError, IndexError, ValueError)):  # ConcretizationTypeError is a TypeError
            exec(program, namespace)
    else:
        exec(program, namespace)


def test_a_keyword_argument_and_filter_jit_are_not_claimed() -> None:
    # equinox's filter_jit makes every non-array argument static; a keyword argument's
    # staticness is not followed.
    source = HEADER + (
        "import equinox as eqx\n\n"
        "a = eqx.filter_jit(lambda x, n: jnp.zeros(n))(x, 3)\n"
        "b = jax.jit(lambda x, n: jnp.zeros(n), static_argnames=('n',))(x, n=3)\n")
    assert analyze_source("t.py", source).diagnostics == ()
