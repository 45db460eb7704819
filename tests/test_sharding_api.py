"""Shardings and jit (DESIGN.md 3a): NamedSharding, bare PartitionSpecs under `jax.set_mesh`,
device_put, with_sharding_constraint, reshard, and jit's in_shardings/out_shardings; and the
axis names jit does not bind. Each reported case is one JAX 0.10 refuses on 8 CPU devices; each
clean case is one it accepts, or one whose outcome the checker cannot know."""

from __future__ import annotations

import textwrap
from pathlib import Path

from shapecheck.api import analyze_source, check_files

HEADER = """\
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(AxisType.Auto, AxisType.Auto))
"""
FIRST = HEADER.count("\n") + 1  # the line number of the first line of a snippet


def diagnostics(source: str) -> list[tuple[int, str, str]]:
    """(line within the snippet, code, message) of each diagnostic of the snippet under HEADER."""
    result = analyze_source("t.py", HEADER + textwrap.dedent(source))
    assert result.error is None, result.error
    return [(d.span.line - FIRST + 1, d.code, d.message) for d in result.diagnostics]


def codes(source: str) -> list[tuple[int, str]]:
    return [(line, code) for line, code, _ in diagnostics(source)]


# ---------------------------------------------------------------- NamedSharding and device_put


def test_device_put_with_an_indivisible_dim_names_the_dim_the_axis_and_the_sizes() -> None:
    found = diagnostics("""\
        s = NamedSharding(mesh, P('data', None))
        x = jax.device_put(jnp.ones((6, 8)), s)
        """)
    assert [(line, code) for line, code, _ in found] == [(2, "SC205")]
    message = found[0][2]
    assert "dim 0" in message and "6" in message and "'data' (4)" in message and "P('data', None)" in message


def test_device_put_divisible_and_replicated_dims_are_clean() -> None:
    assert codes("""\
        x = jax.device_put(jnp.ones((8, 3)), NamedSharding(mesh, P('data', None)))
        y = jax.device_put(jnp.ones((8, 6)), NamedSharding(mesh, P(('data', 'model'))))
        z = jax.device_put(jnp.ones((0, 3)), NamedSharding(mesh, P('data')))
        w = jax.device_put(jnp.ones((5,)), NamedSharding(mesh, P()))
        """) == []


def test_a_tuple_entry_divides_by_the_product_of_its_mesh_axes() -> None:
    assert codes("""\
        x = jax.device_put(jnp.ones((12, 3)), NamedSharding(mesh, P(('data', 'model'))))
        """) == [(1, "SC205")]


def test_spec_longer_than_the_rank_is_sc106_also_for_python_scalars() -> None:
    assert codes("""\
        x = jax.device_put(jnp.ones((8, 6)), NamedSharding(mesh, P('data', None, None)))
        y = jax.device_put(1.0, NamedSharding(mesh, P('data')))
        """) == [(1, "SC106"), (2, "SC106")]


def test_device_put_pytrees_of_shardings_and_one_sharding_for_a_whole_tree() -> None:
    assert codes("""\
        s = NamedSharding(mesh, P('data'))
        a = jax.device_put((jnp.ones((8, 2)), jnp.ones((6, 2))), (s, None))
        b = jax.device_put((jnp.ones((8, 2)), jnp.ones((6, 2))), s)
        c = jax.device_put({'w': jnp.ones((6, 2)), 'b': jnp.ones((8,))}, {'w': None, 'b': s})
        d = jax.device_put({'w': jnp.ones((6, 2)), 'b': jnp.ones((8,))}, {'w': s, 'b': s})
        e = jax.device_put([jnp.ones((6, 2))], (s, s))
        """) == [(3, "SC205"), (5, "SC205")]


def test_device_put_returns_its_value() -> None:
    assert codes("""\
        x = jax.device_put(jnp.ones((8, 6)), NamedSharding(mesh, P('data')))
        y = x + jnp.ones((5,))
        t = jax.device_put((jnp.ones((8, 6)), 2.0))
        z = t[0] + jnp.ones((5,))
        """) == [(2, "SC101"), (4, "SC101")]


def test_named_sharding_checks_its_spec_against_its_mesh_where_it_is_built() -> None:
    found = diagnostics("""\
        unknown = NamedSharding(mesh, P('batch', None))
        twice = NamedSharding(mesh, P('data', ('model', 'data')))
        x = jax.device_put(jnp.ones((8, 6)), unknown)
        """)
    assert [(line, code) for line, code, _ in found] == [(1, "SC206"), (2, "SC201")]
    assert "'batch'" in found[0][2] and "'data', 'model'" in found[0][2]
    assert "'data'" in found[1][2] and "dims 0 and 1" in found[1][2]


def test_meshes_and_shardings_the_checker_cannot_read_are_never_reported() -> None:
    assert codes("""\
        def place(m, x):
            return jax.device_put(x, NamedSharding(m, P('batch')))

        other = jax.sharding.get_abstract_mesh()
        a = jax.device_put(jnp.ones((6, 8)), NamedSharding(other, P('data')))
        b = jax.device_put(jnp.ones((6, 8)), jax.sharding.SingleDeviceSharding(jax.devices()[0]))
        c = jax.device_put(jnp.ones((6, 8)), jax.devices()[0])
        d = place(other, jnp.ones((8, 8)))
        e = jax.device_put(jnp.ones((6, 8)), NamedSharding(mesh, P(P.UNCONSTRAINED, 'model')))
        names = tuple(n for n in ('data',) if n in jax.devices())
        f = jax.device_put(jnp.ones((6, 8)), NamedSharding(mesh, P(*names)))
        """) == []


def test_a_spec_built_by_a_comprehension_the_checker_follows_is_read() -> None:
    # The generator over a known tuple is followed item by item: P(*names) is P('data'), and
    # 6 rows on 4 devices is what JAX refuses.
    assert codes("""\
        names = tuple(n for n in ('data',))
        f = jax.device_put(jnp.ones((6, 8)), NamedSharding(mesh, P(*names)))
        """) == [(2, "SC205")]


def test_an_unreadable_mesh_still_refuses_a_repeated_axis_and_a_long_spec() -> None:
    assert codes("""\
        def place(m, x):
            return jax.device_put(x, NamedSharding(m, P('data', 'data')))

        def put(m):
            return jax.device_put(jnp.ones((8,)), NamedSharding(m, P('data', None)))
        """) == [(2, "SC201"), (5, "SC106")]


def test_symbolic_and_unknown_dims_are_never_indivisible() -> None:
    assert codes("""\
        from shapecheck import f32

        def place(x: f32[('n', 8)], y):
            return jax.device_put(x, NamedSharding(mesh, P('data'))), jax.device_put(y, NamedSharding(mesh, P('data')))
        """) == []


# ---------------------------------------------------------------- bare specs and the mesh in context


def test_bare_specs_are_read_against_the_mesh_of_set_mesh() -> None:
    assert codes("""\
        with jax.set_mesh(mesh):
            a = jax.device_put(jnp.ones((8, 6)), P('data'))
            b = jax.device_put(jnp.ones((6, 8)), P('data'))
            c = jax.device_put(jnp.ones((8, 6)), P('batch'))
            d = jax.device_put(jnp.ones((8, 6)), P('data', 'data'))
        """) == [(3, "SC205"), (4, "SC206"), (5, "SC201")]


def test_without_a_known_mesh_a_bare_spec_names_no_missing_axis() -> None:
    # A function analysed on its own: its caller may have set any mesh.
    assert codes("""\
        def place():
            a = jax.device_put(jnp.ones((8, 6)), P('batch'))
            b = jax.device_put(jnp.ones((6, 8)), P('data'))
            c = jax.device_put(jnp.ones((8, 6)), P('batch', None, None))
        """) == [(4, "SC106")]


def test_with_no_mesh_set_a_bare_spec_is_refused_whatever_it_names() -> None:
    # Module-level code outside any `jax.set_mesh`: JAX's ValueError "Please set a mesh via
    # `jax.set_mesh` if a PartitionSpec is passed to device_put", before any spec rule.
    assert codes("""\
        a = jax.device_put(jnp.ones((8, 6)), P('batch'))
        b = jax.device_put(jnp.ones((6, 8)), P('data'))
        c = jax.device_put(jnp.ones((8, 6)), P('batch', None, None))
        """) == [(1, "SC206"), (2, "SC206"), (3, "SC206")]


def test_a_bare_spec_is_read_against_the_mesh_where_the_jitted_function_is_called() -> None:
    # JAX resolves jit's bare specs when the function is called, not where jit is applied.
    assert codes("""\
        f = jax.jit(lambda v: v * 2, in_shardings=P('batch'))
        with jax.set_mesh(mesh):
            y = f(jnp.ones((8, 6)))
        with jax.set_mesh(mesh):
            g = jax.jit(lambda v: v * 2, in_shardings=P('batch'))
        z = g(jnp.ones((8, 6)))
        """) == [(1, "SC206"), (6, "SC206")]  # line 6: called where no mesh is set at all


# ---------------------------------------------------------------- with_sharding_constraint and reshard


def test_with_sharding_constraint_refuses_an_uneven_split_only_outside_jit() -> None:
    # Under jit JAX pads an uneven split; a function body may always be traced under jit.
    assert codes("""\
        s = NamedSharding(mesh, P('data'))
        a = lax.with_sharding_constraint(jnp.ones((6, 8)), s)

        @jax.jit
        def f(x):
            return lax.with_sharding_constraint(x, s)

        b = f(jnp.ones((6, 8)))

        def g(x):
            return lax.with_sharding_constraint(x * 2, s)
        """) == [(2, "SC205")]


def test_with_sharding_constraint_spec_longer_than_the_rank_in_and_out_of_jit() -> None:
    assert codes("""\
        s = NamedSharding(mesh, P('data', None, None))
        a = lax.with_sharding_constraint(jnp.ones((8, 8)), s)

        @jax.jit
        def f(x):
            return lax.with_sharding_constraint(x, s)

        b = f(jnp.ones((8, 8)))
        c = jax.vmap(lambda r: lax.with_sharding_constraint(r, NamedSharding(mesh, P('data'))))(jnp.ones((3, 8)))
        """) == [(2, "SC106"), (6, "SC106")]


def test_reshard_refuses_uneven_splits_but_not_trailing_entries() -> None:
    assert codes("""\
        a = jax.sharding.reshard(jnp.ones((6, 8)), NamedSharding(mesh, P('data')))
        b = jax.sharding.reshard(jnp.ones((8, 6)), NamedSharding(mesh, P('data', None, None)))
        c = jax.reshard(jnp.ones((8, 6)), NamedSharding(mesh, P('data')))
        """) == [(1, "SC205"), (2, "SC209"), (3, "SC209")]  # reshard names only Explicit axes: `mesh`'s are Auto


def test_reshard_refuses_a_spec_longer_than_the_value_by_a_mesh_axis() -> None:
    # JAX 0.10.2: trailing Nones pass, a mesh axis past the rank is an AssertionError.
    assert codes("""\
        em = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(AxisType.Explicit,) * 2)
        a = jax.sharding.reshard(jnp.ones(()), NamedSharding(em, P('data')))
        b = jax.sharding.reshard(jnp.ones((8,)), NamedSharding(em, P(None, 'model')))
        c = jax.sharding.reshard(jnp.ones((8,)), NamedSharding(em, P('data', None)))
        d = jax.sharding.reshard(jnp.ones(()), NamedSharding(em, P(None)))
        """) == [(2, "SC106"), (3, "SC106")]


def test_arrays_built_from_callbacks_and_abstract_values_with_a_sharding() -> None:
    # make_array_from_callback splits the global shape (trailing entries pass); a
    # ShapeDtypeStruct is never split (uneven passes) but its spec must fit its rank.
    assert codes("""\
        s = NamedSharding(mesh, P('data'))
        a = jax.make_array_from_callback((8, 8), s, lambda index: None)
        b = jax.make_array_from_callback((6, 8), s, lambda index: None)
        c = jax.make_array_from_callback((8,), NamedSharding(mesh, P('data', None)), lambda index: None)
        d = jax.ShapeDtypeStruct((6, 8), jnp.float32, sharding=s)
        e = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=NamedSharding(mesh, P('data', None)))
        f = a + jnp.ones((3,))
        """) == [(3, "SC205"), (6, "SC106"), (7, "SC101")]


# ---------------------------------------------------------------- jit


def test_in_shardings_against_the_arguments_at_each_argument() -> None:
    found = diagnostics("""\
        batch = NamedSharding(mesh, P('data'))

        @partial(jax.jit, in_shardings=(None, batch))
        def step(w, x):
            return x @ w

        a = step(jnp.ones((6, 3)), jnp.ones((8, 6)))
        b = step(jnp.ones((6, 3)),
                 jnp.ones((10, 6)))
        """)
    assert [(line, code) for line, code, _ in found] == [(9, "SC205")]
    assert "argument `jnp.ones((10, 6))` of `step` (in_shardings[1])" in found[0][2]


def test_one_sharding_stands_for_every_argument() -> None:
    assert codes("""\
        f = jax.jit(lambda a, b: (a, b), in_shardings=NamedSharding(mesh, P('data')))
        x = f(jnp.ones((8, 2)), jnp.ones((8, 2)))
        y = f(jnp.ones((8, 2)), jnp.ones((6, 2)))
        g = jax.jit(lambda p: p['w'], in_shardings=NamedSharding(mesh, P('data')))
        z = g({'w': jnp.ones((8, 2)), 'b': jnp.ones((6,))})
        """) == [(3, "SC205"), (5, "SC205")]


def test_static_arguments_take_no_in_shardings_entry() -> None:
    assert codes("""\
        s = NamedSharding(mesh, P('data'))

        @partial(jax.jit, static_argnums=1, in_shardings=(s, s))
        def scale(x, n, y):
            return x * n, y

        @partial(jax.jit, static_argnames='n', in_shardings=(s, None))
        def scale2(x, n, y):
            return x * n, y

        a = scale(jnp.ones((8, 2)), 3, jnp.ones((6, 2)))
        b = scale2(jnp.ones((8, 2)), 3, jnp.ones((6, 2)))
        c = scale2(jnp.ones((6, 2)), 3, jnp.ones((6, 2)))
        """) == [(11, "SC205"), (13, "SC205")]


def test_in_shardings_the_checker_cannot_line_up_are_not_reported() -> None:
    # Keyword arguments with in_shardings, static_argnums counted from the end or read from a
    # variable: which entry goes with which argument is not certain, so nothing is said.
    assert codes("""\
        s = NamedSharding(mesh, P('data'))
        f = jax.jit(lambda a, b: a + b, in_shardings=(s, s))
        x = f(jnp.ones((6, 2)), b=jnp.ones((6, 2)))
        g = jax.jit(lambda a, n: a * n, static_argnums=-1, in_shardings=(s,))
        z = g(jnp.ones((6, 2)), 2)
        """) == []


def test_a_tuple_of_in_shardings_of_the_wrong_length_is_reported_at_the_call() -> None:
    # JAX's ValueError at the call ("in_shardings is the wrong length"); as for shard_map's
    # in_specs and vmap's in_axes, SC002. Static arguments take no entry.
    assert codes("""\
        s = NamedSharding(mesh, P('data'))
        f = jax.jit(lambda a, b: a + b, in_shardings=(s, s))
        y = f(jnp.ones((8, 2)), jnp.ones((8, 2)), jnp.ones((8, 2)))
        ok = f(jnp.ones((8, 2)), jnp.ones((8, 2)))
        g = jax.jit(lambda a, n: a * n, static_argnums=1, in_shardings=[s, s])
        z = g(jnp.ones((8, 2)), 2)
        one = jax.jit(lambda a, b: a + b, in_shardings=s)(jnp.ones((8, 2)), jnp.ones((8, 2)))
        """) == [(3, "SC002"), (6, "SC002")]


def test_no_in_shardings_for_no_argument_is_valid() -> None:
    # The trivially valid case of the arity check: JAX runs both.
    assert codes("""        f = jax.jit(lambda: jnp.zeros(3), in_shardings=())
        y = f()
        g = jax.jit(lambda n: jnp.zeros(3) * n, static_argnums=0, in_shardings=[])
        z = g(2)
        """) == []


def test_out_shardings_against_the_result() -> None:
    assert codes("""\
        s = NamedSharding(mesh, P('data'))
        f = jax.jit(lambda a: (a, a.T), out_shardings=(s, None))
        x = f(jnp.ones((8, 6)))
        g = jax.jit(lambda a: (a, a.T), out_shardings=s)
        y = g(jnp.ones((8, 6)))
        h = jax.jit(lambda a: a.sum(axis=0), out_shardings=NamedSharding(mesh, P('data', None)))  # 6 rows too
        z = h(jnp.ones((8, 6)))
        k = jax.jit(lambda a: {'w': a}, out_shardings={'w': s})
        w = k(jnp.ones((8, 6)))
        """) == [(5, "SC205"), (7, "SC106")]


def test_a_refused_argument_is_reported_and_not_the_result_it_never_makes() -> None:
    assert codes("""\
        s = NamedSharding(mesh, P('data'))
        f = jax.jit(lambda a: a * 2, in_shardings=s, out_shardings=s)
        x = f(jnp.ones((6, 2)))
        """) == [(3, "SC205")]


def test_jit_keeps_the_shapes_of_its_function() -> None:
    assert codes("""\
        s = NamedSharding(mesh, P('data'))
        f = jax.jit(lambda a: a.sum(axis=1), in_shardings=s, out_shardings=s)
        x = f(jnp.ones((8, 6))) + jnp.ones((3,))
        """) == [(3, "SC101")]


def test_a_jitted_function_with_shardings_under_vmap_sees_the_per_example_value() -> None:
    assert codes("""\
        f = jax.jit(lambda a: a * 2, out_shardings=NamedSharding(mesh, P('data')))
        x = jax.vmap(f)(jnp.ones((3, 8)))
        g = jax.jit(lambda a: a * 2, out_shardings=NamedSharding(mesh, P('data', None)))
        y = jax.vmap(g)(jnp.ones((3, 8)))
        """) == [(4, "SC106")]


# ---------------------------------------------------------------- jit binds no axis name


def test_collectives_under_plain_jit_are_unbound_in_every_form() -> None:
    assert codes("""\
        @jax.jit
        def a(x):
            return lax.psum(x, 'data')

        def b(x):
            return lax.pmean(x, 'data')

        @partial(jax.jit, static_argnums=1)
        def c(x, n):
            return lax.pmax(x * n, 'data')

        @partial(jax.jit, in_shardings=NamedSharding(mesh, P('data')))
        def d(x):
            return lax.psum(x, 'model')

        x = jnp.ones((8, 4))
        with jax.set_mesh(mesh):
            ra = a(x)
            rb = jax.jit(b)(x)
            rc = c(x, 2)
            rd = d(x)
        """) == [(3, "SC202"), (6, "SC202"), (10, "SC202"), (14, "SC202")]


def test_jitted_functions_called_where_a_map_binds_the_name_are_clean() -> None:
    assert codes("""\
        @jax.jit
        def a(x):
            return lax.psum(x, 'data')

        @partial(jax.jit, out_shardings=NamedSharding(mesh, P()))
        def b(x):
            return lax.pmean(x, 'data')

        def body(x):
            return jax.jit(a)(x) + b(x)

        x = jnp.ones((8, 4))
        r1 = jax.vmap(a, axis_name='data')(x)
        r2 = jax.vmap(b, axis_name='data')(x)
        r3 = jax.vmap(body, axis_name='data')(x)
        r4 = jax.vmap(jax.jit(body), axis_name='data')(x)
        """) == []


def test_a_jitted_function_never_called_is_not_reported() -> None:
    assert codes("""\
        @partial(jax.jit, in_shardings=NamedSharding(mesh, P('data')))
        def step(x):
            return lax.psum(x, 'data')
        """) == []


# ---------------------------------------------------------------- across modules


def test_a_spec_from_another_module_is_reported_where_it_is_used(tmp_path: Path) -> None:
    (tmp_path / "specs.py").write_text(textwrap.dedent("""\
        from jax.sharding import PartitionSpec as P

        BATCH = P('batch')
        """))
    (tmp_path / "main.py").write_text(HEADER + textwrap.dedent("""\
        from specs import BATCH

        s = NamedSharding(mesh, BATCH)
        """))
    report = check_files([str(tmp_path / "specs.py"), str(tmp_path / "main.py")], jobs=1)
    assert not report.errors
    assert [(Path(d.path).name, d.span.line - FIRST + 1, d.code) for d in report.diagnostics] == [
        ("main.py", 3, "SC206")]


def test_jit_out_shardings_must_have_the_output_s_structure() -> None:
    # JAX 0.10.2: "pytree structure error" at the call for a tuple of another length, a tuple
    # given a list, a tuple given an array; one sharding for all is fine.
    assert codes("""\
        repl = NamedSharding(mesh, P())
        a = jax.jit(lambda w: (w, w.sum(), w.max()), out_shardings=(repl, repl))(jnp.ones(8))
        b = jax.jit(lambda w: [w, w], out_shardings=(repl, repl))(jnp.ones(8))
        c = jax.jit(lambda w: w * 2, out_shardings=(repl,))(jnp.ones(8))
        ok = jax.jit(lambda w: (w, w), out_shardings=repl)(jnp.ones(8))
        ok2 = jax.jit(lambda w: (w,), out_shardings=(repl,))(jnp.ones(8))
        """) == [(2, "SC002"), (3, "SC002"), (4, "SC002")]
