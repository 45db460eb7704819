"""No stale results: a module's shape diagnostics follow edits of the modules it calls into, with
mypy's incremental cache and under dmypy (fine-grained), and survive dmypy's re-checks."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import Result, parse_output, run_mypy, write_config

LAYERS = """\
    from shapecheck import f32


    def project(x: f32[(SIZE,)]) -> f32[(SIZE,)]:
        return x
    """

MODEL = """\
    import jax
    import jax.numpy as jnp

    from layers import project

    top = project(jnp.ones((4,)))


    def main(x: jax.Array) -> jax.Array:
        return project(jnp.ones((4,))) + x
    """


# A module without any shape annotation or jax call: only its constants matter to the user.
SPECS = "IN_AXES = (['batch', ...], SECOND)\n"

SPECS_USER = """\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap

    from specs import IN_AXES

    pair = xmap(jnp.add, in_axes=IN_AXES, out_axes=['batch', ...])
    z = pair(jnp.ones((32, 2)), jnp.ones((16, 2)))
    """

FILES = ("model.py", "layers.py", "specs_user.py", "specs.py")


def write_layers(folder: Path, size: int) -> None:
    edit(folder / "layers.py", textwrap.dedent(LAYERS).replace("SIZE", str(size)))


def write_specs(folder: Path, second: str) -> None:
    edit(folder / "specs.py", SPECS.replace("SECOND", second))


def edit(path: Path, text: str) -> None:
    before = path.stat().st_mtime if path.exists() else 0.0
    path.write_text(text)
    # mypy takes a file of the same size and the same whole-second mtime as unchanged; an edit
    # by hand is never that fast, an edit by a test is.
    later = max(path.stat().st_mtime, before + 1.0)
    os.utime(path, (later, later))


def project(tmp_path: Path) -> Path:
    write_layers(tmp_path, 3)
    write_specs(tmp_path, "['batch', ...]")
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL))
    (tmp_path / "specs_user.py").write_text(textwrap.dedent(SPECS_USER))
    return write_config(tmp_path)


def test_incremental_run_follows_an_edited_annotation(tmp_path: Path, plugin_cache: Path) -> None:
    config = project(tmp_path)
    files = [tmp_path / name for name in FILES]
    first = run_mypy(files, config, plugin_cache)
    assert first.shape_pairs("model.py") == {(6, "SC103"): 1, (10, "SC103"): 1}, first.stdout
    write_layers(tmp_path, 4)  # only the annotation changes: mypy's own types stay jax.Array
    fixed = run_mypy(files, config, plugin_cache)
    assert fixed.shape_pairs("model.py") == {}, fixed.stdout
    write_layers(tmp_path, 5)
    broken = run_mypy(files, config, plugin_cache)
    assert broken.shape_pairs("model.py") == {(6, "SC103"): 1, (10, "SC103"): 1}, broken.stdout
    assert "5 is declared" in broken.errors("model.py")[0].message


def test_incremental_run_follows_an_edited_constant(tmp_path: Path, plugin_cache: Path) -> None:
    config = project(tmp_path)
    files = [tmp_path / name for name in FILES]
    first = run_mypy(files, config, plugin_cache)
    assert first.shape_pairs("specs_user.py") == {(7, "SC102"): 1}, first.stdout
    # A new name for the second argument's axis: mypy's type of IN_AXES stays list[object].
    write_specs(tmp_path, "['other', ...]")
    renamed = run_mypy(files, config, plugin_cache)
    assert renamed.shape_pairs("specs_user.py") == {(6, "SC203"): 1}, renamed.stdout


class Daemon:
    """A dmypy server of its own (own status file), checking files in one folder."""

    def __init__(self, folder: Path, config: Path) -> None:
        self.folder = folder
        self.base = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(folder / "dmypy.json")]
        self.options = ["--config-file", str(config), "--cache-dir", str(folder / "cache"),
                        "--show-column-numbers", "--show-error-codes", "--no-error-summary",
                        "--hide-error-context", "--no-color-output", "--no-pretty"]

    def start(self) -> None:
        subprocess.run([*self.base, "start", "--", *self.options], cwd=self.folder, check=True,
                       capture_output=True, timeout=120)

    def check(self, *files: str) -> Result:
        done = subprocess.run([*self.base, "check", *files], cwd=self.folder, capture_output=True,
                              text=True, timeout=300)
        return parse_output(done.stdout, done.stderr, done.returncode)

    def stop(self) -> None:
        subprocess.run([*self.base, "stop"], cwd=self.folder, capture_output=True, timeout=60)


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    server = Daemon(tmp_path, project(tmp_path))
    try:
        server.start()
        yield server
    finally:
        server.stop()


def test_dmypy_keeps_and_updates_shape_diagnostics(daemon: Daemon, tmp_path: Path) -> None:
    files = FILES
    expected = {(6, "SC103"): 1, (10, "SC103"): 1}
    first = daemon.check(*files)
    assert first.shape_pairs("model.py") == expected, first.stdout + first.stderr
    # An edit of model.py elsewhere: its diagnostics must not vanish.
    with (tmp_path / "model.py").open("a") as model:
        model.write("\n\ndef other() -> int:\n    return 1\n")
    edited = daemon.check(*files)
    assert edited.shape_pairs("model.py") == expected, edited.stdout
    # No edit at all: the same again.
    again = daemon.check(*files)
    assert again.shape_pairs("model.py") == expected, again.stdout
    # An edit of the annotation in layers.py only: model.py's diagnostics follow.
    write_layers(tmp_path, 4)
    fixed = daemon.check(*files)
    assert fixed.shape_pairs("model.py") == {}, fixed.stdout
    write_layers(tmp_path, 5)
    broken = daemon.check(*files)
    assert broken.shape_pairs("model.py") == expected, broken.stdout
    assert all("5 is declared" in m.message for m in broken.errors("model.py"))
    # An edit of a module that holds only constants: its importer's diagnostics follow too.
    assert broken.shape_pairs("specs_user.py") == {(7, "SC102"): 1}, broken.stdout
    write_specs(tmp_path, "['other', ...]")
    renamed = daemon.check(*files)
    assert renamed.shape_pairs("specs_user.py") == {(6, "SC203"): 1}, renamed.stdout
    assert renamed.shape_pairs("model.py") == expected, renamed.stdout


def test_a_result_is_reused_until_a_module_it_read_changes(tmp_path: Path) -> None:
    from mypy.nodes import MypyFile

    from shapecheck.analyzer.modules import content_hash
    from shapecheck.config import Config
    from shapecheck.plugin.reporting import FileReporter, _Inputs, _Reported

    layers = tmp_path / "layers.py"
    layers.write_text(textwrap.dedent(LAYERS).replace("SIZE", "3"))
    (tmp_path / "other.py").write_text("X = 1\n")
    graph: dict[str, MypyFile] = {}
    for name in ("layers", "other"):
        tree = MypyFile([], [])
        tree._fullname, tree.path = name, str(tmp_path / f"{name}.py")
        graph[name] = tree
    reporter = FileReporter(Config())
    reporter.use_modules(graph)
    reporter._load()
    model = textwrap.dedent(MODEL)
    result = reporter.engine.analyze(str(tmp_path / "model.py"), model)
    assert [d.module for d in result.dependencies] == ["layers"]
    inputs = _Inputs(content_hash(model), reporter.graph_names)
    before = _Reported(reporter.generation, {}, [], result, inputs)

    def next_generation() -> None:
        reporter.generation += 1
        reporter._load()

    (tmp_path / "other.py").write_text("X = 2\n")  # not read by model.py's analysis
    next_generation()
    assert reporter._unchanged(before, _Inputs(content_hash(model), reporter.graph_names))
    layers.write_text(textwrap.dedent(LAYERS).replace("SIZE", "4"))
    next_generation()
    assert not reporter._unchanged(before, _Inputs(content_hash(model), reporter.graph_names))
