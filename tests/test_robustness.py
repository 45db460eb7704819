"""No input kills, hangs or silently drops a run: pathological files, CPython agreement, failures.

Every pathological file is generated here (never stored) and checked by the real command line
in a subprocess, so a segfault or a hang fails the test instead of the test run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from shapecheck.parsing import MAX_DEPTH

# A broadcast error (SC101) that every deep expression carries at its deepest point, so the test
# sees that the inside of the expression is analysed, not just that nothing crashed.
BAD = "(jnp.ones((3,)) + jnp.ones((4,)))"
HEAD = "import jax.numpy as jnp\nbefore = jnp.ones((2,)) + jnp.ones((5,))\n"
TAIL = "after = jnp.ones((6,)) + jnp.ones((7,))\n"

DEEP: dict[str, Callable[[int], str]] = {
    "sum": lambda n: " + ".join([BAD] + ["x"] * n),
    "and": lambda n: " and ".join([BAD] + ["x"] * n),
    "attribute": lambda n: BAD + ".real" * n,
    "subscript": lambda n: BAD + "[0]" * n,
    "call_chain": lambda n: BAD + "()" * n,
    "not": lambda n: "not " * n + BAD,
    "ternary": lambda n: " if c else ".join(["x"] * n + [BAD]),
    "parentheses": lambda n: "(" * n + BAD + ")" * n,
    "nested_calls": lambda n: "f(" * n + BAD + ")" * n,
    "list": lambda n: "[" + ", ".join(["x"] * n + [BAD]) + "]",
}

# (kind, size): the deepest of each kind that CPython 3.11 compiles at its default recursion
# limit (about 3,000 levels), or the sizes that crashed or hung before (10,000 `and` terms).
FULLY_ANALYSED = [
    ("sum", 2_900), ("and", 2_900), ("attribute", 2_900), ("subscript", 1_000),
    ("call_chain", 2_900), ("not", 2_900), ("ternary", 1_000), ("parentheses", 190),
    ("nested_calls", 190), ("list", 10_000),
]


def _elif(n: int) -> str:
    branches = "".join(f"elif a == {i}:\n    pass\n" for i in range(n))
    return f"if a:\n    pass\n{branches}else:\n    inner = {BAD}\n"


def _files() -> dict[str, str]:
    files = {f"{kind}_{n}.py": f"{HEAD}y = {DEEP[kind](n)}\n{TAIL}" for kind, n in FULLY_ANALYSED}
    files["elif_1000.py"] = HEAD + _elif(1_000) + TAIL
    files["lambda_1000.py"] = HEAD + "y = " + "lambda: " * 1_000 + "x\n" + TAIL
    # Valid for CPython; libcst's own parser refuses it (false SC004) or overflows its stack.
    files["strings_10000.py"] = HEAD + "s = " + " ".join(["'a'"] * 10_000) + "\n" + TAIL
    # Deeper than the analyser goes: SC005 where it starts, every other diagnostic kept.
    files["sum_10000.py"] = f"{HEAD}y = {DEEP['sum'](10_000)}\n{TAIL}"
    files["and_10000.py"] = f"{HEAD}y = {DEEP['and'](10_000)}\n{TAIL}"
    # Invalid for CPython (more than 200 nested parentheses): SC004 where CPython stops.
    files["parentheses_500.py"] = f"{HEAD}y = {DEEP['parentheses'](500)}\n{TAIL}"
    files["parentheses_10000.py"] = f"{HEAD}y = {DEEP['parentheses'](10_000)}\n{TAIL}"
    files["nested_calls_5000.py"] = f"{HEAD}y = {DEEP['nested_calls'](5_000)}\n{TAIL}"
    files["not_20000.py"] = f"{HEAD}y = {DEEP['not'](20_000)}\n{TAIL}"
    return files


def run_cli(*args: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None,
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shapecheck", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def deep_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, set[tuple[int, str]]]]:
    folder = tmp_path_factory.mktemp("deep")
    for name, text in _files().items():
        (folder / name).write_text(text)
    result = run_cli("check", "--format", "json", "--jobs", "2", ".", cwd=folder)
    assert result.returncode in (1, 2), result.stderr  # a signal would be negative
    found: dict[str, set[tuple[int, str]]] = {name: set() for name in _files()}
    for item in json.loads(result.stdout):
        found[Path(item["path"]).name].add((item["line"], item["code"]))
    assert "internal error" not in result.stderr, result.stderr
    return result.returncode, found


@pytest.mark.parametrize(("kind", "size"), FULLY_ANALYSED, ids=[f"{k}-{n}" for k, n in FULLY_ANALYSED])
def test_deep_valid_expression_is_analysed_fully(deep_run: tuple[int, dict[str, set[tuple[int, str]]]],
                                                 kind: str, size: int) -> None:
    found = deep_run[1][f"{kind}_{size}.py"]
    assert {(2, "SC101"), (3, "SC101"), (4, "SC101")} <= found  # before, inside, after
    assert not {code for _, code in found} & {"SC000", "SC004", "SC005"}


def test_long_elif_chain_and_lambdas(deep_run: tuple[int, dict[str, set[tuple[int, str]]]]) -> None:
    assert deep_run[1]["elif_1000.py"] == {(2, "SC101"), (2006, "SC101"), (2007, "SC101")}
    assert deep_run[1]["lambda_1000.py"] == {(2, "SC101"), (4, "SC101")}


def test_implicit_string_concatenation_agrees_with_cpython(
        deep_run: tuple[int, dict[str, set[tuple[int, str]]]]) -> None:
    assert deep_run[1]["strings_10000.py"] == {(2, "SC101"), (4, "SC101")}


def test_a_long_boolean_chain_is_one_level(deep_run: tuple[int, dict[str, set[tuple[int, str]]]]) -> None:
    # CPython's tree holds `a and a and ...` as one node of 10,000 operands: nothing nests, so
    # nothing is left out, and what is wrong inside it is found.
    assert deep_run[1]["and_10000.py"] == {(2, "SC101"), (3, "SC101"), (4, "SC101")}


@pytest.mark.parametrize("name", ["sum_10000.py"])
def test_past_the_depth_bound_is_sc005_and_the_rest_is_kept(
        deep_run: tuple[int, dict[str, set[tuple[int, str]]]], name: str) -> None:
    assert deep_run[1][name] == {(2, "SC101"), (3, "SC005"), (4, "SC101")}
    assert deep_run[0] == 2  # a file not fully checked: exit 2


@pytest.mark.parametrize("name", ["parentheses_500.py", "parentheses_10000.py", "nested_calls_5000.py",
                                  "not_20000.py"])
def test_what_cpython_rejects_is_sc004(deep_run: tuple[int, dict[str, set[tuple[int, str]]]],
                                       name: str) -> None:
    assert {code for _, code in deep_run[1][name]} == {"SC004"}


def test_cpython_decides_validity_for_the_target_version(tmp_path: Path) -> None:
    from shapecheck.api import analyze_source
    from shapecheck.config import Config

    source = "import jax\nmatch jax:\n    case _:\n        pass\n"
    assert analyze_source("m.py", source).diagnostics == ()
    old = analyze_source("m.py", source, Config(target_version=(3, 9)))
    assert [d.code for d in old.diagnostics] == ["SC004"]  # where CPython 3.9's grammar says


def test_depth_bound_is_near_cpythons_own() -> None:
    # CPython compiles about 3,000 nested levels at its default recursion limit; the bound
    # must not fall below what it compiles.
    assert MAX_DEPTH >= 2_900


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "ok.py").write_text("import jax.numpy as jnp\nx = jnp.ones((3,)) + jnp.ones((4,))\n")
    result = run_cli("check", "--format", "json", "pipe.py", "ok.py", cwd=tmp_path, timeout=60)
    assert result.returncode == 2
    found = {(Path(i["path"]).name, i["code"]) for i in json.loads(result.stdout)}
    assert found == {("pipe.py", "SC000"), ("ok.py", "SC101")}


def test_dead_worker_loses_only_its_file(tmp_path: Path) -> None:
    for i in range(12):
        (tmp_path / f"m{i:02}.py").write_text("import jax.numpy as jnp\nx = jnp.ones((3,)) + jnp.ones((4,))\n")
    (tmp_path / "crashme.py").write_text("import jax\n")
    result = run_cli("check", "--format", "json", "--jobs", "2", ".", cwd=tmp_path,
                     env={"SHAPECHECK_TEST_KILL_WORKER_ON": "crashme"})
    assert result.returncode == 2, result.stderr
    found = {(Path(i["path"]).name, i["code"]) for i in json.loads(result.stdout)}  # complete, valid
    assert found == {("crashme.py", "SC000")} | {(f"m{i:02}.py", "SC101") for i in range(12)}


def test_analysis_time_limit_keeps_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    import shapecheck.analyzer.interpreter as interpreter
    from shapecheck.api import analyze_source

    real = interpreter.Interpreter.run

    def slow(self: interpreter.Interpreter) -> None:
        real(self)
        while True:  # an analysis that never ends
            pass

    monkeypatch.setattr(interpreter.Interpreter, "run", slow)
    result = analyze_source("m.py", HEAD + TAIL, time_limit=1.0)
    assert result.error is None
    assert {(d.span.line, d.code) for d in result.diagnostics} == {(2, "SC101"), (3, "SC101"), (1, "SC005")}


def test_imported_modules_are_read_as_checked_files_are(tmp_path: Path) -> None:
    # A deep module the checked file imports is parsed in pieces too (libcst alone: minutes),
    # and a FIFO named on the command line is never opened for reading by the import resolver.
    (tmp_path / "deep.py").write_text(f"import jax\ny = {DEEP['subscript'](2_900)}\nAXES = ['i', ...]\n")
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "main.py").write_text("import deep\nimport pipe\n" + HEAD.replace("\n", "\n", 1) + TAIL)
    result = run_cli("check", "--format", "json", "main.py", "pipe.py", cwd=tmp_path, timeout=60)
    found = {(Path(i["path"]).name, i["line"], i["code"]) for i in json.loads(result.stdout)}
    assert found == {("main.py", 4, "SC101"), ("main.py", 5, "SC101"), ("pipe.py", 1, "SC000")}
    assert result.returncode == 2


@pytest.mark.parametrize("source", [
    # Multi-line expressions past the bound: what is left out changes no later position (same
    # line, same column), on its own line or after it.
    "import jax.numpy as jnp\ny = (x +\n     x + x + x +\n  x + x) + (\n x); z = jnp.ones((3,)) + jnp.ones((4,))\n",
    "import jax.numpy as jnp\ny = f(g(h(\n  k(x)[0][1]\n)))\nz = jnp.ones((3,)) + jnp.ones((4,))\n",
])
def test_what_is_left_out_keeps_every_position(monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    from shapecheck import parsing
    from shapecheck.api import analyze_source

    monkeypatch.setattr(parsing, "MAX_DEPTH", 4)  # `jnp.ones((3,)) + ...` nests 4 levels
    found = [(d.span.line, d.span.column, d.code) for d in analyze_source("m.py", source).diagnostics]
    last = source.splitlines()[-1]
    assert found[-1] == (source.count("\n"), last.index("jnp.ones"), "SC101")
    assert "SC005" in {code for _, _, code in found}


@pytest.mark.parametrize("source", [
    # Inside a def, a class and a loop: the statements around the deep one are narrower than
    # the whole block, which must still be walked into.
    "def f(x):\n    return x\n\ndef g(x):\n    y = f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(x))))))))))))))))\n    return y\n",
    "class C:\n    def m(self, x):\n        for i in range(3):\n            y = f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(x))))))))))))))))\n",
    # A decorator lies above its def's first line, outside the def's span (narrower than the
    # bound here).
    "@f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(1))))))))))))))))\ndef g():0\n",
    "@f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(1))))))))))))))))\nclass C:0\n",
])
def test_deep_expressions_in_blocks_and_decorators_are_left_out(monkeypatch: pytest.MonkeyPatch,
                                                                 source: str) -> None:
    import ast

    from shapecheck import parsing

    monkeypatch.setattr(parsing, "MAX_DEPTH", 12)
    parsed = parsing.parse_module(source, ast.parse(source))
    deep_line = next(number for number, line in enumerate(source.splitlines(), 1) if "f(f(f(" in line)
    assert parsed.elided and {span.line for span in parsed.elided} == {deep_line}


def test_a_failed_broadcast_passed_on_is_reported_once_and_crashes_nothing() -> None:
    # The value of a failed broadcast has a size in conflict: every consumer takes it as unknown
    # (vmap's size check once blamed an argument that had no conflict of its own: IndexError).
    from shapecheck.api import analyze_source

    source = textwrap.dedent("""\
        import jax, jax.numpy as jnp
        b = jnp.ones((8, 4)) + jnp.ones((8, 3))
        jax.vmap(lambda t: t)(b)
        jax.vmap(lambda t, u: t + u)(b, jnp.ones((8, 4)))
        jax.pmap(lambda t: t)(b)
        jax.lax.scan(lambda c, x: (c, x), 0.0, b)
        jax.vmap(jax.vmap(lambda t: t))(b)
        jax.lax.fori_loop(0, 3, lambda i, c: c, b)
        """)
    assert [(d.span.line, d.code) for d in analyze_source("t.py", source).diagnostics] == [(2, "SC101")]
