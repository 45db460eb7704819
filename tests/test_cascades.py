"""A single root cause gives exactly one diagnostic, at the root: whatever is built from the
conflicting value afterwards (in the body of a map, downstream of a call, through nested maps)
sees the conflicting size as unknown and reports nothing more."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.api import analyze_source

HEADER = """\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental.maps import xmap
from shapecheck import f32
"""

# Each program has one mistake, on the line marked `# root`.
PROGRAMS = {
    "xmap argument size, annotated body, results used after": """
        def body(x: f32[(4,), {'k': 8}], w: f32[(4,), {'k': 8}]) -> f32[(4,), {'k': 8}]:
            h = x * w
            s = jnp.sum(h, axis='k')
            return h + s
        y = xmap(body, in_axes=(['k', ...], ['k', ...]), out_axes=['k', ...])(
            jnp.ones((8, 4)), jnp.ones((7, 4)))  # root
        z = y + jnp.ones((8, 4))
        t = y + jnp.ones((7, 4))
        """,
    "xmap axis_sizes against an argument": """
        f = xmap(lambda v: v * jnp.ones((4,)), in_axes=['k', ...], out_axes=['k', ...],
                 axis_sizes={'k': 7})  # root
        y = f(jnp.ones((8, 4)))
        z = y + jnp.ones((8, 4)) + jnp.ones((7, 4))[:, :1]
        """,
    "nested maps over a conflicting outer axis": """
        def inner(a, b):
            return a * b + jnp.sum(a, axis='k')
        def outer(a, b):
            return xmap(inner, in_axes=(['j', ...], ['j', ...]), out_axes=['j', ...])(a, b)
        y = xmap(outer, in_axes=(['k', ...], ['k', ...]), out_axes=['k', ...])(
            jnp.ones((8, 2, 4)), jnp.ones((7, 2, 4)))  # root
        z = y + jnp.ones((7, 2, 4))
        """,
    "vmap argument sizes": """
        y = jax.vmap(lambda a, b: a * b)(jnp.ones((8, 4)), jnp.ones((7, 4)))  # root
        z = (y + jnp.ones((8, 4))) * jnp.ones((7, 4))
        """,
    "named broadcasting chain": """
        def f(x: f32[(2,), {'k': 3}], y: f32[(2,), {'k': 4}]):
            z = x + y  # root
            w = z * x
            v = z + y
            return jnp.sum(w + v, axis='k') + jnp.stack([z, w, v]).sum(0).sum('k')
        """,
    "positional broadcasting chain": """
        c = jnp.ones((3, 4)) + jnp.ones((5, 4))  # root
        d = c * jnp.ones((3, 4))
        e = d + jnp.ones((5, 4))
        f = jnp.concatenate([c, d, e], axis=1) @ jnp.ones((12, 2))
        """,
    "einsum letter": """
        r = jnp.einsum('ij,ij->ij', jnp.ones((3, 4)), jnp.ones((3, 5)))  # root
        s = (r + jnp.ones((3, 4))) * jnp.ones((3, 5))
        """,
    "matmul batch dims": """
        h = jnp.ones((2, 3, 4)) @ jnp.ones((5, 4, 6))  # root
        k = (h + jnp.ones((2, 3, 6))) * jnp.ones((5, 3, 6))
        """,
    "pdot batch dims": """
        def f(x: f32[(2, 3), {'k': 4}], y: f32[(5, 3), {'k': 4}]):
            p = lax.pdot(x, y, 'k', pos_batch=((0,), (0,)))  # root
            return (p + jnp.ones((2, 3, 3))) * jnp.ones((5, 3, 3))
        """,
    "annotated assignment": """
        a = jnp.ones((5,))
        y: f32[(3,)] = a  # root
        z = y + a
        w = y + jnp.ones((3,))
        """,
    "annotated return, used by callers": """
        def widen(x: f32[(3,)]) -> f32[(4,)]:
            return x  # root
        u = widen(jnp.ones((3,))) + jnp.ones((3,))
        """,
    "one symbol, two argument sizes": """
        def pair(x: f32[('n',)], y: f32[('n',)]) -> f32[('n',)]:
            return x + y
        r = pair(jnp.ones((5,)), jnp.ones((7,)))  # root
        s = r + jnp.ones((7,))
        t = r + jnp.ones((5,))
        """,
    "xmap body declaring another size for both arguments' axis": """
        def body(x: f32[(4,), {'k': 8}], w: f32[(4,), {'k': 8}]):
            return x * w
        y = xmap(body, in_axes=(['k', ...], ['k', ...]), out_axes=['k', ...])(
            jnp.ones((7, 4)), jnp.ones((7, 4)))  # root
        z = y + jnp.ones((8, 4))
        """,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_one_root_cause_one_diagnostic(name: str) -> None:
    source = HEADER + textwrap.dedent(PROGRAMS[name])
    result = analyze_source("t.py", source)
    assert result.error is None, result.error
    root = next(i for i, line in enumerate(source.splitlines(), 1) if line.endswith("# root"))
    found = [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert len(found) == 1, found
    # A statement split over lines reports on its first or its marked line.
    assert found[0][0] in (root - 1, root), found
