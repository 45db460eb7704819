"""lax.scan, lax.map, fori_loop, while_loop, cond and switch as the analyzer checks them (DESIGN.md
section 3c). JAX decides: every program below runs on JAX 0.10 (x64 off) and raises exactly when
the checker reports it, and a property test draws carries and bodies at random and demands the
same."""

from __future__ import annotations

import textwrap
import traceback
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.api import analyze_source, check_files

PRELUDE = """\
import jax
import jax.numpy as jnp
from jax import lax
xs = jnp.ones((5, 3), jnp.float32)
p = jnp.bool_(True)
"""
FIRST = PRELUDE.count("\n") + 1  # the line of the first statement after the prelude


def run(source: str) -> list[tuple[int, str, str]]:
    """Diagnostics of `source` after the prelude: (line counted from 1 after it, code, message)."""
    result = analyze_source("t.py", PRELUDE + textwrap.dedent(source))
    assert result.error is None, result.error
    return [(d.span.line - FIRST + 1, d.code, d.message) for d in result.diagnostics]


def codes(source: str) -> list[tuple[int, str]]:
    return [(line, code) for line, code, _ in run(source)]


def jax_raises(source: str) -> type[BaseException] | None:
    """The exception JAX raises running `source` after the prelude, or None when it runs."""
    namespace: dict[str, Any] = {}
    try:
        exec(compile(PRELUDE + textwrap.dedent(source), "t.py", "exec"), namespace)
    except Exception as error:  # the program's own failure is the oracle's answer
        traceback.clear_frames(error.__traceback__)
        return type(error)
    return None


# (id, program, the checker's findings as (line, code), what JAX raises). Every valid program is
# one JAX runs; every reported one, one JAX refuses with that exception.
CASES: list[tuple[str, str, list[tuple[int, str]], type[BaseException] | None]] = [
    # ---- scan: valid
    ("scan_unchanged", "c, ys = lax.scan(lambda c, x: (c + x, x * 2), jnp.zeros(3), xs)", [], None),
    ("scan_python_int_counter", "c, ys = lax.scan(lambda c, x: (c + 1, x), 0, xs)", [], None),
    ("scan_python_float_init", "c, ys = lax.scan(lambda c, x: (c + x.sum(), None), 0.0, xs)", [], None),
    ("scan_weak_int_init_promoted", "c, ys = lax.scan(lambda c, x: (c + x.sum(), None), 0, xs)", [], None),
    ("scan_weak_int_plus_half", "c, ys = lax.scan(lambda c, x: (c + 0.5, x), 0, xs)", [], None),
    ("scan_f32_returns_python_float", "c, ys = lax.scan(lambda c, x: (1.0, x), jnp.float32(0), xs)", [], None),
    ("scan_xs_none_length", "c, ys = lax.scan(lambda c, _: (c * 2, c), jnp.ones(2), None, length=4)", [], None),
    ("scan_length_agrees", "c, ys = lax.scan(lambda c, x: (c, x), 0.0, xs, length=5)", [], None),
    ("scan_ys_none", "c, ys = lax.scan(lambda c, x: (c, None), 0.0, xs)", [], None),
    ("scan_pair_as_list", "c, ys = lax.scan(lambda c, x: [c, x], 0.0, xs)", [], None),
    ("scan_tuple_carry", """\
        def step(carry, x):
            h, n = carry
            return (h + x, n + 1), h
        c, ys = lax.scan(step, (jnp.zeros(3), 0), xs, reverse=True, unroll=2)
        """, [], None),
    ("scan_dict_carry_reordered", """\
        def step(c, x):
            return {'b': c['b'] + 1, 'a': c['a'] * x}, None
        c, _ = lax.scan(step, {'a': jnp.ones(3), 'b': jnp.int32(0)}, xs)
        """, [], None),
    ("scan_none_carry", "c, ys = lax.scan(lambda c, x: (None, x), None, xs)", [], None),
    ("scan_xs_tuple", "c, ys = lax.scan(lambda c, x: (c + x[0].sum() + x[1], None), 0.0, (xs, jnp.arange(5.0)))",
     [], None),
    ("scan_length_zero", "c, ys = lax.scan(lambda c, x: (c, x), 0.0, jnp.ones((0, 3)))", [], None),
    ("scan_def_with_early_return", """\
        def step(c, x):
            if x.ndim == 2:
                return c, x
            return c * 2, x
        c, ys = lax.scan(step, jnp.zeros(3), xs)
        """, [], None),
    # ---- scan: the carry changes
    ("scan_carry_grows", """\
        def step(c, x):
            return jnp.concatenate([c, x]), x
        c, ys = lax.scan(step, jnp.zeros(3), xs)
        """, [(2, "SC103")], TypeError),
    ("scan_carry_dtype", "c, ys = lax.scan(lambda c, x: (c.astype(jnp.float16), x), jnp.zeros(3), xs)",
     [(1, "SC103")], TypeError),
    ("scan_i32_plus_half", "c, ys = lax.scan(lambda c, x: (c + 0.5, x), jnp.int32(0), xs)", [(1, "SC103")], TypeError),
    ("scan_bool_init_to_int", "c, ys = lax.scan(lambda c, x: (c + 1, x), False, xs)", [(1, "SC103")], TypeError),
    ("scan_weak_int_init_to_vector", "c, ys = lax.scan(lambda c, x: (c + x, x), 0, xs)", [(1, "SC103")], TypeError),
    ("scan_f16_returns_python_float", "c, ys = lax.scan(lambda c, x: (1.0, x), jnp.float16(0), xs)",
     [(1, "SC103")], TypeError),
    ("scan_f32_returns_python_int", "c, ys = lax.scan(lambda c, x: (1, x), jnp.float32(0), xs)",
     [(1, "SC103")], TypeError),
    ("scan_tuple_to_list", "c, ys = lax.scan(lambda c, x: ([c[0], c[1]], x), (0.0, 0.0), xs)",
     [(1, "SC103")], TypeError),
    ("scan_tuple_grows", "c, ys = lax.scan(lambda c, x: ((c[0], c[1], c[1]), x), (0.0, 0.0), xs)",
     [(1, "SC103")], TypeError),
    ("scan_dict_keys", "c, ys = lax.scan(lambda c, x: ({'a': c['a'], 'b': c['a']}, x), {'a': 0.0}, xs)",
     [(1, "SC103")], TypeError),
    ("scan_none_to_number", "c, ys = lax.scan(lambda c, x: (0.0, x), None, xs)", [(1, "SC103")], TypeError),
    ("scan_member_of_tuple", """\
        def step(carry, x):
            h, n = carry
            return (h, n + x), h
        c, ys = lax.scan(step, (jnp.zeros(3), 0), xs)
        """, [(3, "SC103")], TypeError),
    ("scan_namedtuple_class_changes", """\
        import collections
        A = collections.namedtuple('A', ['h', 'c'])
        B = collections.namedtuple('B', 'h c')
        c, ys = lax.scan(lambda c, x: (B(c.h + x, c.c), x), A(jnp.zeros(3), jnp.zeros(3)), xs)
        """, [(4, "SC103")], TypeError),
    ("scan_namedtuple_kept", """\
        from typing import NamedTuple
        A = NamedTuple('A', [('h', jax.Array), ('c', jax.Array)])
        c, ys = lax.scan(lambda c, x: (A(c.h + x, c.c), x), A(jnp.zeros(3), jnp.zeros(3)), xs)
        """, [], None),
    ("scan_body_returns_three", "c, ys = lax.scan(lambda c, x: (c, x, x), 0.0, xs)", [(1, "SC103")], TypeError),
    ("scan_body_returns_carry_only", "c = lax.scan(lambda c, x: c, 0.0, xs)", [(1, "SC103")], TypeError),
    # ---- scan: xs and length
    ("scan_xs_leading_sizes", "c, ys = lax.scan(lambda c, x: (c, x), 0.0, (jnp.ones(3), jnp.ones(4)))",
     [(1, "SC102")], ValueError),
    ("scan_length_contradicts", "c, ys = lax.scan(lambda c, x: (c, x), 0.0, jnp.ones(3), length=4)",
     [(1, "SC102")], ValueError),
    ("scan_scalar_xs", "c, ys = lax.scan(lambda c, x: (c, x), 0.0, jnp.float32(1))", [(1, "SC106")], IndexError),
    # ---- lax.map
    ("map_rows", "ys = lax.map(lambda row: row.sum(), xs)", [], None),
    ("map_tuple", "ys = lax.map(lambda t: t[0] * t[1], (xs, xs))", [], None),
    # ---- fori_loop
    ("fori_python_int", "r = lax.fori_loop(0, 10, lambda i, c: c + i, 0)", [], None),
    ("fori_f32_plus_index", "r = lax.fori_loop(0, 10, lambda i, c: c + i, jnp.float32(0))", [], None),
    ("fori_tuple_carry", "r = lax.fori_loop(0, 3, lambda i, c: (c[0] * 2, c[1] + i), (jnp.ones(3), 0))", [], None),
    ("fori_carry_stacked", "r = lax.fori_loop(0, 10, lambda i, c: jnp.stack([c, c]), jnp.float32(0))",
     [(1, "SC103")], TypeError),
    ("fori_int_carry_plus_half", "r = lax.fori_loop(0, 10, lambda i, c: c + 0.5, jnp.int32(0))",
     [(1, "SC103")], TypeError),
    ("fori_def_body", """\
        def body(i, val):
            return val @ jnp.ones((3, 4))
        r = lax.fori_loop(0, 3, body, jnp.ones(3))
        """, [(2, "SC103")], TypeError),
    # ---- while_loop
    ("while_tuple", "r = lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2), (0, 1.0))", [], None),
    ("while_carry_stacked", "r = lax.while_loop(lambda c: c < 10, lambda c: jnp.stack([c, c]), 0.0)",
     [(1, "SC103")], TypeError),
    ("while_cond_vector", "r = lax.while_loop(lambda c: c < 10, lambda c: c + 1, jnp.zeros(3))",
     [(1, "SC103")], TypeError),
    ("while_cond_int", "r = lax.while_loop(lambda c: 1, lambda c: c + 1, 0.0)", [(1, "SC103")], TypeError),
    ("while_cond_float", "r = lax.while_loop(lambda c: c, lambda c: c + 1, jnp.float32(0))",
     [(1, "SC103")], TypeError),
    ("while_cond_python_bool", "r = lax.while_loop(lambda c: False, lambda c: c + 1, 0.0)", [], None),
    # ---- cond
    ("cond_same", "r = lax.cond(p, lambda x: x, lambda x: x * 2, xs)", [], None),
    ("cond_identical_no_operands", "r = lax.cond(p, lambda: 1.0, lambda: 2.0)", [], None),
    ("cond_weak_float_and_f32", "r = lax.cond(p, lambda: 1.0, lambda: jnp.float32(2))", [], None),
    ("cond_pred_python_bool", "r = lax.cond(True, lambda: 1.0, lambda: 2.0)", [], None),
    ("cond_pred_int", "r = lax.cond(3, lambda: 1.0, lambda: 2.0)", [], None),
    ("cond_pred_float", "r = lax.cond(jnp.float32(1), lambda: 1.0, lambda: 2.0)", [], None),
    ("cond_operand_keyword", "r = lax.cond(p, lambda x: x, lambda x: -x, operand=xs)", [], None),
    ("cond_two_operands", "r = lax.cond(p, lambda a, b: a + b, lambda a, b: a - b, 1.0, 2.0)", [], None),
    ("cond_deprecated_form", "r = lax.cond(p, 1.0, lambda a: a, 2.0, lambda a: a)", [], None),
    ("cond_shape", "r = lax.cond(p, lambda x: x, lambda x: x[0], xs)", [(1, "SC103")], TypeError),
    ("cond_dtype", "r = lax.cond(p, lambda x: x, lambda x: x.astype(jnp.float16), xs)", [(1, "SC103")], TypeError),
    ("cond_weak_float_and_f16", "r = lax.cond(p, lambda: 1.0, lambda: jnp.float16(2))", [(1, "SC103")], TypeError),
    ("cond_weak_int_and_f32", "r = lax.cond(p, lambda: 1, lambda: jnp.float32(2))", [(1, "SC103")], TypeError),
    ("cond_weak_int_and_weak_float", "r = lax.cond(p, lambda: 1, lambda: 2.0)", [(1, "SC103")], TypeError),
    ("cond_structure", "r = lax.cond(p, lambda: (1.0, 2.0), lambda: [1.0, 2.0])", [(1, "SC103")], TypeError),
    ("cond_python_true_still_traces_both", "r = lax.cond(True, lambda: 1.0, lambda: jnp.ones(3))",
     [(1, "SC103")], TypeError),
    ("cond_pred_vector", "r = lax.cond(jnp.array([True, False]), lambda: 1.0, lambda: 2.0)",
     [(1, "SC103")], TypeError),
    ("cond_pred_size_one", "r = lax.cond(jnp.array([True]), lambda: 1.0, lambda: 2.0)", [(1, "SC103")], TypeError),
    # ---- switch
    ("switch_same", "r = lax.switch(1, [lambda x: x, lambda x: x + 1, lambda x: x * 2], xs)", [], None),
    ("switch_one_branch", "r = lax.switch(1, [lambda x: x[0]], xs)", [], None),
    ("switch_differ", "r = lax.switch(1, [lambda x: x, lambda x: x.sum(), lambda x: x * 2], xs)",
     [(1, "SC103")], TypeError),
    ("switch_tuple_of_branches", "r = lax.switch(0, (lambda x: x, lambda x: x.T), xs)", [(1, "SC103")], TypeError),
    ("switch_index_float", "r = lax.switch(1.0, [lambda x: x, lambda x: x], xs)", [(1, "SC103")], TypeError),
    ("switch_index_vector", "r = lax.switch(jnp.array([1]), [lambda x: x, lambda x: x], xs)",
     [(1, "SC103")], TypeError),
]


@pytest.mark.parametrize(("source", "expected"), [(source, expected) for _, source, expected, _ in CASES],
                         ids=[case[0] for case in CASES])
def test_the_checker_reports_what_jax_refuses(source: str, expected: list[tuple[int, str]]) -> None:
    assert codes(source) == expected


@pytest.mark.parametrize(("source", "raised"), [(source, raised) for _, source, _, raised in CASES],
                         ids=[case[0] for case in CASES])
def test_jax_agrees(source: str, raised: type[BaseException] | None) -> None:
    pytest.importorskip("jax")
    assert jax_raises(source) is raised


# ---------------------------------------------------------------- random carries and bodies

_DTYPES = ("float32", "float16", "int32", "bool_")
_SHAPES = ((), (3,), (2, 3))
# What a body may do to one carry leaf `v`: keep it, compute with it, change its shape or dtype.
_CHANGES = (
    "{v}", "{v}", "{v} * 2", "{v} + 1", "{v} + 0.5", "jnp.asarray({v}).astype(jnp.{dtype})",
    "jnp.stack([{v}, {v}])", "jnp.sum({v})", "jnp.reshape({v}, (-1,))", "jnp.expand_dims({v}, 0)",
    "1.0", "1", "{v} + jnp.zeros({shape}, jnp.{dtype})", "jnp.where({v} > 0, {v}, 0)", "jnp.transpose({v})",
)
# A scan's body may also compute with its slice `x` of `xs` (f32[(2,)]).
_SCAN_CHANGES = ("{v} + x.sum()", "x", "{v} + x[0]", "x.sum() > 0")


@st.composite
def _leaf(draw: st.DrawFn) -> str:
    """An initial carry leaf: an array of a drawn shape and dtype, or a Python number."""
    if draw(st.booleans()):
        return draw(st.sampled_from(("0", "0.0", "False", "2")))
    return f"jnp.ones({draw(st.sampled_from(_SHAPES))}, jnp.{draw(st.sampled_from(_DTYPES))})"


@st.composite
def _program(draw: st.DrawFn) -> str:
    """A scan, fori_loop, while_loop, cond or switch whose body (a branch) changes its carry
    (its operand) or not, at random."""
    api = draw(st.sampled_from(("scan", "fori_loop", "while_loop", "cond", "switch")))
    container = draw(st.sampled_from(("leaf", "tuple", "list", "dict")))
    count = 1 if container == "leaf" else draw(st.integers(1, 2))
    inits = [draw(_leaf()) for _ in range(count)]
    keys = [repr(k) for k in ("a", "b")[:count]] if container == "dict" else [str(i) for i in range(count)]
    reads = ["c"] if container == "leaf" else [f"c[{key}]" for key in keys]
    changes = _CHANGES + _SCAN_CHANGES if api == "scan" else _CHANGES
    changed = [draw(st.sampled_from(changes)).format(v=read, dtype=draw(st.sampled_from(_DTYPES)),
                                                      shape=draw(st.sampled_from(_SHAPES))) for read in reads]
    # Now and then the structure itself changes: a tuple made a list, a member dropped.
    restructure = draw(st.sampled_from(("same",) * 6 + ("other_kind", "drop")))
    keys_out = keys
    if restructure == "drop" and count > 1:
        changed, keys_out = changed[:1], keys[:1]
    kind_out = {"tuple": "list", "list": "tuple"}.get(container, container) if restructure == "other_kind" \
        else container

    def build(kind: str, items: list[str], names: list[str]) -> str:
        if kind == "leaf":
            return items[0]
        if kind == "dict":
            return "{" + ", ".join(f"{k}: {v}" for k, v in zip(names, items, strict=True)) + "}"
        inner = ", ".join(items) + ("," if kind == "tuple" and len(items) == 1 else "")
        return f"({inner})" if kind == "tuple" else f"[{inner}]"

    init = build(container, inits, keys)
    out = build(kind_out, changed, keys_out)
    if api == "scan":
        return f"r = lax.scan(lambda c, x: ({out}, x), {init}, jnp.ones((4, 2)))"
    if api == "fori_loop":
        return f"r = lax.fori_loop(0, 3, lambda i, c: {out}, {init})"
    if api == "while_loop":
        return f"r = lax.while_loop(lambda c: False, lambda c: {out}, {init})"
    if api == "switch":
        return f"r = lax.switch(1, [lambda c: c, lambda c: c, lambda c: {out}], {init})"
    return f"r = lax.cond(p, lambda c: c, lambda c: {out}, {init})"


def _traced_raises(statement: str) -> type[BaseException] | None:
    """What JAX raises tracing `statement` (eval_shape: the checks are at trace time, and nothing
    is compiled)."""
    import jax  # the oracle only: the checker never imports it

    namespace: dict[str, Any] = {}
    exec(compile(PRELUDE, "t.py", "exec"), namespace)
    body = f"def program():\n    {statement}\n    return r\n"
    exec(compile(body, "t.py", "exec"), namespace)
    try:
        jax.eval_shape(namespace["program"])
    except Exception as error:  # the program's own failure is the oracle's answer
        traceback.clear_frames(error.__traceback__)
        return type(error)
    return None


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_program())
def test_random_carries_are_reported_exactly_when_jax_refuses_them(statement: str) -> None:
    pytest.importorskip("jax")
    found = codes(statement)
    raised = _traced_raises(statement)
    assert bool(found) == (raised is not None), (statement, found, raised)


# ---------------------------------------------------------------- result types, places, names

def types_of(source: str) -> dict[str, str]:
    """The inferred type of each `name = ...` line's value (hover's), by name."""
    text = PRELUDE + textwrap.dedent(source)
    result = analyze_source("t.py", text, keep_types=True)
    assert result.error is None, result.error
    lines = text.splitlines()
    found: dict[str, str] = {}
    for typed in result.types:
        line = lines[typed.span.line - 1]
        name, sep, _ = line.partition(" = ")
        if sep and name.isidentifier() and typed.span.column == len(name) + 3 and typed.span.end_column == len(line):
            found[name] = str(typed.type)
    return found


def test_hover_shows_the_stacked_ys_and_the_carry_after_the_loop() -> None:
    found = types_of("""\
        c, ys = lax.scan(lambda c, x: (c + x.sum(), (x, x.sum())), 0, xs)
        pairs = ys[0]
        sums = ys[1]
        final = c
        powers = lax.scan(lambda c, _: (c * 2, c), jnp.ones(2), None, length=4)[1]
        counted = lax.fori_loop(0, 3, lambda i, n: n + i, 0)
        chosen = lax.cond(p, lambda v: v[0], lambda v: v[1], xs)
        mapped = lax.map(lambda row: row * 2, xs)
        """)
    assert found["pairs"] == "f32[(5, 3)]" and found["sums"] == "f32[(5,)]"
    assert found["final"] == "f32[()]"  # 0 promoted to the f32 the body returns
    assert found["powers"] == "f32[(4, 2)]"
    assert found["counted"] == "i32[()]"
    assert found["chosen"] == "f32[(3,)]"
    assert found["mapped"] == "f32[(5, 3)]"


def test_a_carry_the_body_makes_batched_stays_batched_under_vmap() -> None:
    source = """\
        def per_example(v):
            return lax.scan(lambda c, x: (c + v, c * x), jnp.zeros(3), xs)
        final, ys = jax.vmap(per_example)(jnp.ones((4, 3)))
        batched = ys
        """
    assert types_of(source)["batched"] == "f32[(4, 5, 3)]"
    assert codes(source) == []
    pytest.importorskip("jax")
    namespace: dict[str, Any] = {}
    exec(compile(PRELUDE + textwrap.dedent(source), "t.py", "exec"), namespace)
    assert namespace["batched"].shape == (4, 5, 3)


def test_the_finding_is_at_the_last_return_and_names_the_carry_parameter() -> None:
    found = run("""\
        import functools
        def step(w, state, x):
            if x.ndim == 0:
                return state, x
            return (state[0] @ w, state[1]), x
        final, _ = lax.scan(functools.partial(step, jnp.ones((3, 4))), (jnp.zeros(3), 0), xs)
        """)
    assert [(line, code) for line, code, _ in found] == [(5, "SC103")]
    assert "`state[0]`" in found[0][2] and "f32[(3,)]" in found[0][2] and "f32[(4,)]" in found[0][2]


def test_a_function_analysed_on_its_own_reports_only_what_is_certain() -> None:
    # Its arguments are unknown: nothing is reported for them; a carry it builds itself is known.
    assert codes("""\
        def run_unknown(init, seq):
            return lax.scan(lambda c, x: (c + x, x), init, seq)
        def cond_unknown(flag, a, b):
            return lax.cond(flag, lambda: a, lambda: b)
        def loop_unknown(n, v):
            return lax.fori_loop(0, n, lambda i, c: c * v, v)
        """) == []
    assert codes("""\
        def run_known_carry(seq):
            return lax.scan(lambda c, x: (jnp.stack([c, c]), x), jnp.zeros(3), seq)
        """) == [(2, "SC103")]


def test_a_body_from_another_module_is_reported_at_the_call(tmp_path: Path) -> None:
    (tmp_path / "cells.py").write_text(
        "import jax.numpy as jnp\n\n\ndef grow(h, x):\n    return jnp.concatenate([h, x]), x\n")
    (tmp_path / "main.py").write_text(
        "import jax.numpy as jnp\nfrom jax import lax\nfrom cells import grow\n\n"
        "h, ys = lax.scan(grow, jnp.zeros(3), jnp.ones((5, 3)))\n")
    report = check_files([str(tmp_path / "cells.py"), str(tmp_path / "main.py")], jobs=1)
    assert not report.errors
    assert [(Path(d.path).name, d.span.line, d.code) for d in report.diagnostics] == [("main.py", 5, "SC103")]
