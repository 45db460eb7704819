"""The libraries' maps and scans of functions (`nnx.vmap`, `nnx.scan`, `eqx.filter_vmap`,
`hk.vmap`) as the analyzer reports them: where each diagnostic lands and what it names, and what
stays unknown. What the libraries accept and refuse is the differential suite's
(tests/test_lifted_maps_differential.py)."""

from __future__ import annotations

import textwrap

from shapecheck.api import analyze_source

PRELUDE = """\
import jax
import jax.numpy as jnp
import equinox as eqx
import haiku as hk
from flax import nnx
"""
FIRST = PRELUDE.count("\n") + 1  # the line of the first statement after the prelude


def diagnostics(source: str) -> list[tuple[int, int, str, str]]:
    """(line after the prelude, column, code, message) of each diagnostic."""
    result = analyze_source("t.py", PRELUDE + textwrap.dedent(source))
    assert result.error is None, result.error
    return [(d.span.line - FIRST + 1, d.span.column, d.code, d.message) for d in result.diagnostics]


def test_mapped_sizes_that_differ_are_reported_at_the_argument_with_both_sizes() -> None:
    source = "out = nnx.vmap(lambda a, b: a + b, in_axes=(0, 0))(jnp.ones((5, 3)), jnp.ones((16, 3)))\n"
    found = diagnostics(source)
    assert [(line, column, code) for line, column, code, _ in found] == [(1, source.index("jnp.ones((16"), "SC102")]
    assert "16" in found[0][3] and "5" in found[0][3]


def test_a_decorated_map_is_checked_where_it_is_called() -> None:
    found = diagnostics("""\
        @eqx.filter_vmap
        def f(a, b):
            return a + b

        ok = f(jnp.ones((4, 3)), 2.0)
        out = f(jnp.ones((4, 3)), jnp.ones((5, 3)))
        """)
    assert [(line, code) for line, _, code, _ in found] == [(6, "SC102")]


def test_a_scan_body_that_changes_its_carry_is_reported_at_its_return_naming_the_carry() -> None:
    found = diagnostics("""\
        @nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
        def forward(x, wi):
            return x @ wi

        out = forward(jnp.ones((2, 8)), jnp.ones((3, 8, 16)))
        """)
    assert [(line, code) for line, _, code, _ in found] == [(3, "SC103")]
    assert "`x`" in found[0][3] and "(2, 8)" in found[0][3] and "(2, 16)" in found[0][3]


def test_axes_nnx_refuses_are_reported_where_the_scan_is_made_even_if_never_called() -> None:
    source = "f = nnx.scan(lambda c, x: (c, x), in_axes=(nnx.Carry, 0), out_axes=(0, 0))\n"
    found = diagnostics(source)
    assert [(line, column, code) for line, column, code, _ in found] == [(1, source.index("(0, 0)"), "SC002")]


def test_a_default_nnx_maps_is_named_where_it_is_written() -> None:
    found = diagnostics("""\
        def f(a, scale=2.0):
            return a * scale

        out = nnx.vmap(f)(jnp.ones((4, 3)))
        """)
    assert [(line, column, code) for line, column, code, _ in found] == [(1, 15, "SC106")]


def test_a_module_passed_whole_is_the_module_in_every_member() -> None:
    found = diagnostics("""\
        model = nnx.Linear(3, 4, rngs=nnx.Rngs(0))
        ok = nnx.vmap(lambda m, x: m(x), in_axes=(None, 0))(model, jnp.ones((5, 3)))
        out = nnx.vmap(lambda m, x: m(x), in_axes=(None, 0))(model, jnp.ones((5, 2)))
        """)
    assert [(line, code) for line, _, code, _ in found] == [(3, "SC104")]


def test_collectives_name_the_axis_the_map_binds() -> None:
    found = diagnostics("""\
        a = nnx.vmap(lambda x: jax.lax.psum(x, 'i'), axis_name='i')(jnp.ones((4, 3)))
        b = eqx.filter_vmap(lambda x: jax.lax.psum(x, 'i'), axis_name='i')(jnp.ones((4, 3)))
        c = nnx.vmap(lambda x: jax.lax.psum(x, 'j'), axis_name='i')(jnp.ones((4, 3)))
        """)
    assert [(line, code) for line, _, code, _ in found] == [(3, "SC202")]


def test_what_the_checker_does_not_follow_is_unknown_and_never_reported() -> None:
    """Tree mode, keyword-only parameters (nnx refuses them; the checker leaves them), an ensemble
    a map makes (its layers' arrays stacked): unknown; `nnx.StateAxes` and a haiku map without
    split_rng (haiku can be told not to require it): not reported."""
    result = analyze_source("t.py", PRELUDE + textwrap.dedent("""\
        model = nnx.Linear(3, 4, rngs=nnx.Rngs(0))
        a = nnx.vmap(lambda m, x: m(x), in_axes=(nnx.StateAxes({nnx.Param: None}), 0))(model, jnp.ones((5, 3)))
        b = nnx.vmap(lambda a, b: a + b, graph=False)(jnp.ones((5, 3)), jnp.ones((5, 3)))
        c = nnx.vmap(lambda a, *, b=1.0: a * b)(jnp.ones((5, 3)))
        d = nnx.vmap(lambda rngs: nnx.Linear(3, 4, rngs=rngs))(nnx.Rngs(0).fork(split=5))

        def forward(x):
            return hk.vmap(lambda x: x * 2)(x)

        model = hk.without_apply_rng(hk.transform(forward))
        e = model.apply(model.init(jax.random.key(0), jnp.ones((2, 3))), jnp.ones((2, 3)))
        """), keep_types=True)
    assert not result.diagnostics
    known = {t.span.line - FIRST + 1 for t in result.types if t.span.column == 4}
    assert known.isdisjoint({3, 4, 5})
