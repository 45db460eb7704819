"""The array APIs of model code inside programs: pieces unpack, comprehensions feed stack, the
dtype of where, symbolic sizes, and what stays unknown (JAX decides the shapes themselves:
tests/test_array_api_differential.py)."""

from __future__ import annotations

import textwrap

from shapecheck.api import analyze_source


def codes(source: str) -> list[tuple[int, str]]:
    result = analyze_source("t.py", textwrap.dedent(source))
    assert result.error is None, result.error
    return [(d.span.line, str(d.code)) for d in result.diagnostics]


def test_split_pieces_unpack_and_carry_their_shapes() -> None:
    assert codes("""\
        import jax.numpy as jnp
        from shapecheck import f32

        def heads(x: f32[('b', 't', 384)]) -> f32[('b', 't', 128)]:
            q, k, v = jnp.split(x, 3, axis=-1)
            return q + k * v

        a, b = jnp.split(jnp.ones((6, 4)), [2])
        c: f32[(4, 4)] = b
        d: f32[(2, 4)] = b
        """) == [(10, "SC103")]


def test_unpacking_more_pieces_than_there_are_is_not_guessed() -> None:
    assert codes("""\
        import jax.numpy as jnp
        a, b = jnp.split(jnp.ones((6, 4)), 3)
        c = a + jnp.ones((5,))
        """) == []


def test_stack_of_a_comprehension_and_of_pieces() -> None:
    assert codes("""\
        import jax.numpy as jnp
        from shapecheck import f32

        layers = [jnp.ones((4, 8)) for _ in range(3)]
        s: f32[(3, 4, 8)] = jnp.stack(layers)
        t: f32[(4, 3, 8)] = jnp.stack(jnp.split(jnp.ones((4, 24)), 3, axis=1), axis=1)
        u: f32[(3, 4, 8)] = jnp.stack([layer for layer in layers])
        bad = jnp.stack([jnp.ones((4, 8)), jnp.ones((4, 9))])
        """) == [(8, "SC101")]


def test_where_takes_its_dtype_from_the_branches_not_the_condition() -> None:
    assert codes("""\
        import jax.numpy as jnp
        from shapecheck import i8, f32

        weights = jnp.ones((3,))
        picked: i8[(3,)] = jnp.where(weights, jnp.ones((3,), jnp.int8), jnp.int8(0))
        mixed: f32[(3,)] = jnp.where(weights > 0, jnp.ones((3,), jnp.int32), 0.5)
        """) == []


def test_where_of_one_argument_gives_one_index_array_per_dim() -> None:
    assert codes("""\
        import jax.numpy as jnp
        from shapecheck import i32

        rows, cols = jnp.where(jnp.ones((3, 4)) > 0, size=5)
        r: i32[(5,)] = rows
        a, b, c = jnp.where(jnp.ones((3, 4)) > 0)
        """) == []


def test_a_symbolic_count_stays_a_symbol() -> None:
    assert codes("""\
        import jax.numpy as jnp
        from jax import lax
        from shapecheck import f32

        def best(x: f32[('n', 'k')], y: f32[('n', 'k')]) -> f32[('n', 'k')]:
            values, _ = lax.top_k(x, y.shape[1])
            return values
        """) == []


def test_hsplit_of_a_vector_cuts_axis_0() -> None:
    assert codes("""\
        import jax.numpy as jnp
        from shapecheck import f32

        left, right = jnp.hsplit(jnp.ones(6), 2)
        l: f32[(3,)] = left
        top, bottom = jnp.vsplit(jnp.ones((4, 6)), 2)
        t: f32[(2, 6)] = top
        """) == []

