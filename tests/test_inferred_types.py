"""The engine keeps the inferred type of array-valued expressions, with spans, for the
language server and codemods (no second analysis)."""

from __future__ import annotations

import textwrap

from shapecheck import f32
from shapecheck.api import analyze_source

SOURCE = textwrap.dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap

    x = jnp.ones((2, 3))
    y = x.dot(jnp.ones((3, 5)))
    z = xmap(lambda v: v.sum(0), in_axes=['b', ...], out_axes=['b', ...])(jnp.ones((20, 4, 7)))
    """)


def _types_at(line: int) -> list[tuple[int, int, str]]:
    result = analyze_source("t.py", SOURCE, keep_types=True)
    assert result.error is None
    return sorted((t.span.column, t.span.end_column, str(t.type)) for t in result.types if t.span.line == line)


def _span(line: int, text: str) -> tuple[int, int]:
    """The columns of `text` on a 1-based line of SOURCE."""
    start = SOURCE.splitlines()[line - 1].index(text)
    return start, start + len(text)


def test_types_have_spans() -> None:
    assert (*_span(4, "jnp.ones((2, 3))"), str(f32[(2, 3)])) in _types_at(4)
    assert (*_span(5, "x.dot(jnp.ones((3, 5)))"), "f32[(2, 5)]") in _types_at(5)


def test_types_inside_an_xmapped_body_carry_named_axes() -> None:
    types = _types_at(6)
    assert (*_span(6, "v.sum(0)"), "f32[(7,), {'b': 20}]") in types
    call = SOURCE.splitlines()[5]
    assert (call.index("xmap("), len(call), "f32[(20, 7)]") in types


def test_no_types_kept_unless_asked() -> None:
    assert analyze_source("t.py", SOURCE).types == ()


def _types(source: str, line: int) -> list[str]:
    result = analyze_source("t.py", textwrap.dedent(source), keep_types=True)
    assert result.error is None
    return [str(t.type) for t in result.types if t.span.line == line]


def test_a_conflicting_size_is_unknown_in_values_built_from_it() -> None:
    source = """\
        import jax.numpy as jnp
        c = jnp.ones((3, 4)) + jnp.ones((5, 4))
        d = c * jnp.ones((3, 4))
        """
    # Not 3 (one side's size, which would report `d + jnp.ones((5, 4))` a second time).
    assert "f32[(None, 4)]" in _types(source, 3)


def test_shapes_built_from_a_symbolic_dim_keep_the_symbol() -> None:
    source = """\
        import jax.numpy as jnp
        from shapecheck import f32
        def f(x: f32[('n', 'k')]):
            return jnp.zeros((x.shape[0], 3))
        """
    assert "f32[('n', 3)]" in _types(source, 4)


def test_a_node_analysed_for_several_calls_shows_the_join_of_its_analyses() -> None:
    source = """\
        import jax.numpy as jnp
        def f(x):
            return x * 2
        a = f(jnp.ones((2, 3)))
        b = f(jnp.ones((4, 3)))
        """
    # Not (4, 3), the last analysis: the body's hover holds for both calls.
    assert _types(source, 3) == ["f32[(None, 3)]", "f32[(None, 3)]"]
    assert _types(source, 5)[-1] == "f32[(4, 3)]"
