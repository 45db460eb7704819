"""jax.vmap and jax.pmap as the analyzer checks them (DESIGN.md section 3a): each case is what
JAX 0.10 raises, or accepts, on 8 CPU devices (tests/runtime/test_current_jax.py runs the
fixtures that say the same on JAX itself)."""

from __future__ import annotations

import textwrap

from shapecheck.api import analyze_source
from shapecheck.types import ArrayType

PRELUDE = """\
import jax
import jax.numpy as jnp
from jax import lax
x = jnp.ones((8, 4))
w = jnp.ones((7, 4))
s = jnp.float32(1.0)
def f(a):
    return a * 2
def g(a, b):
    return a * b
def h(a, b=None):
    return a if b is None else a + b
"""
FIRST = PRELUDE.count("\n") + 1  # the line of the first statement after the prelude


def run(source: str) -> tuple[list[tuple[int, str, str]], dict[str, ArrayType]]:
    """Diagnostics (line after the prelude, code, message) and the type of each `name = ...` line."""
    text = PRELUDE + textwrap.dedent(source)
    result = analyze_source("t.py", text, keep_types=True)
    assert result.error is None, result.error
    found = [(d.span.line - FIRST + 1, d.code, d.message) for d in result.diagnostics]
    lines = text.splitlines()
    types: dict[str, ArrayType] = {}
    for typed in result.types:
        line = lines[typed.span.line - 1]
        name, sep, _ = line.partition(" = ")
        if sep and name.isidentifier() and typed.span.column == len(name) + 3 \
                and typed.span.end_column == len(line):
            types[name] = typed.type
    return found, types


def codes(source: str) -> list[tuple[int, str]]:
    return [(line, code) for line, code, _ in run(source)[0]]


def test_all_gather_over_a_named_vmap_makes_the_axis_positional() -> None:
    _, types = run("""\
        def gather(v):
            return jnp.sum(lax.all_gather(v, 'rows'), axis=0)
        y = jax.vmap(gather, axis_name='rows')(jnp.ones((4, 5)))
        """)
    assert types["y"] == ArrayType.of(None, (4, 5))
