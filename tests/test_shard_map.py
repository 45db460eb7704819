"""shard_map through the analyzer: meshes, in_specs/out_specs against arguments and results,
per-device blocks, collectives' names, and replication (DESIGN.md section 3a).

Every wrong program here is one JAX 0.10 refuses on 8 CPU devices, and every clean one one it
runs (tests/runtime/test_current_jax.py runs the fixtures the same way).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from shapecheck.api import analyze_source, check_files, check_source
from shapecheck.dims import Dim

HEADER = """\
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('x', 'y'))
"""
FIRST = len(HEADER.splitlines()) + 1  # the line of a snippet's first statement


def found(snippet: str) -> set[tuple[int, str]]:
    """(line within the snippet, 1-based; code) of each diagnostic."""
    source = HEADER + textwrap.dedent(snippet)
    return {(d.span.line - FIRST + 1, d.code) for d in check_source("t.py", source)}


def messages(snippet: str) -> list[str]:
    return [d.message for d in check_source("t.py", HEADER + textwrap.dedent(snippet))]


def shape_of(snippet: str, name: str) -> tuple[Dim, ...] | None:
    """The inferred positional shape of the right-hand side of the module-level `name = ...`."""
    source = HEADER + textwrap.dedent(snippet)
    result = analyze_source("t.py", source, keep_types=True)
    assert result.error is None
    lines = source.splitlines()
    for number, line in enumerate(lines, start=1):
        if line.startswith(f"{name} = "):
            start, end = len(name) + 3, len(line)
            for typed in result.types:
                span = typed.span
                if (span.line, span.column, span.end_line, span.end_column) == (number, start, number, end):
                    assert typed.type.ellipsis is None and not typed.type.named, typed.type
                    return typed.type.dims
            return None
    raise AssertionError(f"no assignment to {name}")


# ---------------------------------------------------------------- meshes and forms


@pytest.mark.parametrize("mesh", [
    "Mesh(np.array(jax.devices()).reshape(2, 4), ('x', 'y'))",
    "jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)",
    "jax.sharding.AbstractMesh((2, 4), ('x', 'y'))",
    "Mesh(jax.experimental.mesh_utils.create_device_mesh((2, 4)), ('x', 'y'))",
    "build(2, 4)",
])
def test_mesh_sizes_give_blocks_and_global_shapes(mesh: str) -> None:
    snippet = f"""\
        import jax.experimental.mesh_utils


        def build(a, b):
            return jax.make_mesh((a, b), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)


        m = {mesh}
        inside = jax.shard_map(lambda a: jax.lax.psum(a.sum(1), 'y'), mesh=m, in_specs=P('x', 'y'), out_specs=P('x'))
        r = inside(jnp.ones((8, 16)))
        """
    assert found(snippet) == set()
    # Each block is (4, 4); its row sums (4,), summed over 'y', assemble over 'x' into (8,).
    assert shape_of(snippet, "r") == (8,)


@pytest.mark.parametrize("mesh", [
    "jax.make_mesh((0, 4), ('x', 'y'))",
    "jax.sharding.AbstractMesh((2, 0), ('x', 'y'))",
    "Mesh(np.array(jax.devices()[:0]).reshape(0, 4), ('x', 'y'))",
])
def test_a_mesh_with_an_empty_axis_is_of_unknown_size(mesh: str) -> None:
    # JAX 0.10.2 refuses make_mesh((0, 4)), and shard_map over the others ("requires a non-empty
    # mesh"); the checker must not divide by its size (it raised ZeroDivisionError, an internal
    # error for the whole file).
    snippet = f"""\
        m = {mesh}
        inside = jax.shard_map(lambda a: a * 2, mesh=m, in_specs=P('x', 'y'), out_specs=P('x', 'y'))
        r = inside(jnp.ones((8, 16)))
        """
    source = HEADER + textwrap.dedent(snippet)
    assert analyze_source("t.py", source, keep_types=True).error is None
    assert found(snippet) == set()


@pytest.mark.parametrize("form", [
    "y = jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)",
    "y = jax.experimental.shard_map.shard_map(f, mesh, P('x'), P('x'))(a)",
    "y = jax.experimental.shard_map.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)",
    "y = partial(jax.shard_map, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(f)(a)",
    "y = jax.shard_map(mesh=mesh, in_specs=P('x'), out_specs=P('x'))(f)(a)",
])
def test_every_form_gives_the_global_shape(form: str) -> None:
    snippet = f"""\
        import jax.experimental.shard_map


        def f(b):
            return b * 2.0


        a = jnp.ones((8, 3))
        {form}
        """
    assert found(snippet) == set()
    assert shape_of(snippet, "y") == (8, 3)


def test_under_jit_and_checkpoint() -> None:
    snippet = """\
        @jax.jit
        @partial(jax.shard_map, mesh=mesh, in_specs=P('x'), out_specs=P('x'))
        def double(a):
            return a * 2.0


        f = jax.checkpoint(jax.shard_map(lambda a: a.sum(), mesh=mesh, in_specs=P('x'), out_specs=P()))
        y = double(jnp.ones((8, 3)))
        z = double(jnp.ones((7, 3)))
        w = f(jnp.ones(8))
        """
    assert found(snippet) == {(9, "SC205"), (7, "SC207")}
    assert shape_of(snippet, "y") == (8, 3)


def test_decorator_through_partial() -> None:
    snippet = """\
        @partial(jax.shard_map, mesh=mesh, in_specs=(P('x', None), P(None, 'y')), out_specs=P('x', 'y'))
        def layer(a, w):
            return a @ w


        y = layer(jnp.ones((8, 16)), jnp.ones((16, 32)))
        """
    assert found(snippet) == set()
    assert shape_of(snippet, "y") == (8, 32)


def test_mesh_from_set_mesh() -> None:
    snippet = """\
        f = jax.shard_map(lambda a: a, in_specs=P('x'), out_specs=P('x'))
        with jax.set_mesh(mesh):
            y = f(jnp.ones((6, 3)))  # 6 rows over 'x' (2): fine
            z = f(jnp.ones((5, 3)))
        """
    assert found(snippet) == {(4, "SC205")}


# ---------------------------------------------------------------- the rules at the call


def test_in_specs_arity() -> None:
    snippet = """\
        def f(a, b):
            return a + b


        y = jax.shard_map(f, mesh=mesh, in_specs=(P('x'),), out_specs=P('x'))(jnp.ones(8), jnp.ones(8))
        z = jax.shard_map(f, mesh=mesh, in_specs=(P('x'), P('x'), P()), out_specs=P('x'))(jnp.ones(8), jnp.ones(8))
        w = jax.shard_map(f, mesh=mesh, in_specs=[P('x'), P('x')], out_specs=P('x'))(jnp.ones(8), jnp.ones(8))
        v = jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones(8), jnp.ones(8))
        u = jax.shard_map(f, mesh=mesh, in_specs=(P('x'), None), out_specs=P('x'))(jnp.ones(8), jnp.ones(4))
        """
    # One spec is a prefix of every argument; None does not split its argument.
    assert found(snippet) == {(5, "SC002"), (6, "SC002"), (7, "SC002")}
    assert shape_of(snippet, "u") == (8,)


def test_arity_message_counts() -> None:
    (message,) = messages("""\
        y = jax.shard_map(lambda a, b: a, mesh=mesh, in_specs=(P('x'),), out_specs=P('x'))(jnp.ones(8), jnp.ones(8))
        """)
    assert "1 entry" in message and "2 arguments" in message


def test_spec_rules_at_the_argument_and_the_spec() -> None:
    snippet = """\
        def f(a):
            return a


        a = jnp.ones((6, 4))
        y = jax.shard_map(f, mesh=mesh, in_specs=P('y'), out_specs=P('y'))(a)
        z = jax.shard_map(f, mesh=mesh, in_specs=P(('x', 'y')), out_specs=P(('x', 'y')))(jnp.ones((4, 4)))
        w = jax.shard_map(f, mesh=mesh, in_specs=P('x', None, None), out_specs=P('x'))(a)
        v = jax.shard_map(f, mesh=mesh, in_specs=P('q'), out_specs=P('x'))
        u = jax.shard_map(f, mesh=mesh, in_specs=P('x', 'x'), out_specs=P())
        """
    assert found(snippet) == {(6, "SC205"), (7, "SC205"), (8, "SC106"), (9, "SC206"), (10, "SC201")}


def test_indivisible_message_names_the_axes_and_sizes() -> None:
    (message,) = messages("""\
        y = jax.shard_map(lambda a: a, mesh=mesh, in_specs=P(('x', 'y')), out_specs=P(('x', 'y')))(jnp.ones((12, 4)))
        """)
    assert "'x' (2) x 'y' (4)" in message and "12" in message and "8" in message


def test_out_spec_longer_than_the_result() -> None:
    snippet = """\
        y = jax.shard_map(lambda a: a.sum(1), mesh=mesh, in_specs=P('x', None), out_specs=P('x', None))(jnp.ones((8, 4)))
        z = jax.shard_map(lambda a: a.sum(1), mesh=mesh, in_specs=P('x', None), out_specs=P('x'))(jnp.ones((8, 4)))
        """
    assert found(snippet) == {(1, "SC106")}
    assert shape_of(snippet, "z") == (8,)


def test_out_specs_structure() -> None:
    snippet = """\
        y = jax.shard_map(lambda a: (a, a), mesh=mesh, in_specs=P('x'), out_specs=(P('x'),))(jnp.ones(8))
        z = jax.shard_map(lambda a: (a, a.sum()), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones(8))
        w = jax.shard_map(lambda a: (a, jax.lax.psum(a, 'x')), mesh=mesh, in_specs=P('x'), out_specs=(P('x'), P()))(jnp.ones(8))
        """
    # One out_spec is a prefix of every result: z's scalar under P('x') is too long for it.
    assert found(snippet) == {(1, "SC002"), (2, "SC106")}


def test_pytree_arguments_under_one_spec() -> None:
    snippet = """\
        def f(params, a):
            return a @ params['w'] + params['b']


        params = {'w': jnp.ones((4, 3)), 'b': jnp.ones((3,))}
        y = jax.shard_map(f, mesh=mesh, in_specs=(P(), P('x')), out_specs=P('x'))(params, jnp.ones((8, 4)))
        """
    assert found(snippet) == set()
    assert shape_of(snippet, "y") == (8, 3)


def test_dicts_under_specs() -> None:
    snippet = """\
        d = {'u': jnp.ones(8), 'v': jnp.ones(2)}
        y = jax.shard_map(lambda d: d['u'] + 1, mesh=mesh, in_specs=({'u': P('x'), 'v': P()},), out_specs=P('x'))(d)
        z = jax.shard_map(lambda a: {'u': a, 'v': a.sum()}, mesh=mesh, in_specs=P('x'), out_specs={'u': P('x'), 'v': P('x')})(jnp.ones(8))
        w = jax.shard_map(lambda a: {'u': a, 'v': a}, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones(8))
        v = jax.shard_map(lambda d: d['u'], mesh=mesh, in_specs=({'u': P('y'), 'v': P()},), out_specs=P('y'))({'u': jnp.ones(6), 'v': 1.0})
        """
    assert found(snippet) == {(3, "SC106"), (5, "SC205")}
    assert shape_of(snippet, "y") == (8,)


def test_unknown_specs_and_meshes_report_nothing() -> None:
    snippet = """\
        import sys

        spec = P(*sys.argv)
        other = Mesh(np.array(jax.devices()), tuple(sys.argv))


        def f(a, b):
            return jax.lax.psum(a @ b, 'x')


        def g(a):
            return jax.lax.psum(a, 'anything')


        y = jax.shard_map(f, mesh=mesh, in_specs=(spec, P()), out_specs=P())(jnp.ones((6, 3)), jnp.ones((5, 2)))
        z = jax.shard_map(g, mesh=other, in_specs=P('x'), out_specs=P())(jnp.ones((6, 3)))
        w = jax.shard_map(lambda a: a, mesh=mesh, in_specs=P(sys.argv[0]), out_specs=P())(jnp.ones((7, 3)))
        v = jax.shard_map(lambda a: a, mesh=mesh, in_specs=P('x'), out_specs=P(sys.argv[0]))(jnp.ones((8, 3)))
        """
    # y: an unread spec may split any dim (JAX refuses a spec it cannot apply, but not with
    # a shape error). z: a mesh whose axis names are unread may have any name and size.
    assert found(snippet) == set()
    assert shape_of(snippet, "v") == (None, 3)


# ---------------------------------------------------------------- inside the body


def test_blocks_inside_the_body() -> None:
    snippet = """\
        def f(a, w):
            return jnp.dot(a, w)


        y = jax.shard_map(f, mesh=mesh, in_specs=(P(None, 'y'), P(None, None)), out_specs=P())(jnp.ones((8, 16)), jnp.ones((16, 4)))
        z = jax.shard_map(f, mesh=mesh, in_specs=(P(None, 'y'), P('y', None)), out_specs=P())(jnp.ones((8, 16)), jnp.ones((16, 4)))
        """
    # y: each device contracts 4 columns with 16 rows. z: the rows are split alike (then
    # the partial products vary over 'y', which P() omits).
    assert found(snippet) == {(2, "SC104"), (6, "SC207")}


def test_collectives_bind_the_mesh_axes() -> None:
    snippet = """\
        def f(a):
            i = jax.lax.axis_index('x')
            return jax.lax.pmax(a * i, ('x', 'y')) + jax.lax.psum(1, 'y')


        def g(a):
            return jax.lax.pmean(a, 'data')


        y = jax.shard_map(f, mesh=mesh, in_specs=P('y'), out_specs=P())(jnp.ones(8))
        z = jax.shard_map(g, mesh=mesh, in_specs=P('y'), out_specs=P('y'))(jnp.ones(8))
        """
    assert found(snippet) == {(7, "SC202")}


def test_partial_manual_axes_bind_only_their_names() -> None:
    snippet = """\
        def f(a):
            return jax.lax.psum(a, 'y')


        y = jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P('x'), axis_names={'x'})(jnp.ones(8))
        z = jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones(8))
        """
    assert found(snippet) == {(2, "SC202")}


def test_annotations_inside_see_the_block() -> None:
    snippet = """\
        from shapecheck import f32


        def f(a: f32[(4, 3)]) -> f32[(4, 3)]:
            return a


        def g(a: f32[(8, 3)]):
            return a


        y = jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones((8, 3)))
        z = jax.shard_map(g, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones((8, 3)))
        """
    assert found(snippet) == {(13, "SC103")}


def test_hover_inside_shows_the_block_without_mesh_axes() -> None:
    source = HEADER + textwrap.dedent("""\
        def f(a):
            b = a * 2.0
            return b


        y = jax.shard_map(f, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))(jnp.ones((8, 8)))
        """)
    result = analyze_source("t.py", source, keep_types=True)
    line = FIRST + 1
    shown = {str(t.type) for t in result.types if t.span.line == line}
    assert shown and all("(4, 2)" in text and "{" not in text for text in shown), shown


# ---------------------------------------------------------------- replication


@pytest.mark.parametrize(("body", "out", "wrong"), [
    ("a", "P()", True),
    ("a", "P('x')", False),
    ("jax.lax.psum(a, 'x')", "P()", False),
    ("jax.lax.pmean(a * 2, 'x') + 1", "P()", False),
    ("jax.lax.pmin(a, 'x')", "P()", False),
    ("jax.lax.psum(a, 'y')", "P()", True),
    ("jnp.sum(a)", "P()", True),
    ("jnp.zeros_like(a)", "P()", True),
    ("jnp.zeros(a.shape)", "P()", False),
    ("a + jax.lax.axis_index('y')", "P('x')", True),
    ("a + jax.lax.axis_index('y')", "P('x', 'y')", False),
    ("jax.lax.ppermute(a, 'x', [(0, 1), (1, 0)])", "P()", True),
    ("jax.lax.psum(a, 'x') + a", "P()", True),
])
def test_replication(body: str, out: str, wrong: bool) -> None:
    snippet = f"""\
        y = jax.shard_map(lambda a: {body}, mesh=mesh, in_specs=P('x'), out_specs={out})(jnp.ones((8, 8)))
        """
    assert found(snippet) == ({(1, "SC207")} if wrong else set())


def test_replication_is_off_without_check_vma() -> None:
    snippet = """\
        import jax.experimental.shard_map

        flag = bool(np.random.rand())
        y = jax.shard_map(lambda a: a, mesh=mesh, in_specs=P('x'), out_specs=P(), check_vma=False)(jnp.ones(8))
        z = jax.experimental.shard_map.shard_map(lambda a: a, mesh, P('x'), P(), check_rep=False)(jnp.ones(8))
        w = jax.shard_map(lambda a: a, mesh=mesh, in_specs=P('x'), out_specs=P(), check_vma=flag)(jnp.ones(8))
        v = jax.experimental.shard_map.shard_map(lambda a: a, mesh, P('x'), P())(jnp.ones(8))
        """
    assert found(snippet) == {(7, "SC207")}


def test_replication_message_names_the_axis_and_the_fix() -> None:
    (message,) = messages("""\
        y = jax.shard_map(lambda a: a.sum(), mesh=mesh, in_specs=P(('x', 'y')), out_specs=P())(jnp.ones(8))
        """)
    assert "'x', 'y'" in message and "P()" in message and "psum" in message


def test_a_body_error_is_not_echoed_at_out_specs() -> None:
    snippet = """\
        y = jax.shard_map(lambda a: jax.lax.psum(a, 'z'), mesh=mesh, in_specs=P('x'), out_specs=P())(jnp.ones(8))
        """
    assert found(snippet) == {(1, "SC202")}


# ---------------------------------------------------------------- across modules


def test_specs_and_meshes_from_another_module(tmp_path: Path) -> None:
    (tmp_path / "layout.py").write_text(textwrap.dedent("""\
        import jax
        from jax.sharding import PartitionSpec as P

        MESH = jax.make_mesh((2, 4), ('data', 'model'))
        BATCH = P('data')
        WRONG = P('batch')
        """))
    (tmp_path / "main.py").write_text(HEADER + textwrap.dedent("""\
        from layout import BATCH, MESH, WRONG

        y = jax.shard_map(lambda a: a, mesh=MESH, in_specs=BATCH, out_specs=BATCH)(jnp.ones((6, 3)))
        z = jax.shard_map(lambda a: a, mesh=MESH, in_specs=BATCH, out_specs=BATCH)(jnp.ones((5, 3)))
        w = jax.shard_map(lambda a: a, mesh=MESH, in_specs=WRONG, out_specs=BATCH)
        """))
    report = check_files([str(tmp_path / "layout.py"), str(tmp_path / "main.py")], jobs=1)
    assert not report.errors
    # MESH's axes are Explicit (make_mesh's default): JAX 0.10.2 refuses the unsplit (6, 3) under
    # P('data') as not placed so (SC208), and the (5, 3) first as indivisible (SC205).
    assert sorted((Path(d.path).name, d.span.line - FIRST + 1, d.code) for d in report.diagnostics) == [
        ("main.py", 3, "SC208"), ("main.py", 4, "SC205"), ("main.py", 5, "SC206")]


def test_specs_name_only_the_manual_axes_of_a_partial_shard_map() -> None:
    # Checked against JAX 0.10: `in_specs`/`out_specs` naming 'y' under axis_names={'x'} raise
    # "must refer to an axis marked as manual"; without axis_names every axis is manual.
    assert found("""\
        x = jnp.ones((8, 8))
        a = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'), axis_names={'x'})(x)
        b = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P('x', None), out_specs=P('x', None), axis_names={'x'})(x)
        c = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P('x', None), out_specs=P('x', 'y'), axis_names={'x'})(x)
        d = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))(x)
        e = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'), axis_names={'x', 'y'})(x)
        """) == {(2, "SC206"), (4, "SC206")}
    [message] = messages("""\
        x = jnp.ones((8, 8))
        a = jax.shard_map(jnp.tanh, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None), axis_names={'x'})(x)
        """)
    assert "'y' (dim 1)" in message and "manual only over 'x'" in message


def test_an_all_gathered_value_still_varies_over_the_gathered_mesh_axis() -> None:
    # JAX 0.10 (check_vma) types all_gather's result as varying over the axis it gathers, even
    # from an invariant argument, and refuses out_specs that do not name it; psum's it does not.
    assert found("""\
        x = jnp.ones((8, 8))
        gather = lambda v: jax.lax.all_gather(v, 'x', tiled=True)
        a = jax.shard_map(gather, mesh=mesh, in_specs=P('x', 'y'), out_specs=P())(x)
        b = jax.shard_map(gather, mesh=mesh, in_specs=P('x', 'y'), out_specs=P(None, 'y'))(x)
        c = jax.shard_map(gather, mesh=mesh, in_specs=P(), out_specs=P())(x)
        d = jax.shard_map(gather, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))(x)
        e = jax.shard_map(lambda v: jax.lax.psum(v, 'x'), mesh=mesh, in_specs=P('x', None), out_specs=P())(x)
        """) == {(3, "SC207"), (4, "SC207"), (5, "SC207")}
    # Each device's (4, 8) block gathers to (8, 8); out_specs concatenates the two over 'x'.
    assert shape_of("""\
        x = jnp.ones((8, 8))
        gather = lambda v: jax.lax.all_gather(v, 'x', tiled=True)
        y = jax.shard_map(gather, mesh=mesh, in_specs=P('x', None), out_specs=P('x', None))(x)
        """, "y") == (16, 8)


def test_collective_parameters_are_checked_against_the_block() -> None:
    # Each wrong line is one JAX 0.10.2 refuses (IndexError or ValueError); each block is (4, 6).
    assert found("""\
        x = jnp.ones((8, 24))
        run = lambda f: jax.shard_map(f, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'), check_vma=False)(x)
        a = run(lambda v: jax.lax.all_gather(v, 'y', axis=3))
        b = run(lambda v: jax.lax.all_gather(v, 'y', axis=2, tiled=True))
        c = run(lambda v: jax.lax.psum_scatter(v, 'y', scatter_dimension=2))
        d = run(lambda v: jax.lax.psum_scatter(v, 'y', scatter_dimension=1, tiled=True))
        e = run(lambda v: jax.lax.psum_scatter(v, 'x', scatter_dimension=1))
        f = run(lambda v: jax.lax.all_to_all(v, 'y', 1, 0))
        g = run(lambda v: jax.lax.all_to_all(v, 'y', 5, 0, tiled=True))
        h = run(lambda v: jax.lax.all_to_all(v, 'y', 1, 0, tiled=True))
        ok0 = run(lambda v: jax.lax.all_to_all(v, 'y', 0, 1))
        j = run(lambda v: jax.lax.ppermute(v, 'x', [(0, 1), (1, 2)]))
        ok4 = run(lambda v: jax.lax.ppermute(v, 'x', [(0, 1), (1, 0)]))
        ok = run(lambda v: jax.lax.all_gather(v, 'y', axis=-1, tiled=True))
        ok2 = run(lambda v: jax.lax.psum_scatter(v, 'x', scatter_dimension=0, tiled=True))
        ok3 = run(lambda v: jax.lax.all_to_all(v, 'x', 1, 0, tiled=True))
        k = run(lambda v: jax.lax.ppermute(v, 'x', [(0, 1), (1, 1)]))
        m = run(lambda v: jax.lax.ppermute(v, 'x', [(0, 1), (0, 0)]))
        ok5 = run(lambda v: jax.lax.ppermute(v, 'x', [(0, 0), (1, 1)]))
        """) == {(3, "SC106"), (4, "SC106"), (5, "SC106"), (6, "SC205"), (7, "SC102"), (8, "SC102"),
                 (9, "SC106"), (10, "SC205"), (12, "SC106"), (17, "SC106"), (18, "SC106")}


def test_spec_trees_are_matched_at_every_depth() -> None:
    # JAX's "pytree structure error" below the top: a dict key missing, a nested tuple of the
    # wrong length, a dict result with tuple out_specs.
    assert found("""\
        ident = lambda v: v
        a = jax.shard_map(ident, mesh=mesh, in_specs=({'b': P('x')},), out_specs=P())({'a': jnp.ones(8)})
        b = jax.shard_map(ident, mesh=mesh, in_specs=((P('x'), P()),), out_specs=P())((jnp.ones(8),))
        c = jax.shard_map(lambda v: {'a': v}, mesh=mesh, in_specs=P('x'), out_specs=(P('x'),))(jnp.ones(8))
        d = jax.shard_map(lambda v: (v, (v, v)), mesh=mesh, in_specs=P(), out_specs=(P(), (P(),)))(jnp.ones(8))
        e = jax.shard_map(ident, mesh=mesh, in_specs=((P(), P()),), out_specs=P())(jnp.ones(8))
        ok = jax.shard_map(ident, mesh=mesh, in_specs=({'a': P('x')},), out_specs={'a': P('x')})({'a': jnp.ones(8)})
        ok2 = jax.shard_map(lambda v: (v, (v, v)), mesh=mesh, in_specs=P(), out_specs=(P(), P()))(jnp.ones(8))
        """) == {(2, "SC002"), (3, "SC002"), (4, "SC002"), (5, "SC002"), (6, "SC002")}


def test_a_decorator_form_shard_map_binds_only_its_manual_axes() -> None:
    assert found("""\
        @jax.shard_map(mesh=mesh, in_specs=P('x'), out_specs=P('x'), axis_names={'x'})
        def f(a):
            return jax.lax.psum(a, 'y') + jax.lax.psum_scatter(a, 'x', tiled=True)

        out = f(jnp.zeros((2, 1)))
        """) == {(3, "SC202"), (3, "SC205")}
    # The partial form: its axis_names set is read as written too.
    assert found("""        @partial(jax.shard_map, mesh=mesh, in_specs=P('y'), out_specs=P(), axis_names={'y'})
        def f(a):
            return a + jax.lax.psum(a, 'x')

        @partial(jax.shard_map, mesh=mesh, in_specs=P('y'), out_specs=P(), axis_names={'y'})
        def g(a):
            return a

        out = f(jnp.zeros((4,))), g(jnp.zeros((4,)))
        """) == {(3, "SC202"), (5, "SC207")}
