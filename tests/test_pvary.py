"""`lax.pvary(x, axes)`, how JAX 0.6 to 0.9 spelled `lax.pcast(x, axes, to='varying')`, is checked
as that cast is: the same program with either spelling gets the same diagnostics, and the pcast
spelling is what JAX 0.10 runs (pvary is gone from it)."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.api import analyze_source

PROGRAM = textwrap.dedent("""\
    from functools import partial
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))


    @partial(jax.shard_map, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    def ring(x):
        acc = CAST(jnp.zeros(x.shape))

        def body(k, acc):
            return acc + x
        return lax.fori_loop(0, 4, body, acc)


    y = ring(jnp.ones(8))
    """)

SPELLINGS = {"pvary": 'lax.pvary({}, "i")', "pcast": 'lax.pcast({}, "i", to="varying")'}


def _program(cast: str | None) -> str:
    if cast is None:
        return PROGRAM.replace("CAST(jnp.zeros(x.shape))", "jnp.zeros(x.shape)")
    return PROGRAM.replace("CAST(jnp.zeros(x.shape))", SPELLINGS[cast].format("jnp.zeros(x.shape)"))


def _codes(text: str) -> list[tuple[int, str]]:
    return [(d.span.line, str(d.code)) for d in analyze_source("ring.py", text).diagnostics]


def test_without_the_cast_the_carry_changes_its_varying_axes() -> None:
    assert _codes(_program(None)) == [(16, "SC210")]


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_either_spelling_makes_the_carry_vary_from_the_start(spelling: str) -> None:
    assert _codes(_program(spelling)) == []


def test_a_cast_of_what_varies_already_is_refused_in_either_spelling() -> None:
    for spelling in SPELLINGS:
        text = _program(spelling).replace("jnp.zeros(x.shape)", "jnp.zeros_like(x)")
        assert [code for _, code in _codes(text)] == ["SC210"], spelling


def test_jax_agrees_with_the_pcast_spelling() -> None:
    jax = pytest.importorskip("jax")
    namespace: dict[str, object] = {}
    exec(compile(_program("pcast"), "ring.py", "exec"), namespace)  # runs
    with pytest.raises(TypeError):
        exec(compile(_program(None), "ring.py", "exec"), {})
    with pytest.raises(ValueError):
        exec(compile(_program("pcast").replace("jnp.zeros(x.shape)", "jnp.zeros_like(x)"), "ring.py", "exec"), {})
    assert jax.typeof(namespace["y"]).shape == (8,)  # type: ignore[attr-defined]
