"""The two halves agree: fixtures run on the runtime give the shapes and dtypes the analyzer
inferred, and fixtures marked with size or co-occurrence errors raise at run time.

A fixture can run when it imports jax and calls xmap at module level; it runs as `__main__`
with the runtime standing in for `jax.experimental.maps`, exactly as `shapecheck run` does.
"""

from __future__ import annotations

import ast
import runpy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shapecheck.api import analyze_source
from shapecheck.runtime import NamedAxisError
from shapecheck.runtime.install import stand_ins
from tests.runtime.fixture_runs import FIXTURES, agrees, assignments, dtype_mismatches, markers

RUNTIME_ERRORS = {"SC102", "SC201", "SC205"}


def calls_xmap_at_module_level(tree: ast.Module) -> bool:
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name == "xmap":
                    return True
    return False


def runnable(path: Path) -> bool:
    text = path.read_text()
    if "import jax" not in text and "from jax" not in text:
        return False
    try:
        return calls_xmap_at_module_level(ast.parse(text))
    except SyntaxError:
        return False


RUNNABLE = sorted(p for p in FIXTURES.glob("*.py") if runnable(p))
CLEAN = [p for p in RUNNABLE if not markers(p.read_text())]
FAILING = [p for p in RUNNABLE if markers(p.read_text()) & RUNTIME_ERRORS]


def execute(path: Path) -> dict[str, Any]:
    with stand_ins(), warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # `with Mesh(...)` is set_mesh there
        return runpy.run_path(str(path), run_name="__main__")


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
def test_clean_fixture_runs_with_the_inferred_shapes_and_dtypes(path: Path) -> None:
    text = path.read_text()
    result = analyze_source(str(path), text, keep_types=True)
    assert result.error is None, result.error
    types = {t.span: t.type for t in result.types}
    values = execute(path)
    tree = ast.parse(text)
    for name, span in assignments(tree):
        inferred = types.get(span)
        value = values.get(name)
        if inferred is None or not hasattr(value, "shape"):
            continue
        assert agrees(inferred, value), f"{name}: analyzer says {inferred}, runtime gives {np.shape(value)}"
    wrong = dtype_mismatches(types, values, tree)
    assert not wrong, f"dtypes, analyzer vs runtime: {wrong}"


@pytest.mark.parametrize("path", FAILING, ids=lambda p: p.name)
def test_fixture_with_a_size_or_cooccurrence_error_raises(path: Path) -> None:
    expected = markers(path.read_text())
    with pytest.raises(Exception) as error:
        execute(path)
    if isinstance(error.value, NamedAxisError):
        assert error.value.code in expected, (error.value.code, expected)


def test_there_is_something_to_compare() -> None:
    assert len(CLEAN) >= 20 and len(FAILING) >= 10
