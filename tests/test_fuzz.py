"""Fuzzing: no input makes the checker raise, hang, or exit with a code that lies.

Generated modules (hypothesmith), mutated fixtures, and random einsum specs, axis specs and
annotation strings placed where the analyzer reads them. `make test` runs a small, fixed
(derandomized) number of examples; `make fuzz` sets SHAPECHECK_FUZZ_EXAMPLES for a longer,
random run.
"""

from __future__ import annotations

import ast
import json
import os
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.api import analyze_source
from shapecheck.diagnostic import INCOMPLETE

_COUNT = os.environ.get("SHAPECHECK_FUZZ_EXAMPLES")
FUZZ = settings(
    max_examples=int(_COUNT or 60),
    deadline=None,
    derandomize=_COUNT is None,  # the normal suite is reproducible; `make fuzz` explores
    suppress_health_check=list(HealthCheck),
    database=None,
)
TIME_LIMIT_S = 20.0
FIXTURES = sorted((Path(__file__).parent.parent / "fixtures").glob("*.py"))
# Built when a test first draws from it: building hypothesmith's grammar strategy takes more than a
# second, which every pytest-xdist worker would otherwise pay at collection for each use.
MODULES = st.deferred(hypothesmith.from_grammar)


def assert_checked(source: str) -> None:
    """The analyzer returns, in bounded time, a result and no internal error."""
    started = time.monotonic()
    result = analyze_source("fuzzed.py", source, time_limit=TIME_LIMIT_S)
    assert result.error is None, result.error
    assert time.monotonic() - started < TIME_LIMIT_S + 15
    for diagnostic in result.diagnostics:
        assert diagnostic.span.line >= 1 and diagnostic.span.column >= 0


@FUZZ
@given(MODULES)
def test_generated_modules(source: str) -> None:
    # The jax import makes the analyzer look at the module, not only parse it.
    assert_checked("import jax\nimport jax.numpy as jnp\n" + source)


def _mutate(text: str, data: st.DataObject) -> str:
    for _ in range(data.draw(st.integers(1, 4))):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, min(len(text), start + 40)))
        action = data.draw(st.sampled_from(["delete", "insert", "duplicate", "truncate"]))
        if action == "delete":
            text = text[:start] + text[end:]
        elif action == "insert":
            text = text[:start] + data.draw(st.text("()[]{}:,.'\"\\ \n\t#=+*@-0123456789abijk{}_.", max_size=8)) + text[start:]
        elif action == "duplicate":
            text = text[:end] + text[start:end] + text[end:]
        else:
            text = text[:start]
    return text


@FUZZ
@given(st.sampled_from(FIXTURES), st.data())
def test_mutated_fixtures(fixture: Path, data: st.DataObject) -> None:
    assert_checked(_mutate(fixture.read_text(encoding="utf-8"), data))


SPEC_TEXT = st.text("abcijkn{},-> .'\"\\0123456789", max_size=24)
AXES = st.recursive(
    st.one_of(st.none(), st.integers(-3, 5), st.sampled_from(["'i'", "'j'", "...", "'k'", "x"]),
              SPEC_TEXT.map(repr)),
    lambda inner: st.one_of(st.lists(inner, max_size=4).map(lambda items: f"[{', '.join(map(str, items))}]"),
                            st.lists(inner, max_size=3).map(lambda items: f"({', '.join(map(str, items))},)"),
                            st.dictionaries(st.integers(-1, 3), inner, max_size=3).map(
                                lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}")),
    max_leaves=8,
)


@FUZZ
@given(spec=SPEC_TEXT, annotation=st.one_of(SPEC_TEXT, AXES.map(str)), in_axes=AXES.map(str),
       out_axes=AXES.map(str), dims=SPEC_TEXT)
def test_random_specs_and_annotations(spec: str, annotation: str, in_axes: str, out_axes: str,
                                      dims: str) -> None:
    source = (
        "import jax\nimport jax.numpy as jnp\nfrom jax.experimental.maps import xmap\n"
        "from jaxtyping import Array, Float\nfrom shapecheck import f32\n\n"
        f"def f(x: f32[{annotation}], y: Float[Array, {dims!r}]) -> f32[{annotation}]:\n"
        f"    return jnp.einsum({spec!r}, x, y)\n\n"
        "x = jnp.ones((2, 3, 4))\n"
        f"z = xmap(f, in_axes={in_axes}, out_axes={out_axes}, axis_sizes={{'k': 2}})(x, x)\n"
        f"v = jax.vmap(f, in_axes={in_axes})(x, x)\n"
    )
    assert_checked(source)


@settings(FUZZ, max_examples=max(FUZZ.max_examples // 4, 3))
@given(st.lists(st.one_of(MODULES, st.sampled_from(FIXTURES).map(
    lambda p: p.read_text(encoding="utf-8")), st.binary(max_size=64)), min_size=1, max_size=3),
    st.sampled_from(["text", "json", "github", "sarif"]))
def test_exit_codes_tell_the_truth(files: list[str | bytes], fmt: str) -> None:
    from shapecheck.cli import main

    with tempfile.TemporaryDirectory() as folder:
        for index, content in enumerate(files):
            path = Path(folder) / f"m{index}.py"
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(folder)
            code, codes = _run(main, fmt)
        assert code == (2 if codes & INCOMPLETE else 1 if codes else 0)


def _run(main: object, fmt: str) -> tuple[int, set[str]]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["check", "--jobs", "1", "--format", "json"])  # type: ignore[operator]
    codes = {item["code"] for item in json.loads(out.getvalue())}
    if fmt != "json":  # the same run in another format gives the same exit code
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main(["check", "--jobs", "1", "--format", fmt]) == code  # type: ignore[operator]
    return code, codes


def _depths(tree: ast.AST) -> Iterator[tuple[ast.AST, int]]:
    """Every node with its expression nesting level below its statement."""
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        depth = 0 if isinstance(node, ast.stmt) else depth + isinstance(node, ast.expr)
        yield node, depth
        stack.extend((child, depth) for child in ast.iter_child_nodes(node))


@FUZZ
@given(st.one_of(MODULES, st.sampled_from(FIXTURES).map(lambda p: p.read_text(encoding="utf-8"))),
       st.integers(1, 6))
def test_what_nests_too_deep_is_left_out_and_nothing_else(source: str, bound: int) -> None:
    # With a small bound every kind of expression gets cut somewhere: no expression is left
    # nested past it, each one left out is reported where it was, and everything else is the
    # tree CPython built, where CPython put it.
    from shapecheck import parsing

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # CPython's advice to the generated code
        try:
            original, tree = ast.parse(source), ast.parse(source)
        except (SyntaxError, ValueError):
            return
    before = ast.dump(original, include_attributes=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parsing, "MAX_DEPTH", bound)
        parsed = parsing.parse_module(source, tree)
    placeholders = [node for node, _ in _depths(parsed.module)
                    if isinstance(node, ast.Name) and node.id == parsing.ELIDED]
    assert len(placeholders) == len(parsed.elided)
    # Targets, slices and starred items stay (they only wrap what is below them); a
    # placeholder stands one level below the last expression kept.
    assert all(depth <= bound for node, depth in _depths(parsed.module)
               if isinstance(node, ast.expr) and parsing._replaceable(node) and node not in placeholders)
    if not placeholders:
        assert ast.dump(parsed.module, include_attributes=True) == before
