"""jax.vmap and jax.pmap as the analyzer checks them (DESIGN.md section 3a): each case is what
JAX 0.10 raises, or accepts, on 8 CPU devices (tests/runtime/test_current_jax.py runs the
fixtures that say the same on JAX itself)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from shapecheck.api import analyze_source, check_files
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


def shape(inferred: ArrayType) -> tuple[object, ...] | None:
    """The positional shape when it is exact and no named axis is left (dtypes are another rule's)."""
    if inferred.ellipsis is not None or inferred.named or inferred.named_open:
        return None
    return inferred.dims


def codes(source: str) -> list[tuple[int, str]]:
    return [(line, code) for line, code, _ in run(source)[0]]


def test_all_gather_over_a_named_vmap_makes_the_axis_positional() -> None:
    _, types = run("""\
        def gather(v):
            return jnp.sum(lax.all_gather(v, 'rows'), axis=0)
        y = jax.vmap(gather, axis_name='rows')(jnp.ones((4, 5)))
        """)
    assert shape(types["y"]) == (4, 5)


def test_in_axes_structure_is_sc002() -> None:
    assert codes("y = jax.vmap(f, in_axes={'a': 0})(x)\n") == [(1, "SC002")]  # TypeError
    assert codes("y = jax.vmap(g, in_axes=(0,))(x, x)\n") == [(1, "SC002")]  # len(in_axes)=1, len(args)=2
    assert codes("y = jax.vmap(g, in_axes=(0, 0, 0))(x, x)\n") == [(1, "SC002")]
    assert codes("y = jax.vmap(f, in_axes=((0, 1),))(x)\n") == [(1, "SC002")]  # not a tree prefix
    assert codes("y = jax.vmap(f, in_axes=0.5)(x)\n") == [(1, "SC002")]
    assert codes("y = jax.pmap(g, in_axes=[0, None])(x, x)\n") == [(1, "SC002")]  # pmap: a list never matches
    assert codes("y = jax.vmap(g, in_axes=[0, None])(x, x)\n") == []  # vmap reads a list as a tuple
    assert codes("y = jax.vmap(lambda p: p[0] + p[1].T, in_axes=((0, 1),))((x, x.T))\n") == []


def test_nothing_mapped_is_sc002_unless_vmap_has_axis_size() -> None:
    assert codes("y = jax.vmap(f, in_axes=None)(x)\n") == [(1, "SC002")]
    assert codes("y = jax.vmap(g, in_axes=(None, None))(x, x)\n") == [(1, "SC002")]
    assert codes("y = jax.vmap(lambda: 1.0)()\n") == [(1, "SC002")]
    assert codes("y = jax.vmap(f, in_axes=None, axis_size=3)(x)\n") == []
    assert codes("y = jax.pmap(f, in_axes=None, axis_size=2)(x)\n") == [(1, "SC002")]
    assert codes("y = jax.vmap(h, in_axes=(None,))(x, b=x)\n") == []  # the keyword argument is mapped
    assert codes("def k(n):\n    return jax.vmap(f, in_axes=None, axis_size=n)(x)\n") == []


def test_axes_out_of_range_and_mapped_scalars_are_sc106() -> None:
    assert codes("y = jax.vmap(f, in_axes=2)(x)\n") == [(1, "SC106")]
    assert codes("y = jax.vmap(f, in_axes=-3)(x)\n") == [(1, "SC106")]
    assert codes("y = jax.vmap(f, in_axes=-2)(x)\n") == []
    assert codes("y = jax.vmap(f)(s)\n") == [(1, "SC106")]
    assert codes("y = jax.vmap(f)(1.0)\n") == [(1, "SC106")]
    assert codes("y = jax.pmap(f)(s)\n") == [(1, "SC106")]
    assert codes("y = jax.pmap(g)(x, 2.0)\n") == [(1, "SC106")]
    assert codes("y = jax.vmap(h)(x, b=s)\n") == [(1, "SC106")]
    assert codes("y = jax.vmap(g, in_axes=(0, None))(x, 1.0)\n") == []
    assert codes("y = jax.vmap(f, out_axes=2)(x)\n") == [(1, "SC106")]
    assert codes("y = jax.vmap(f, out_axes=-3)(x)\n") == [(1, "SC106")]
    assert codes("y = jax.pmap(f, out_axes=2)(x)\n") == [(1, "SC106")]
    assert codes("y = jax.vmap(f, out_axes=-2)(x)\n") == []


def test_sizes_across_positional_and_keyword_arguments_are_sc102_at_the_call() -> None:
    found, _ = run("y = jax.vmap(h)(x, b=w)\n")
    assert [(line, code) for line, code, _ in found] == [(1, "SC102")]
    assert "7 in keyword argument `b`" in found[0][2] and "8 in `x`" in found[0][2]
    assert codes("y = jax.vmap(h, in_axes=1)(jnp.ones((4, 8)), b=x)\n") == []  # keywords map axis 0
    assert codes("y = jax.pmap(g)(x, jnp.ones((4, 4)))\n") == [(1, "SC102")]
    assert codes("y = jax.vmap(f, axis_size=6)(x)\n") == [(1, "SC102")]


def test_shapes_through_maps_equal_jax() -> None:
    _, types = run("""\
        a = jax.vmap(f, in_axes=1, out_axes=1)(jnp.ones((3, 8, 5)))
        b = jax.vmap(h)(x, b=x)
        c = jax.pmap(f, in_axes=1)(jnp.ones((3, 8)))
        d = jax.pmap(lambda v, n: v * n, static_broadcasted_argnums=1)(x, 3)
        e = jax.vmap(lambda p: p['w'] @ p['b'], in_axes=({'w': 0, 'b': None},))({'w': jnp.ones((5, 3, 2)), 'b': jnp.ones((2,))})
        r = jax.vmap(lambda v: (v, v.sum()), out_axes=(1, 0))(jnp.ones((6, 2)))[0]
        """)
    assert shape(types["a"]) == (3, 8, 5)
    assert shape(types["b"]) == (8, 4)
    assert shape(types["c"]) == (8, 3)
    assert shape(types["d"]) == (8, 4)
    assert shape(types["e"]) == (5, 3)
    assert shape(types["r"]) == (2, 6)


def test_pmap_negative_axes_and_out_axes_none_give_what_jax_gives_or_nothing() -> None:
    # JAX 0.10: pmap(f, out_axes=-1)(ones((8, 4))) has shape (32, 1), not vmap's (4, 8).
    found, types = run("""\
        a = jax.pmap(f, out_axes=-1)(x)
        b = jax.pmap(f, out_axes=None)(x)
        c = jax.vmap(f, out_axes=None)(x)
        """)
    # JAX: ValueError: at vmap out_axes, got axis spec None but output was batched on axis 0.
    assert [(line, code) for line, code, _ in found] == [(3, "SC002")]
    assert "out_axes None" in found[0][2] and "(of size 8)" in found[0][2]
    assert "a" not in types and "c" not in types
    assert shape(types["b"]) == (4,)


def test_vmap_out_axes_none_takes_what_does_not_vary_along_the_axis() -> None:
    # JAX builds `*_like` from the shape alone, and a psum or all_gather leaves nothing mapped:
    # each of these runs, with out_axes None, and gives the body's per-example value.
    found, types = run("""\
        a = jax.vmap(lambda v: jnp.zeros_like(v), out_axes=None)(x)
        b = jax.vmap(lambda v: jnp.full_like(v, 2.0) + 1, out_axes=None)(x)
        c = jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i', out_axes=None)(x)
        d = jax.vmap(lambda v, u: u * 2, in_axes=(0, None), out_axes=None)(x, w)
        e = jax.vmap(lambda v: jnp.ones_like(v) * v, out_axes=0)(x)
        m = jax.vmap(lambda v: lax.pmean(v * 2, 'i') + v, axis_name='i', out_axes=None)(x)
        """)
    assert [(line, code) for line, code, _ in found] == [(6, "SC002")]
    assert "axis 'i' (of size 8)" in found[0][2] and "jax.lax.psum(x, 'i')" in found[0][2]
    assert [shape(types[name]) for name in "abcde"] == [(4,), (4,), (4,), (7, 4), (8, 4)]


def test_spmd_axis_name_binds_no_collective_name() -> None:
    # JAX: NameError: unbound axis name: d
    assert codes("y = jax.vmap(lambda a: lax.psum(a, 'd'), axis_name='i', spmd_axis_name='d')(x)\n") \
        == [(1, "SC202")]
    assert codes("y = jax.pmap(lambda a: lax.psum(a, 'e'), 'd')(x)\n") == [(1, "SC202")]
    assert codes("y = jax.pmap(lambda a: lax.psum(a, 'd'), 'd')(x)\n") == []
    assert codes("y = jax.vmap(jax.pmap(lambda a: lax.psum(a, ('d', 'v')), 'd'), axis_name='v')"
                 "(jnp.ones((3, 4, 2)))\n") == []


def test_grad_inside_vmap_has_the_parameters_shapes() -> None:
    found, types = run("""\
        def loss(params, v, t):
            return jnp.mean((v @ params[0] + params[1] - t) ** 2)
        params = (jnp.ones((4, 2)), jnp.zeros((2,)))
        per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, jnp.ones((8, 2)))
        w_grads = per_example[0]
        value_and = jax.value_and_grad(loss, argnums=(0, 1))(params, x, jnp.ones((8, 2)))
        v_grad = value_and[1][1]
        """)
    assert found == []
    assert shape(types["w_grads"]) == (8, 4, 2)
    assert shape(types["v_grad"]) == (8, 4)


INVENTED_NAME_CASES = [
    # A size conflict inside the body of an unnamed vmap, and an annotation mismatch there.
    "def k(a, b):\n    return a + jnp.ones((5,))\ny = jax.vmap(k)(x, x)\n",
    "from shapecheck import f32\ndef k(a: f32[(4,)]) -> f32[(4,)]:\n    z: f32[(3,)] = a\n    return z\n"
    "y = jax.vmap(k)(x)\n",
    "from shapecheck import f32\ndef k(a) -> f32[(4,), {'k': 3}]:\n    return a\ny = jax.vmap(k)(x)\n",
    # Messages that print a whole type (an xmap inside an unnamed vmap, einsum's named shapes).
    "from jax.experimental.maps import xmap\ndef k(a):\n"
    "    return xmap(lambda b: b * 2, in_axes=['i', 'j', ...], out_axes=['i', ...])(a)\n"
    "t = jax.vmap(k)(jnp.ones((8, 3)))\n",
    "def k(a):\n    return lax.psum(a, 'batch')\ny = jax.pmap(k)(x)\n",
    "y = jax.vmap(f, out_axes=None)(x)\nz = y + jnp.ones((3,))\n",
    "y = jax.vmap(jax.vmap(g))(x, w)\n",
]


def test_no_message_note_or_hover_shows_an_invented_axis_name() -> None:
    reported = 0
    for source in INVENTED_NAME_CASES:
        text = PRELUDE + source
        result = analyze_source("t.py", text, keep_types=True)
        assert result.error is None
        reported += bool(result.diagnostics)
        for diagnostic in result.diagnostics:
            shown = [diagnostic.message, *(note.message for note in diagnostic.notes)]
            assert not any("<vmap@" in text or "<pmap@" in text for text in shown), (source, shown)
        for typed in result.types:
            assert not any(name.startswith("<") for name, _ in typed.type.named), (source, typed.type)
            assert "<vmap@" not in str(typed.type) and "<pmap@" not in str(typed.type)
    assert reported >= 5  # the messages checked are there to check


def test_an_imported_vmap_is_checked_at_the_call(tmp_path: Path) -> None:
    # Its in_axes literal is in the other module: the problem is reported at the call here.
    (tmp_path / "lib.py").write_text(
        "import jax\n\n\ndef _f(a, b):\n    return a * b\n\n\nbatched = jax.vmap(_f, in_axes=(0, None))\n")
    main = ("import jax.numpy as jnp\nfrom lib import batched\n\nx = jnp.ones((8, 4))\ny = batched(x)\n"
            "z = batched(x, jnp.ones((4,)))\nw = batched(jnp.ones(()), 1.0)\n")
    (tmp_path / "main.py").write_text(main)
    report = check_files([str(tmp_path / "lib.py"), str(tmp_path / "main.py")], jobs=1)
    assert not report.errors
    assert [(Path(d.path).name, d.span.line, d.code) for d in report.diagnostics] == [
        ("main.py", 5, "SC002"), ("main.py", 7, "SC106")]


def test_none_arguments_enter_the_body_as_none() -> None:
    # None is a pytree without leaves: JAX maps it to None, so `b is None` decides the branch.
    found, types = run("""\
        def k(a, b=None):
            return a if b is None else a @ jnp.ones((5, 5))
        y = jax.vmap(k)(x, b=None)
        z = jax.vmap(k)(x, None)
        """)
    assert found == [] and shape(types["y"]) == (8, 4) and shape(types["z"]) == (8, 4)


def test_a_scalar_keyword_argument_is_told_to_go_positional() -> None:
    found, _ = run("y = jax.vmap(h)(x, b=2.0)\n")
    assert [(line, code) for line, code, _ in found] == [(1, "SC106")]
    assert "keyword argument `b`" in found[0][2] and "pass it positionally" in found[0][2]


def test_pmap_static_arguments_must_be_passed_positionally() -> None:
    # JAX: pmapped function has static_broadcasted_argnums=(1,) but was called with only 1 positional argument
    assert codes("y = jax.pmap(h, static_broadcasted_argnums=(1,))(x, b=3)\n") == [(1, "SC002")]
    assert codes("y = jax.pmap(h, static_broadcasted_argnums=1)(x, 3)\n") == []


def test_a_name_unbound_in_a_function_nothing_maps_is_sc202_with_a_note_at_the_map() -> None:
    # `main` is called by nothing here and passed to nothing: the jit and the vmap built and
    # called in it bind what they bind, and 'i' (a name the module's other vmap binds) is not
    # among them. `mapped` is passed to a vmap that binds 'i': its own vmap's body may use it.
    source = """\
        def total(v):
            return lax.psum(v, 'i')
        def main():
            return jax.jit(total)(x), jax.vmap(total, axis_name='j')(x)
        def mapped(v):
            return jax.vmap(total, axis_name='j')(v)
        ok = jax.vmap(mapped, axis_name='i')(jnp.ones((2, 8, 4)))
        """
    assert codes(source) == [(2, "SC202")]
    result = analyze_source("t.py", PRELUDE + textwrap.dedent(source))
    notes = [note.message for d in result.diagnostics for note in d.notes]
    assert any("jax.jit binds no axis name" in n for n in notes)
    assert any("`main` is called under no map" in n for n in notes)


def test_a_function_whose_calls_are_not_all_in_view_is_not_reported() -> None:
    assert codes("""\
        def total(v):
            return lax.psum(v, 'i')
        def step(v):
            return jax.jit(total)(v)
        def driver(v):
            return step(v)
        table = {'step': step}
        mapped = jax.vmap(lambda v: driver(v), axis_name='i')(x)
        """) == []


def test_no_cascade_from_an_unbound_name() -> None:
    # JAX raises at the collective; what its value varies over after it is unknown: no SC207.
    assert codes("""\
        from jax.sharding import Mesh, PartitionSpec as P
        import numpy as np
        mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('x', 'y'))
        a = jax.shard_map(lambda v: lax.ppermute(v, 'q', [(0, 1)]), mesh=mesh, in_specs=P('x'), out_specs=P())(x)
        b = jax.shard_map(lambda v: lax.psum(v, ('y', 'q')), mesh=mesh, in_specs=P('x'), out_specs=P())(x)
        """) == [(4, "SC202"), (5, "SC202")]


@pytest.mark.parametrize("main_first", [True, False])
def test_unmapped_is_worked_out_when_an_analysis_first_asks(main_first: bool) -> None:
    # Functions analysed before the question arises (`helper`, `scale`) keep their results;
    # the one that asks (`main`, deep in a call of a jit) is analysed again with the answer.
    main = "def main():\n    return jax.jit(total)(x)\n"
    rest = ("def helper(v):\n    return v * 2\n"
            "def total(v):\n    return lax.psum(helper(v), 'i')\n"
            "def scale(v):\n    return helper(v) + jnp.ones((3,))\n")
    source = main + rest if main_first else rest + main
    result = analyze_source("t.py", PRELUDE + source)
    psum_line = PRELUDE.count("\n") + source.splitlines().index("    return lax.psum(helper(v), 'i')") + 1
    assert [(d.span.line, d.code) for d in result.diagnostics] == [(psum_line, "SC202")]
    assert any("`main` is called under no map" in note.message for d in result.diagnostics for note in d.notes)


def test_a_jitted_function_is_mapped_differentiated_and_scanned_as_the_function() -> None:
    # jit changes how a function runs, never its shapes: wrapped in a transform it is followed.
    found, types = run("""\
        mapped = jax.vmap(jax.jit(g))(x, w)
        kept = jax.vmap(jax.jit(f))(x)
        slope = jax.grad(jax.jit(lambda a: jnp.sum(a * jnp.ones(3))))(jnp.ones(4))
        carry, ys = lax.scan(jax.jit(lambda c, e: (c + e, e)), jnp.zeros(4), jnp.ones((5, 3)))
        """)
    assert [(line, code) for line, code, _ in found] == [(1, "SC102"), (3, "SC101"), (4, "SC101")], found
    assert shape(types["kept"]) == (8, 4)
