"""Analyses on another core (`prefetch`): used only where they are what an analysis in mypy's
process would give, never running the checked project's code, and the same output either way."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from shapecheck.config import Config
from shapecheck.plugin import prefetch
from shapecheck.plugin.modules import ModuleFiles
from shapecheck.plugin.prefetch import Prefetch, matches
from shapecheck.project import content_hash
from shapecheck.results import Dependency, FileResult

from .support import Result, run_mypy, write_config
from .test_fixture_parity import PARSING

MODEL = "from layers import project\n"


def test_a_result_matches_only_the_texts_it_was_computed_from(tmp_path: Path) -> None:
    layers = tmp_path / "layers.py"
    layers.write_text("X = 1\n")
    result = FileResult("model.py", dependencies=(Dependency("layers", str(layers), content_hash("X = 1\n")),),
                        missing=("absent",), text_hash=content_hash(MODEL))
    assert matches(result, MODEL, ModuleFiles({"layers": str(layers)}))
    assert not matches(result, MODEL + "\n", ModuleFiles({"layers": str(layers)}))
    assert not matches(result, MODEL, ModuleFiles({}))
    assert not matches(result, MODEL, ModuleFiles({"layers": str(layers), "absent": str(layers)}))
    layers.write_text("X = 2\n")
    assert not matches(result, MODEL, ModuleFiles({"layers": str(layers)}))


def test_the_worker_never_imports_the_projects_modules(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Modules named like the worker's own imports, in the folder mypy runs in.
    for name in ("pickle", "contextlib", "dataclasses", "shapecheck", "jax"):
        (tmp_path / f"{name}.py").write_text(f"open('sentinel-{name}', 'w').close()\n")
    checked = tmp_path / "checked.py"
    checked.write_text(textwrap.dedent("""\
        import jax.numpy as jnp

        z = jnp.ones((3,)) + jnp.ones((4,))
        """))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(prefetch, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch, "_spare_cores", lambda: 1)
    worker = Prefetch.start(Config(), {}, [str(checked)])
    assert worker is not None
    worker.thread.join(60)
    assert sorted(path.name for path in tmp_path.glob("sentinel-*")) == []
    result = worker.results[str(checked)]
    assert [(d.span.line, d.code) for d in result.diagnostics] == [(3, "SC101")]


def test_the_same_output_with_and_without_the_worker(tmp_path: Path, plugin_cache: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[str] = []
    take = Prefetch.take

    def counting(self: Prefetch, path: str) -> FileResult | None:
        found = take(self, path)
        if found is not None:
            taken.append(path)
        return found

    monkeypatch.setattr(Prefetch, "take", counting)
    runs: dict[bool, Result] = {}
    for worker in (False, True):
        folder = tmp_path / ("worker" if worker else "here")
        (folder / "src").mkdir(parents=True)
        for path in PARSING:
            # A text of its own, or mypy's cache would take it for the other run's module.
            copy = folder / "src" / path.name
            copy.write_text(path.read_text(encoding="utf-8") + f"# {folder.name}\n", encoding="utf-8")
        monkeypatch.setattr(prefetch, "MIN_BYTES", 0 if worker else 1 << 60)
        monkeypatch.setattr(prefetch, "_spare_cores", lambda: 1)
        runs[worker] = run_mypy(sorted((folder / "src").glob("*.py")), write_config(folder), plugin_cache)
        assert bool(taken) == worker

    def shown(run: Result) -> list[tuple[str, int, int, str, str | None]]:
        return [(Path(m.path).name, m.line, m.column, m.message, m.code) for m in run.messages]

    assert shown(runs[True]) == shown(runs[False])
    assert any(m.sc_code for m in runs[True].messages)
