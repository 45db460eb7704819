"""The engine: what a result depended on, and module summaries reused while texts are unchanged."""

from __future__ import annotations

import ast
import collections
import gc
import pickle
import textwrap
from pathlib import Path

import pytest

from shapecheck.analyzer.modules import ModuleLoader, content_hash
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Function
from shapecheck.engine import Dependency, Engine, _batches

LAYERS = textwrap.dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32
    from sizes import WIDTH

    def dense(x: f32[('b', 784)], w: f32[(784, 512)]) -> f32[('b', 512)]:
        return jnp.dot(x, w)
    """)

MAIN = textwrap.dedent("""\
    import jax.numpy as jnp
    from layers import dense

    h = dense(jnp.ones((8, 784)), jnp.ones((700, 512)))
    """)


class Texts:
    """A module source over texts in memory, as an editor's unsaved buffers would be."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def find(self, module: str) -> tuple[str, str] | None:
        text = self.texts.get(module)
        return (f"{module.replace('.', '/')}.py", text) if text is not None else None


@pytest.fixture
def interpreted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The modules the loader interprets (rather than reusing a summary), in order."""
    names: list[str] = []
    real = ModuleLoader._run

    def counting(self: ModuleLoader, module: str, text: str) -> object:
        names.append(module)
        return real(self, module, text)

    monkeypatch.setattr(ModuleLoader, "_run", counting)
    return names


def _codes(engine: Engine) -> list[tuple[int, str]]:
    result = engine.analyze("main.py", MAIN)
    assert result.error is None
    return [(d.span.line, d.code) for d in result.diagnostics]


def test_a_cross_module_call_records_the_modules_it_read() -> None:
    texts = {"layers": LAYERS, "sizes": "WIDTH = 512\n"}
    result = Engine(modules=Texts(texts)).analyze("main.py", MAIN)
    assert [(d.span.line, d.code) for d in result.diagnostics] == [(4, "SC103")]
    # `sizes` was read while `layers` was loaded: the result depends on it too.
    assert result.dependencies == (Dependency("layers", "layers.py", content_hash(LAYERS)),
                                   Dependency("sizes", "sizes.py", content_hash("WIDTH = 512\n")))


def test_a_file_importing_nothing_of_the_project_depends_on_nothing() -> None:
    result = Engine(modules=Texts({"layers": LAYERS})).analyze("m.py", "import jax.numpy as jnp\nx = jnp.ones((3,))\n")
    assert result.dependencies == ()


def test_summaries_are_reused_while_the_texts_are_unchanged(interpreted: list[str]) -> None:
    engine = Engine(modules=Texts({"layers": LAYERS, "sizes": "WIDTH = 512\n"}))
    first = _codes(engine)
    assert interpreted == ["layers"]
    assert _codes(engine) == first
    assert interpreted == ["layers"]  # the second analysis reused the summary of `layers`


def test_a_changed_dependency_is_analysed_again(interpreted: list[str]) -> None:
    texts = {"layers": LAYERS, "sizes": "WIDTH = 512\n"}
    engine = Engine(modules=Texts(texts))
    before = engine.analyze("main.py", MAIN)
    texts["layers"] = LAYERS.replace(": f32[('b', 784)]", "").replace(": f32[(784, 512)]", "")
    after = engine.analyze("main.py", MAIN)
    assert interpreted == ["layers", "layers"]
    # The argument no longer contradicts an annotation; the body's contraction fails instead.
    assert [d.code for d in before.diagnostics] == ["SC103"]
    assert [d.code for d in after.diagnostics] == ["SC104"]
    assert after.dependencies[0].hash == content_hash(texts["layers"]) != before.dependencies[0].hash


def test_a_change_in_what_a_module_read_while_loading_reloads_it(interpreted: list[str]) -> None:
    texts = {"layers": LAYERS, "sizes": "WIDTH = 512\n"}
    engine = Engine(modules=Texts(texts))
    engine.analyze("main.py", MAIN)
    texts["sizes"] = "WIDTH = 256\n"
    engine.analyze("main.py", MAIN)
    assert interpreted == ["layers", "layers"]  # `layers` bound `WIDTH` from the old `sizes`


def test_a_batch_shares_its_loads_and_records_each_files_own_reads(tmp_path: Path, interpreted: list[str]) -> None:
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "sizes.py").write_text("WIDTH = 512\n")
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "other.py").write_text("import jax.numpy as jnp\nx = jnp.ones((3,))\n")
    report = Engine().check_files([str(tmp_path / name) for name in ("layers.py", "main.py", "other.py")], jobs=1)
    deps = {Path(r.path).name: [d.module for d in r.dependencies] for r in report.results}
    assert deps == {"layers.py": ["sizes"], "main.py": ["layers", "sizes"], "other.py": []}
    assert interpreted.count("layers") == 1


def test_a_result_with_dependencies_pickles() -> None:
    result = Engine(modules=Texts({"layers": LAYERS, "sizes": "WIDTH = 512\n"})).analyze(
        "main.py", MAIN, keep_types=True)
    assert result.types and result.dependencies
    assert pickle.loads(pickle.dumps(result)) == result


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_an_analysis_leaves_its_tree_to_reference_counting() -> None:
    """Every fixture's tree and scopes are freed as its analysis ends, none left in a cycle for
    the collector, which would traverse a large file's tree at every collection until then."""
    gc.collect()
    gc.disable()
    try:
        # What earlier tests left (an engine pytest still held) may turn to garbage meanwhile.
        before = {id(found) for found in gc.get_objects()}
        engine = Engine(modules=Texts({"layers": LAYERS, "sizes": "WIDTH = 512\n"}))
        assert [d.code for d in engine.analyze("main.py", MAIN).diagnostics]
        for path in sorted(FIXTURES.glob("*.py")):
            assert engine.analyze(str(path), path.read_text(encoding="utf-8")).error is None
        # The engine stays: what its loader keeps of imported modules is meant to last.
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        kept = collections.Counter(type(found).__name__ for found in gc.garbage
                                   if isinstance(found, ast.AST | Scope | Function) and id(found) not in before)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert not kept, kept.most_common(10)


def test_worker_batches_hold_every_file_once_largest_first_and_shrink(tmp_path: Path) -> None:
    """The workers take batches in order as each finishes one: the largest files go first and
    the batches shrink, so that the run does not end on one worker's large batch."""
    paths = []
    for index, size in enumerate([50, 40_000, 300, 9_000, 120_000, 7, 2_500, 60_000] * 6):
        path = tmp_path / f"m{index}.py"
        path.write_text("x = 1\n" * size)
        paths.append(str(path))
    missing = str(tmp_path / "gone.py")  # unreadable: checked (and reported) like any other
    batches = _batches([*paths, missing], jobs=2)
    flat = [path for batch in batches for path in batch]
    assert sorted(flat) == sorted([*paths, missing])
    sizes = [sum(Path(path).stat().st_size for path in batch if path != missing) for batch in batches]
    assert len(batches) > 4
    # Not every batch is smaller than the one before (a batch ends past its share, by up to a
    # file), but the second half's are all smaller than the first batch, the last one much.
    assert max(sizes[len(sizes) // 2:]) < sizes[0]
    assert 5 * sizes[-1] < sizes[0]
    largest = max(paths, key=lambda path: Path(path).stat().st_size)
    assert batches[0][0] == largest and flat[-1] == missing


def test_one_file_is_one_batch(tmp_path: Path) -> None:
    path = tmp_path / "only.py"
    path.write_text("x = 1\n")
    assert _batches([str(path)], jobs=4) == [[str(path)]]
