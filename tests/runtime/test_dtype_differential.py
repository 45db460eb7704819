"""The analyzer's dtypes are JAX's: clean fixtures run on JAX (x64 off, its default) give every
module-level value the dtype the analyzer inferred for it, wherever it inferred one."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from shapecheck.algebra.promotion import as_shown
from shapecheck.api import analyze_source
from shapecheck.dtypes import KINDS, NUMPY_NAMES
from tests.runtime.fixture_runs import FIXTURES, assignments, markers
from tests.runtime.test_differential import execute

jax = pytest.importorskip("jax")

CLEAN = sorted(p for p in FIXTURES.glob("*.py")
               if "import jax" in p.read_text() and not markers(p.read_text()))


def _compared(path: Path) -> list[tuple[str, str, str]]:
    """(name, inferred dtype, run-time dtype) for each module-level value with a known dtype."""
    text = path.read_text()
    result = analyze_source(str(path), text, keep_types=True)
    types = {t.span: t.type for t in result.types}
    try:
        values = execute(path)
    except Exception:  # a fixture that needs what this process lacks (jaxtyping, 8 devices): not compared
        return []
    found = []
    for name, span in assignments(ast.parse(text)):
        inferred = types.get(span)
        value = values.get(name)
        if inferred is None or inferred.dtype not in KINDS or not hasattr(value, "dtype"):
            continue
        found.append((name, str(as_shown(inferred).dtype), NUMPY_NAMES.get(np.dtype(value.dtype).name, "?")))
    return found


def test_the_dtype_fixtures_are_compared() -> None:
    compared = _compared(FIXTURES / "dtype_promotion_ok.py")
    assert len(compared) >= 15


@pytest.mark.parametrize("path", CLEAN, ids=[p.stem for p in CLEAN])
def test_inferred_dtypes_are_the_ones_jax_gives(path: Path) -> None:
    wrong = [(name, inferred, actual) for name, inferred, actual in _compared(path) if inferred != actual]
    assert not wrong, f"analyzer vs JAX: {wrong}"
