"""Annotations with shardings (DESIGN.md section 3b): `f32[(8, 16), P('X', 'Y')]` for what
`jax.typeof` prints as `float32[8@X,16@Y]`; parsed from literals, checked statically (SC103),
written by `annotate`. The runtime's half is tests/runtime/test_sharded_annotations.py."""

from __future__ import annotations

import ast
from textwrap import dedent

import pytest

from shapecheck.analyzer.annotations import subscript_parts
from shapecheck.analyzer.literals import to_lit
from shapecheck.annotation import AnnotationError, parse_annotation
from shapecheck.codemods.annotate import annotate_text
from shapecheck.engine import Engine
from shapecheck.types import ArrayType, Sharding

HEADER = dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, AxisType, PartitionSpec as P
    from shapecheck import f32

""")


def parse(text: str) -> ArrayType | AnnotationError:
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.Subscript)
    return parse_annotation("f32", [to_lit(part) for part in subscript_parts(node)])


def found(body: str) -> list[tuple[int, str]]:
    result = Engine().analyze("t.py", HEADER + dedent(body))
    assert result.error is None
    offset = HEADER.count("\n")
    return [(d.span.line - offset, str(d.code)) for d in result.diagnostics]


# --- the grammar ------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "dims"), [
    ("f32[(8, 16), P('X', 'Y')]", (("X",), ("Y",))),
    ("f32[(8, 16), P('X', None)]", (("X",), ())),
    ("f32[(8, 16), P('X')]", (("X",), ())),  # trailing dims unsplit, as JAX reads a short spec
    ("f32[(8, 16), P()]", ((), ())),
    ("f32[(128,), P(('X', 'Y'))]", (("X", "Y"),)),  # float32[128@(X,Y)]
    ("f32[(8,), P('X', None)]", (("X",),)),  # a trailing None beyond the rank is ignored
    ("f32[(8, 16), PartitionSpec('X', 'Y')]", (("X",), ("Y",))),
    ("f32[(8, 16), jax.sharding.PartitionSpec(None, 'Y')]", ((), ("Y",))),
    ("f32[(8, 16), jax.P('X', 'Y')]", (("X",), ("Y",))),
    ("f32[('n', 16), {'batch': 4}, P('X', None)]", (("X",), ())),
    ("f32[(8, 16), ..., P('X', 'Y')]", (("X",), ("Y",))),
])
def test_a_sharding_closes_the_annotation(text: str, dims: tuple[tuple[str, ...], ...]) -> None:
    parsed = parse(text)
    assert isinstance(parsed, ArrayType), parsed
    assert parsed.sharding == Sharding(dims)


def test_the_named_shape_is_read_beside_the_sharding() -> None:
    parsed = parse("f32[(8, 16), {'batch': 4}, P('X', None)]")
    assert isinstance(parsed, ArrayType)
    assert parsed.named_dict == {"batch": 4}
    assert str(parsed) == "f32[(8, 16), {'batch': 4}, P('X')]"


def test_without_a_sharding_nothing_is_claimed() -> None:
    parsed = parse("f32[(8, 16)]")
    assert isinstance(parsed, ArrayType) and parsed.sharding is None


@pytest.mark.parametrize(("text", "words"), [
    ("f32[(8, 16), P('X', 'X')]", "twice"),
    ("f32[(8,), P('X', 'Y')]", "2 entries"),
    ("f32[('n', ...), P('X')]", "`...`"),
    ("f32[P('X', 'Y')]", "follows the shape"),
    ("f32[(8, 16), P(1)]", "mesh axis name"),
    ("f32[(8, 16), P(axis)]", "mesh axis name"),
    ("f32[(8, 16), P(*axes)]", "PartitionSpec of literals"),
    ("f32[(8, 16), NamedSharding(mesh, P('X'))]", "PartitionSpec of literals"),
    ("f32[(8, 16), spec]", "PartitionSpec of literals"),
])
def test_bad_shardings_are_sc001_with_the_fix(text: str, words: str) -> None:
    parsed = parse(text)
    assert isinstance(parsed, AnnotationError)
    assert words in parsed.message


# --- read statically ----------------------------------------------------------------------------


def test_arguments_assignments_and_returns_are_checked() -> None:
    assert found("""\
        def scale(a: f32[(8, 16), P('X', 'Y')]) -> f32[(8, 16), P(None, 'Y')]:
            return a * 2


        mesh = jax.make_mesh((2, 4), ('X', 'Y'))
        with jax.set_mesh(mesh):
            a = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
            b = jax.device_put(jnp.ones((8, 16)), P('Y', 'X'))
            scale(a)
            scale(b)
            good: f32[(8, 16), P('X', 'Y')] = a + 1
            bad: f32[(8, 16), P('X', None)] = a + 1
            merged: f32[(128,), P(('X', 'Y'))] = a.reshape(128)
            unsplit: f32[(8, 16), P()] = jnp.ones((8, 16))
            split: f32[(8, 16), P()] = a
    """) == [(2, "SC103"), (10, "SC103"), (12, "SC103"), (15, "SC103")]


def test_the_body_sees_the_declared_sharding() -> None:
    # Checked on its own: what JAX refuses for arguments typed so is reported in the body.
    assert found("""\
        def attention(q: f32[(8, 64), P('X', 'Y')], k: f32[(16, 64), P(None, 'Y')]):
            return q @ k.T


        def fixed(q: f32[(8, 64), P('X', 'Y')], k: f32[(16, 64), P(None, 'Y')]):
            return jnp.dot(q, k.T, out_sharding=P('X', None))


        def add(a: f32[(8, 16), P('X', 'Y')], b: f32[(8, 16), P('Y', 'X')]):
            return a + b
    """) == [(2, "SC208"), (10, "SC208")]


def test_auto_axes_and_unknowns_never_report() -> None:
    assert found("""\
        auto = Mesh(np.array(jax.devices()).reshape(2, 4), ('X', 'Y'))
        with jax.set_mesh(auto):
            a = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
            b: f32[(8, 16), P('X', 'Y')] = a
            c: f32[(8, 16), P('Y', 'X')] = a


        def unknown(x):
            y: f32[(8, 16), P('X', 'Y')] = x
            return y


        mixed = jax.make_mesh((2, 4), ('X', 'Y'), axis_types=(AxisType.Explicit, AxisType.Auto))
        with jax.set_mesh(mixed):
            m = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
            ok: f32[(8, 16), P('X', 'Y')] = m
            ok_too: f32[(8, 16), P('X', None)] = m
            wrong: f32[(8, 16), P(None, 'Y')] = m
    """) == [(18, "SC103")]


def test_the_message_names_both_types_as_jax_typeof_prints_them() -> None:
    result = Engine().analyze("t.py", HEADER + dedent("""\
        mesh = jax.make_mesh((2, 4), ('X', 'Y'))
        with jax.set_mesh(mesh):
            a = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
            rows: f32[(8,), P('Y')] = jnp.sum(a, axis=1)
    """))
    [diagnostic] = result.diagnostics
    assert "float32[8@X]" in diagnostic.message and "float32[8@Y]" in diagnostic.message
    assert "jax.sharding.reshard(" in diagnostic.message


def test_string_annotations_carry_the_sharding() -> None:
    assert found("""\
        mesh = jax.make_mesh((2, 4), ('X', 'Y'))
        with jax.set_mesh(mesh):
            a = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))
            b: "f32[(8, 16), P('Y', 'X')]" = a
    """) == [(4, "SC103")]


# --- written by annotate ------------------------------------------------------------------------


def test_annotate_writes_the_known_sharding_and_reads_it_back() -> None:
    source = dedent("""\
        import jax
        import jax.numpy as jnp
        from jax.sharding import PartitionSpec as P

        mesh = jax.make_mesh((2, 4), ("X", "Y"))
        with jax.set_mesh(mesh):
            x = jax.device_put(jnp.ones((8, 16)), P("X", "Y"))
            y = x.reshape(128)
            z = jnp.ones((8, 16))
    """)
    engine = Engine()
    annotated = annotate_text("t.py", source, engine).text
    assert "x: f32[(8, 16), P('X', 'Y')] = " in annotated
    assert "y: f32[(128,), P(('X', 'Y'))] = " in annotated
    assert "z: f32[(8, 16)] = " in annotated  # unsplit: nothing to claim
    assert not engine.analyze("t.py", annotated).diagnostics
    assert annotate_text("t.py", annotated, engine).text == annotated


def test_annotate_leaves_the_sharding_out_without_a_partition_spec_name() -> None:
    source = dedent("""\
        import jax
        import jax.numpy as jnp

        mesh = jax.make_mesh((2, 4), ("X", "Y"))
        with jax.set_mesh(mesh):
            x = jax.device_put(jnp.ones((8, 16)), jax.sharding.PartitionSpec("X", "Y"))
    """)
    annotated = annotate_text("t.py", source, Engine()).text
    assert "x: f32[(8, 16)] = " in annotated
