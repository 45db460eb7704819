"""The analyzer's dtypes are JAX's: clean fixtures run on JAX (x64 off, its default) give every
module-level value the dtype the analyzer inferred for it, wherever it inferred one.

The xmap fixtures and the current-JAX ones are run, and their dtypes compared, by
test_differential and test_current_jax (one run of each fixture holds it to both shapes and
dtypes); this module runs every other clean fixture that imports jax."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from shapecheck.api import analyze_source
from tests.runtime import test_current_jax, test_differential
from tests.runtime.fixture_runs import FIXTURES, dtypes_compared, markers
from tests.runtime.test_differential import execute

jax = pytest.importorskip("jax")

RUN_ELSEWHERE = frozenset(test_differential.CLEAN) | frozenset(test_current_jax.CLEAN)
CLEAN = sorted(p for p in FIXTURES.glob("*.py")
               if "import jax" in p.read_text() and not markers(p.read_text()) and p not in RUN_ELSEWHERE)


def _compared(path: Path) -> list[tuple[str, str, str]]:
    """(name, inferred dtype, run-time dtype) for each module-level value with a known dtype."""
    text = path.read_text()
    result = analyze_source(str(path), text, keep_types=True)
    types = {t.span: t.type for t in result.types}
    try:
        values = execute(path)
    except Exception:  # a fixture that needs what this process lacks (jaxtyping, 8 devices): not compared
        return []
    return dtypes_compared(types, values, ast.parse(text))


def test_the_dtype_fixtures_are_compared() -> None:
    compared = _compared(FIXTURES / "dtype_promotion_ok.py")
    assert len(compared) >= 15


def test_every_clean_fixture_is_run_by_one_differential() -> None:
    assert len(CLEAN) >= 30 and len(RUN_ELSEWHERE) >= 30
    assert not RUN_ELSEWHERE & set(CLEAN)


@pytest.mark.parametrize("path", CLEAN, ids=[p.stem for p in CLEAN])
def test_inferred_dtypes_are_the_ones_jax_gives(path: Path) -> None:
    wrong = [(name, inferred, actual) for name, inferred, actual in _compared(path) if inferred != actual]
    assert not wrong, f"analyzer vs JAX: {wrong}"
