"""Programs that import the runtime's stand-ins (as `shapecheck migrate` writes them) are
checked as if they imported JAX's modules: the stand-ins are JAX's APIs with named axes."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.api import analyze_source


@pytest.mark.parametrize("imports, call", [
    ("from shapecheck.runtime import numpy as jnp", "jnp.sum(x, axis='bacth')"),
    ("from shapecheck.runtime import lax", "lax.psum(x, 'bacth')"),
    ("from shapecheck.runtime import nn", "nn.logsumexp(x, axis='bacth')"),
    ("from shapecheck.runtime import special", "special.logsumexp(x, axis='bacth')"),
])
def test_named_axes_through_the_runtime_stand_ins_are_checked(imports: str, call: str) -> None:
    source = textwrap.dedent(f"""\
        import jax.numpy as np
        from shapecheck.runtime import xmap
        {imports}

        def f(x):
            return {call}

        y = xmap(f, in_axes=['batch', ...], out_axes=['batch', ...])(np.ones((4, 3)))
        """)
    result = analyze_source("t.py", source)
    assert [(d.span.line, d.code) for d in result.diagnostics] == [(6, "SC202")]
    assert "'bacth'" in result.diagnostics[0].message
