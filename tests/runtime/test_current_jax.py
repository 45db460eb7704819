"""The checker against real JAX: every `fixtures/current_*.py` (vmap, pmap, shard_map,
shardings) runs on JAX itself, with its plain imports, on the 8 simulated CPU devices that
tests/conftest.py asks for.

- A clean fixture (no `# expect:` marker) runs, and the shape and dtype the analyzer inferred
  for each module-level assignment fit the value the run computed.
- A wrong fixture raises, and not before its first marked line: what the checker reports is
  what JAX refuses. For the vmap and pmap fixtures the error passes through a marked line, and
  every module-level array the clean ones compute has a fully known inferred shape equal to
  the run's.
"""

from __future__ import annotations

import ast
import runpy
import traceback
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shapecheck.api import analyze_source
from tests.runtime.fixture_runs import (
    FIXTURES,
    agrees,
    assignments,
    dtype_mismatches,
    fully_known,
    marked_lines,
    markers,
)

CURRENT = sorted(FIXTURES.glob("current_*.py"))
CLEAN = [p for p in CURRENT if not markers(p.read_text())]
WRONG = [p for p in CURRENT if markers(p.read_text())]
# The fixtures whose analysis is held to exact shapes and to the marked line raising.
EXACT = ("current_vmap_", "current_pmap_")
# A fixture that raises one of these is broken itself, whatever JAX thinks of its shapes.
FIXTURE_BUGS = (ImportError, SyntaxError, AttributeError)


def execute(path: Path) -> dict[str, Any]:
    return runpy.run_path(str(path), run_name="__main__")


def fixture_frames(error: BaseException, path: Path) -> list[traceback.FrameSummary]:
    """The traceback's frames in the fixture itself, outermost (the module's statement) first."""
    return [frame for frame in traceback.extract_tb(error.__traceback__)
            if Path(frame.filename).resolve() == path.resolve()]


def test_eight_devices() -> None:
    import jax

    assert jax.device_count() == 8, "tests/conftest.py sets XLA_FLAGS before jax is imported"


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
def test_clean_fixture_runs_with_the_inferred_shapes_and_dtypes(path: Path) -> None:
    text = path.read_text()
    result = analyze_source(str(path), text, keep_types=True)
    assert result.error is None, result.error
    types = {t.span: t.type for t in result.types}
    values = execute(path)
    exact = path.name.startswith(EXACT)
    tree = ast.parse(text)
    for name, span in assignments(tree):
        inferred = types.get(span)
        value: Any = values.get(name)
        if not hasattr(value, "shape"):
            continue
        if exact:
            assert inferred is not None and fully_known(inferred), f"{name}: analyzer says {inferred}"
            assert inferred.dims == tuple(np.shape(value)), \
                f"{name}: analyzer says {inferred}, JAX gives {np.shape(value)}"
        elif inferred is not None:
            assert agrees(inferred, value), f"{name}: analyzer says {inferred}, JAX gives {np.shape(value)}"
    wrong = dtype_mismatches(types, values, tree)
    assert not wrong, f"dtypes, analyzer vs JAX: {wrong}"


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.name)
def test_wrong_fixture_raises_where_marked(path: Path) -> None:
    lines = marked_lines(path.read_text())
    with pytest.raises(Exception) as caught:
        execute(path)
    error = caught.value
    assert not isinstance(error, FIXTURE_BUGS), f"{path.name} is broken: {error!r}"
    frames = fixture_frames(error, path)
    assert frames, f"{path.name}: {error!r} was not raised by the fixture's code"
    assert frames[0].lineno is not None and frames[0].lineno >= lines[0], (
        f"{path.name}: line {frames[0].lineno} raised {error!r} before the first marked line {lines[0]}")
    if path.name.startswith(EXACT):
        assert any(frame.lineno in lines for frame in frames), (
            f"{path.name}: {error!r} raised at lines {[f.lineno for f in frames]}, none marked {lines}")


def test_there_is_something_to_compare() -> None:
    own = [p for p in CURRENT if p.name.startswith(EXACT)]
    assert len([p for p in own if p in CLEAN]) >= 3
    assert len([p for p in own if p in WRONG]) >= 6
