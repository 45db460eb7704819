"""Every fixture: the (line, code) pairs mypy+plugin reports equal the CLI engine's, exactly.

One mypy run covers all the fixtures that parse. A syntax error is a blocking error in mypy
(it stops the whole build before any plugin hook runs), so the SC004 fixtures are each run on
their own and must get mypy's own `syntax` error where the engine reports SC004: inside mypy
the parser's error stands for SC004.
"""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

import pytest

from shapecheck.api import analyze_source
from shapecheck.project import ProjectIndex

from .support import ROOT, Result, run_mypy, write_config

FIXTURES = sorted((ROOT / "fixtures").glob("*.py"))
INDEX = ProjectIndex.of(FIXTURES)


@functools.cache  # computed at collection for PARSING, and again by each test otherwise
def engine_pairs(path: Path) -> Counter[tuple[int, str]]:
    result = analyze_source(str(path), path.read_text(encoding="utf-8"), modules=INDEX)
    assert result.error is None, result.error
    return Counter((d.span.line, d.code) for d in result.diagnostics)


def parses(path: Path) -> bool:
    return "SC004" not in {code for _, code in engine_pairs(path)}


PARSING = [path for path in FIXTURES if parses(path)]
BROKEN = [path for path in FIXTURES if not parses(path)]


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory: pytest.TempPathFactory, plugin_cache: Path) -> Result:
    config = write_config(tmp_path_factory.mktemp("parity"))
    return run_mypy(PARSING, config, plugin_cache)


def test_the_fixtures_cover_every_code() -> None:
    assert len(FIXTURES) >= 100
    assert len(BROKEN) >= 3
    codes = {code for path in FIXTURES for _, code in engine_pairs(path)}
    assert {"SC001", "SC002", "SC003", "SC101", "SC102", "SC103", "SC201", "SC206"} <= codes


@pytest.mark.parametrize("path", PARSING, ids=[p.stem for p in PARSING])
def test_same_diagnostics_as_the_engine(path: Path, mypy_run: Result) -> None:
    assert mypy_run.status in (0, 1), mypy_run.stderr
    assert mypy_run.shape_pairs(path.name) == engine_pairs(path)


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_syntax_errors_are_mypys_own(path: Path, tmp_path: Path, plugin_cache: Path) -> None:
    run = run_mypy([path], write_config(tmp_path), plugin_cache)
    lines = {line for line, code in engine_pairs(path) if code == "SC004"}
    assert {(m.line, m.code) for m in run.errors(path.name)} == {(line, "syntax") for line in lines}
