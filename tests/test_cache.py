"""The result cache: a warm run reports what a cold run does, and nothing stale survives a change."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from shapecheck.cache import ResultCache
from shapecheck.cli import main
from shapecheck.config import Config
from shapecheck.engine import Engine

ROOT = Path(__file__).resolve().parent.parent

LAYERS = textwrap.dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32

    def dense(x: f32[('b', 784)], w: f32[(784, 512)]) -> f32[('b', 512)]:
        return jnp.dot(x, w)
    """)

MAIN = textwrap.dedent("""\
    import jax.numpy as jnp
    from layers import dense

    h = dense(jnp.ones((8, 784)), jnp.ones((784, 512)))
    """)

BROKEN = "import jax.numpy as jnp\nx = jnp.ones((3,)) + jnp.ones((4,))\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "broken.py").write_text(BROKEN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[tuple[str, int, str]]]:
    code = main(["check", "--format", "json", "--jobs", "1", *args])
    found = [(Path(d["path"]).name, d["line"], d["code"]) for d in json.loads(capsys.readouterr().out)]
    return code, found


@pytest.fixture
def analysed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the engine analyses (rather than taking from the cache), in order."""
    paths: list[str] = []
    real = Engine._analyze

    def counting(self: Engine, path: str, text: str, keep_types: bool = False) -> object:
        paths.append(Path(path).name)
        return real(self, path, text, keep_types)

    monkeypatch.setattr(Engine, "_analyze", counting)
    return paths


def test_warm_run_reports_the_same_without_analysing(project: Path, capsys: pytest.CaptureFixture[str],
                                                      analysed: list[str]) -> None:
    cold = check(capsys)
    assert cold == (1, [("broken.py", 2, "SC101")])
    assert sorted(analysed) == ["broken.py", "layers.py", "main.py"]
    analysed.clear()
    assert check(capsys) == cold
    assert analysed == []
    assert (project / ".shapecheck_cache" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_an_edited_file_is_checked_again(project: Path, capsys: pytest.CaptureFixture[str],
                                         analysed: list[str]) -> None:
    check(capsys)
    analysed.clear()
    (project / "broken.py").write_text(BROKEN.replace("(4,)", "(3,)") + "y = jnp.ones((2, 3)) @ jnp.ones((4, 5))\n")
    assert check(capsys) == (1, [("broken.py", 3, "SC104")])
    assert analysed == ["broken.py"]


def test_an_edited_annotation_in_an_imported_module_is_seen(project: Path,
                                                            capsys: pytest.CaptureFixture[str],
                                                            analysed: list[str]) -> None:
    assert ("main.py", 4, "SC103") not in check(capsys)[1]
    analysed.clear()
    (project / "layers.py").write_text(LAYERS.replace("w: f32[(784, 512)]", "w: f32[(700, 512)]"))
    assert ("main.py", 4, "SC103") in check(capsys)[1]
    assert sorted(analysed) == ["layers.py", "main.py"]  # broken.py depends on neither


def test_a_module_that_appears_invalidates_who_looked_for_it(project: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    (project / "main.py").write_text("from helpers import dense\nimport jax.numpy as jnp\n"
                                     "h = dense(jnp.ones((8, 784)), jnp.ones((700, 512)))\n")
    assert [found for found in check(capsys, "main.py", "broken.py")[1] if found[0] == "main.py"] == []
    (project / "helpers.py").write_text(LAYERS)
    assert ("main.py", 3, "SC103") in check(capsys, "main.py", "broken.py")[1]


def test_corrupt_and_foreign_entries_are_rebuilt(project: Path, capsys: pytest.CaptureFixture[str],
                                                 analysed: list[str]) -> None:
    cold = check(capsys)
    entries = sorted((project / ".shapecheck_cache" / "results").glob("*.json"))
    assert len(entries) == 3
    entries[0].write_text('{"format": 1, "environ')  # truncated
    entries[1].write_bytes(b"\xff\x00 not json")
    entry = json.loads(entries[2].read_text())
    entry["diagnostics"] = [["not", "a", "diagnostic"]]
    entries[2].write_text(json.dumps(entry))
    for found in (project / ".shapecheck_cache" / "runs").iterdir():
        found.unlink()  # the run's memo would answer before any entry is read
    analysed.clear()
    assert check(capsys) == cold
    assert sorted(analysed) == ["broken.py", "layers.py", "main.py"]
    analysed.clear()
    assert check(capsys) == cold  # rebuilt: warm again
    assert analysed == []


def test_a_configuration_change_is_not_answered_from_the_cache(project: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert check(capsys) == (1, [("broken.py", 2, "SC101")])
    (project / "pyproject.toml").write_text("[tool.shapecheck]\nignore = ['SC101']\n")
    assert check(capsys) == (0, [])
    assert check(capsys, "--select", "SC1") == (0, [])  # ignore still applies
    (project / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    assert check(capsys) == (1, [("broken.py", 2, "SC101")])


def test_no_cache_writes_nothing_and_cache_dir_moves_it(project: Path, tmp_path_factory: pytest.TempPathFactory,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert check(capsys, "--no-cache") == (1, [("broken.py", 2, "SC101")])
    assert not (project / ".shapecheck_cache").exists()
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "cache"
    assert check(capsys, "--cache-dir", str(elsewhere)) == (1, [("broken.py", 2, "SC101")])
    assert not (project / ".shapecheck_cache").exists()
    assert len(list((elsewhere / "results").glob("*.json"))) == 3


def test_results_with_internal_errors_or_limits_are_not_kept(project: Path) -> None:
    cache = ResultCache(project / "cache", Config(root=project))
    engine = Engine(Config(root=project), cache=cache)
    engine.check_files([str(project / "broken.py"), str(project / "missing.py")], jobs=1)
    kept = list((project / "cache" / "results").glob("*.json"))
    assert len(kept) == 1  # broken.py: the unreadable file is checked again next time


def test_a_file_is_reported_under_the_name_it_is_given(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check(capsys, "broken.py")
    code = main(["check", "--format", "json", str(project / "broken.py")])
    paths = {d["path"] for d in json.loads(capsys.readouterr().out)}
    assert code == 1 and paths == {str(project / "broken.py")}


def test_two_concurrent_runs_both_report_in_full(tmp_path: Path) -> None:
    for index in range(12):
        (tmp_path / f"m{index:02}.py").write_text(BROKEN + f"z{index} = jnp.ones((2,)) @ jnp.ones((3,))\n")
    command = [sys.executable, "-m", "shapecheck", "check", "--format", "json", "--jobs", "1", "."]
    expected = sorted((f"m{index:02}.py", line, code) for index in range(12)
                      for line, code in ((2, "SC101"), (3, "SC104")))
    for _ in range(2):  # cold and concurrent, then warm and concurrent
        runs = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for _ in range(2)]
        for run in runs:
            out, err = run.communicate(timeout=300)
            assert run.returncode == 1, err
            assert sorted((Path(d["path"]).name, d["line"], d["code"]) for d in json.loads(out)) == expected
    entries = list((tmp_path / ".shapecheck_cache" / "results").iterdir())
    assert len(entries) == 12 and all(entry.suffix == ".json" for entry in entries)  # no temporary left


def test_fixtures_are_reported_alike_cold_warm_and_without_the_cache(tmp_path: Path) -> None:
    def run(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "shapecheck", "check", "fixtures", "--format", "json",
                               *args], cwd=ROOT, capture_output=True, text=True, check=False)
        assert done.returncode in (0, 1), done.stderr
        return done.stdout

    cache = str(tmp_path / "cache")
    cold = run("--cache-dir", cache)
    assert len(json.loads(cold)) > 100
    assert run("--cache-dir", cache) == cold
    assert run("--no-cache") == cold


def test_every_setting_that_changes_results_is_in_the_key() -> None:
    # x64 was added after the cache and was missing from its key: a run with x64 = true
    # reused results made with it unknown.
    from shapecheck.cache import _environment

    base = Config()
    assert _environment(base, 60.0) != _environment(replace(base, x64=True), 60.0)
    assert _environment(base, 60.0) != _environment(replace(base, target_version=(3, 9)), 60.0)
    assert _environment(base, 60.0) == _environment(replace(base, exclude=("build",), jobs=4), 60.0)
