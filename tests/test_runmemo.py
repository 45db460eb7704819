"""The run memo: an unchanged `check FILE...` answered at start-up, and never a stale answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shapecheck import memo
from shapecheck.cli import main
from shapecheck.engine import Engine
from tests.test_cache import LAYERS, MAIN

CLEAN = "import jax.numpy as jnp\nx = jnp.ones((3,)) + jnp.ones((3,))\n"
BROKEN = "import jax.numpy as jnp\nx = jnp.ones((3,)) + jnp.ones((4,))\n"  # the same length


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "m.py").write_text(CLEAN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The file lists the engine was asked to check: a run answered by its memo adds none."""
    calls: list[list[str]] = []
    real = Engine.check_files

    def counting(self: Engine, paths: list[str], *args: object, **kwargs: object) -> object:
        calls.append([Path(p).name for p in paths])
        return real(self, paths, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Engine, "check_files", counting)
    return calls


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[tuple[str, int, str]]]:
    code = main(["check", "--format", "json", "--jobs", "1", *args])
    out = capsys.readouterr().out
    return code, [(Path(d["path"]).name, d["line"], d["code"]) for d in json.loads(out)]


def memos(folder: Path) -> list[Path]:
    return sorted((folder / memo.FOLDER).glob(f"*{memo.SUFFIX}"))


def test_an_unchanged_run_is_answered_without_the_engine(project: Path, capsys: pytest.CaptureFixture[str],
                                                         runs: list[list[str]]) -> None:
    first = check(capsys, "m.py", "main.py")
    assert first == (0, [])
    assert runs == [["m.py", "main.py"]]
    assert len(memos(project / ".shapecheck_cache")) == 1
    assert check(capsys, "m.py", "main.py") == first
    assert runs == [["m.py", "main.py"]]  # answered by the memo


def test_a_memo_answers_in_a_fresh_process_before_importing_the_checker(project: Path) -> None:
    child = ("import sys\nfrom shapecheck.cli import main\ncode = main(sys.argv[1:])\n"
             "modules = sorted(sys.modules)\nimport json\n"
             "print(json.dumps({'code': code, 'modules': modules}), file=sys.stderr)\n")
    command = [sys.executable, "-c", child, "check", "--format", "json", "m.py"]
    (project / "m.py").write_text(BROKEN)
    outputs = []
    for _ in range(2):
        done = subprocess.run(command, cwd=project, capture_output=True, text=True, check=False)
        report = json.loads(done.stderr.strip().splitlines()[-1])
        outputs.append((report["code"], done.stdout))
    assert outputs[0] == outputs[1]
    assert outputs[1][0] == 1 and '"SC101"' in outputs[1][1]
    ours = {m for m in report["modules"] if m.split(".")[0] == "shapecheck"}
    assert ours == {"shapecheck", "shapecheck.cli", "shapecheck.exits", "shapecheck.memo", "shapecheck.safe_read"}
    assert not {"typing", "argparse", "json", "dataclasses"} & set(report["modules"]) - _at_start()


def _at_start() -> set[str]:
    # What this Python imports before any of our code runs (site-packages hooks included).
    done = subprocess.run([sys.executable, "-c", "import sys; print(chr(10).join(sorted(sys.modules)))"],
                          capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_an_edit_of_the_same_size_is_seen(project: Path, capsys: pytest.CaptureFixture[str],
                                          runs: list[list[str]]) -> None:
    assert check(capsys, "m.py") == (0, [])
    before = os.stat("m.py")
    (project / "m.py").write_text(BROKEN)
    # Even with the size and the modification time put back as they were.
    os.utime("m.py", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat("m.py").st_size == before.st_size
    assert check(capsys, "m.py") == (1, [("m.py", 2, "SC101")])
    assert len(runs) == 2


def test_an_edit_of_an_imported_modules_annotation_is_seen(project: Path, capsys: pytest.CaptureFixture[str],
                                                           runs: list[list[str]]) -> None:
    assert check(capsys, "main.py") == (0, [])
    assert check(capsys, "main.py") == (0, [])
    assert len(runs) == 1
    (project / "layers.py").write_text(LAYERS.replace("(784, 512)", "(783, 512)"))
    code, found = check(capsys, "main.py")
    assert code == 1 and [f[0] for f in found] == ["main.py"]
    assert len(runs) == 2


def test_a_module_that_appears_where_it_was_looked_for_is_seen(project: Path, capsys: pytest.CaptureFixture[str],
                                                               runs: list[list[str]]) -> None:
    (project / "main.py").write_text(MAIN.replace("from layers", "from models.layers"))
    assert check(capsys, "main.py") == (0, [])
    assert check(capsys, "main.py") == (0, [])
    assert len(runs) == 1
    (project / "models").mkdir()
    (project / "models" / "__init__.py").write_text("")
    (project / "models" / "layers.py").write_text(LAYERS.replace("(784, 512)", "(783, 512)"))
    code, found = check(capsys, "main.py")
    assert code == 1 and [f[0] for f in found] == ["main.py"]
    assert len(runs) == 2


def test_a_changed_configuration_is_seen(project: Path, capsys: pytest.CaptureFixture[str],
                                         runs: list[list[str]]) -> None:
    (project / "m.py").write_text(BROKEN)
    assert check(capsys, "m.py") == (1, [("m.py", 2, "SC101")])
    (project / "pyproject.toml").write_text("[project]\nname = 'demo'\n[tool.shapecheck]\nignore = ['SC101']\n")
    assert check(capsys, "m.py") == (0, [])
    assert len(runs) == 2


def test_a_pyproject_that_appears_above_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str], runs: list[list[str]]) -> None:
    inner = tmp_path / "outer" / "inner"
    inner.mkdir(parents=True)
    (inner / "m.py").write_text(BROKEN)
    monkeypatch.chdir(inner)
    cache = str(tmp_path / "cache")
    assert check(capsys, "--cache-dir", cache, "m.py") == (1, [("m.py", 2, "SC101")])
    assert check(capsys, "--cache-dir", cache, "m.py") == (1, [("m.py", 2, "SC101")])
    assert len(runs) == 1
    (tmp_path / "outer" / "pyproject.toml").write_text("[tool.shapecheck]\nignore = ['SC101']\n")
    assert check(capsys, "--cache-dir", cache, "m.py") == (0, [])
    assert len(runs) == 2


def test_another_command_line_or_folder_is_not_answered_by_this_memo(
        project: Path, capsys: pytest.CaptureFixture[str], runs: list[list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "m.py").write_text(BROKEN)
    assert check(capsys, "m.py") == (1, [("m.py", 2, "SC101")])
    assert check(capsys, "--ignore", "SC101", "m.py") == (0, [])
    other = project / "sub"
    other.mkdir()
    (other / "m.py").write_text(CLEAN)
    monkeypatch.chdir(other)
    # The same command line from another folder names another file.
    assert check(capsys, "--cache-dir", "../.shapecheck_cache", "m.py") == (0, [])
    assert len(runs) == 3


def test_runs_that_keep_no_memo(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(capsys, "--no-cache", "m.py")[0] == 0
    assert check(capsys, "--no-cache", ".")[0] == 0
    assert main(["check", "--output-file", "out.txt", "m.py"]) == 0
    assert memos(project / ".shapecheck_cache") == []
    (project / "bad.py").write_bytes(b"\xff\xfe not utf-8 \x81")
    assert main(["check", "bad.py"]) == 2  # a file that could not be checked
    capsys.readouterr()
    assert memos(project / ".shapecheck_cache") == []


@pytest.mark.parametrize("options", [[], ["--cache-dir", "elsewhere"], ["--cache-dir=elsewhere"],
                                     ["--config", "pyproject.toml"], ["--config=settings/shapecheck.toml"]])
def test_the_memo_is_found_where_it_is_written(project: Path, capsys: pytest.CaptureFixture[str],
                                               runs: list[list[str]], options: list[str]) -> None:
    (project / "settings").mkdir()
    (project / "settings" / "shapecheck.toml").write_text("select = ['SC1']\n")
    assert check(capsys, *options, "m.py") == (0, [])
    assert check(capsys, *options, "m.py") == (0, [])
    assert len(runs) == 1


def test_the_memo_lives_in_the_result_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text(CLEAN)
    monkeypatch.chdir(tmp_path / "src")
    check(capsys, "m.py")
    assert len(memos(tmp_path / ".shapecheck_cache")) == 1
    assert (tmp_path / ".shapecheck_cache" / ".gitignore").exists()


def test_a_memo_alone_still_keeps_the_cache_out_of_version_control(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # No file result is stored when every named file is excluded; the memo is.
    (project / "pyproject.toml").write_text("[tool.shapecheck]\nexclude = ['m.py']\n")
    assert main(["check", "m.py"]) == 0
    assert "no Python files found" in capsys.readouterr().err
    assert len(memos(project / ".shapecheck_cache")) == 1
    assert (project / ".shapecheck_cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert main(["check", "m.py"]) == 0
    assert "no Python files found" in capsys.readouterr().err  # replayed


def test_a_path_changed_in_the_memos_own_clock_tick_is_not_trusted(
        project: Path, capsys: pytest.CaptureFixture[str], runs: list[list[str]]) -> None:
    check(capsys, "m.py")
    [written] = memos(project / ".shapecheck_cache")
    # As if the memo had been written in the tick m.py last changed in: its mtime not later.
    changed = os.stat("m.py").st_ctime_ns
    os.utime(written, ns=(changed, changed))
    check(capsys, "m.py")
    assert len(runs) == 2
    check(capsys, "m.py")  # the run that did not trust it wrote a memo that holds
    assert len(runs) == 2


def test_an_edited_checker_is_not_answered_for(project: Path, capsys: pytest.CaptureFixture[str],
                                               runs: list[list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    checker = project / "checker"
    checker.mkdir()
    (checker / "rule.py").write_text("# version 1\n")
    monkeypatch.setattr("shapecheck.cache.source_roots", lambda: [checker])
    check(capsys, "m.py")
    check(capsys, "m.py")
    assert len(runs) == 1
    (checker / "rule.py").write_text("# version 2\n")
    check(capsys, "m.py")
    assert len(runs) == 2
    (checker / "new_rule.py").write_text("")
    check(capsys, "m.py")
    assert len(runs) == 3


def test_every_source_file_of_the_checker_is_an_input(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check(capsys, "m.py")
    [written] = memos(project / ".shapecheck_cache")
    decoded = memo._decode(written.read_bytes())
    assert decoded is not None
    inputs = dict(decoded[1])
    # The output formats too: they make the text a memo keeps.
    for part in (("shapecheck", "formats", "text.py"), ("rules", "__init__.py"), ("shapecheck", "memo.py")):
        assert any(path.endswith(os.path.join(*part)) for path in inputs), part


def test_old_memos_are_pruned(project: Path, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo, "KEEP", 3)
    for ignored in ("SC1", "SC2", "SC3", "SC101", "SC201"):
        assert check(capsys, "--ignore", ignored, "m.py") == (0, [])
    assert len(memos(project / ".shapecheck_cache")) == 3


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(min_value=0, max_value=400), flip=st.integers(min_value=0, max_value=400),
       junk=st.binary(max_size=64))
def test_a_corrupt_memo_is_ignored(tmp_path_factory: pytest.TempPathFactory, cut: int, flip: int,
                                   junk: bytes) -> None:
    folder = tmp_path_factory.mktemp("memo")
    target = folder / "m.py"
    target.write_text(CLEAN)
    argv = ["check", "--cache-dir", str(folder / "cache"), str(target)]
    key = memo.key(argv, os.getcwd())
    memo.write(str(folder / "cache" / memo.FOLDER), key, {str(target): memo.signature(str(target))},
               "out\n", "", 0)
    [written] = memos(folder / "cache")
    data = bytearray(written.read_bytes())
    if flip < len(data):
        data[flip] ^= 0x5A
    written.write_bytes(bytes(data[:cut]) + junk)
    os.utime(written, ns=(2**62, 2**62))  # never "racily" distrusted: only the bytes decide
    answered = memo._read(str(written), key)
    assert answered is None or answered == ("out\n", "", 0)


def test_every_fixture_is_reported_alike_from_the_memo(tmp_path: Path) -> None:
    # The fixtures named one by one, as pre-commit passes them: the answer from the memo is the
    # full run's, byte for byte, and it comes without the engine.
    fixtures = Path(__file__).resolve().parent.parent / "fixtures"
    names = sorted(path.name for path in fixtures.glob("*.py"))
    for name in names:
        (tmp_path / name).write_bytes((fixtures / name).read_bytes())
    child = ("import sys\nfrom shapecheck.cli import main\ncode = main(sys.argv[1:])\n"
             "print(code, 'shapecheck.engine' in sys.modules, file=sys.stderr)\n")
    command = [sys.executable, "-c", child, "check", "--format", "json", "--jobs", "1", *names]
    full, memo_run = (subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
                      for _ in range(2))
    assert full.stderr.split()[-2:] == ["1", "True"]
    assert memo_run.stderr.split()[-2:] == ["1", "False"]
    assert memo_run.stdout == full.stdout
    assert len(json.loads(full.stdout)) > 100


# --- a run over folders ---------------------------------------------------------------------------

@pytest.fixture
def tree(project: Path) -> Path:
    """The project with a package, a folder the walk leaves out, and a .gitignore."""
    (project / "pkg").mkdir()
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "a.py").write_text(CLEAN)
    (project / "pkg" / "deep").mkdir()
    (project / "pkg" / "deep" / "b.py").write_text(BROKEN)
    (project / "build").mkdir()  # never walked
    (project / "generated").mkdir()
    (project / ".gitignore").write_text("generated/\n")
    return project


def test_an_unchanged_folder_run_is_answered_by_its_memo(tree: Path, capsys: pytest.CaptureFixture[str],
                                                         runs: list[list[str]]) -> None:
    first = check(capsys, ".")
    assert first == (1, [("b.py", 2, "SC101")])
    assert check(capsys, ".") == first
    assert check(capsys) == first  # no path: "." too, with its own memo
    assert len(runs) == 2
    assert check(capsys, ".") == first
    assert check(capsys) == first
    assert len(runs) == 2


def _add(tree: Path) -> None:
    (tree / "pkg" / "deep" / "c.py").write_text(BROKEN)


def _add_folder(tree: Path) -> None:
    (tree / "pkg" / "new").mkdir()
    (tree / "pkg" / "new" / "c.py").write_text(BROKEN)


def _delete(tree: Path) -> None:
    (tree / "pkg" / "deep" / "b.py").unlink()


def _rename(tree: Path) -> None:
    (tree / "pkg" / "deep" / "b.py").rename(tree / "pkg" / "deep" / "b2.py")


def _rename_to_another_suffix(tree: Path) -> None:
    (tree / "pkg" / "deep" / "b.py").rename(tree / "pkg" / "deep" / "b.txt")


def _edit(tree: Path) -> None:
    before = os.stat(tree / "pkg" / "deep" / "b.py")
    (tree / "pkg" / "deep" / "b.py").write_text(CLEAN)  # the same size, the same mtime put back
    os.utime(tree / "pkg" / "deep" / "b.py", ns=(before.st_atime_ns, before.st_mtime_ns))


def _touch(tree: Path) -> None:
    os.utime(tree / "pkg" / "a.py")


def _configure(tree: Path) -> None:
    (tree / "pyproject.toml").write_text("[project]\nname = 'demo'\n[tool.shapecheck]\nignore = ['SC101']\n")


def _exclude(tree: Path) -> None:
    (tree / "pyproject.toml").write_text("[project]\nname = 'demo'\n[tool.shapecheck]\nexclude = ['pkg/deep']\n")


def _ignore(tree: Path) -> None:
    (tree / ".gitignore").write_text("generated/\nb.py\n")


def _ignore_below(tree: Path) -> None:
    (tree / "pkg" / "deep" / ".gitignore").write_text("*.py\n")


def _unignore(tree: Path) -> None:
    (tree / "generated" / "g.py").write_text(BROKEN)
    (tree / ".gitignore").write_text("")


def _in_an_ignored_folder(tree: Path) -> None:
    (tree / "generated" / "g.py").write_text(BROKEN)  # never checked: the memo may hold or not


def _imported(tree: Path) -> None:
    # main.py imports layers.py: an annotation there changes main.py's finding.
    (tree / "layers.py").write_text(LAYERS.replace("(784, 512)", "(783, 512)"))


CHANGES = [_add, _add_folder, _delete, _rename, _rename_to_another_suffix, _edit, _touch, _configure, _exclude,
           _ignore, _ignore_below, _unignore, _in_an_ignored_folder, _imported]
UNSEEN = {_touch, _in_an_ignored_folder}  # changes of nothing checked: a memo may answer


@pytest.mark.parametrize("change", CHANGES, ids=lambda change: change.__name__.lstrip("_"))
def test_a_folder_runs_memo_answers_only_while_nothing_it_walked_changed(
        tree: Path, capsys: pytest.CaptureFixture[str], runs: list[list[str]],
        change: Callable[[Path], None]) -> None:
    first = check(capsys, ".")
    assert check(capsys, ".") == first
    assert len(runs) == 1
    change(tree)
    expected = check(capsys, "--no-cache", ".")
    assert len(runs) == 2
    assert check(capsys, ".") == expected
    assert len(runs) == 3 or change in UNSEEN
    if change not in UNSEEN:
        assert expected != first
    assert check(capsys, ".") == expected  # the new memo holds
    assert len(runs) <= 3


def test_a_folder_run_answers_before_importing_the_checker(tree: Path) -> None:
    child = ("import sys\nfrom shapecheck.cli import main\ncode = main(sys.argv[1:])\n"
             "print(code, sorted(m for m in sys.modules if m.startswith('shapecheck')), file=sys.stderr)\n")
    command = [sys.executable, "-c", child, "check", "--format", "json", "."]
    full, replayed = (subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
                      for _ in range(2))
    assert replayed.stdout == full.stdout
    assert replayed.stderr.splitlines()[-1] == (
        "1 ['shapecheck', 'shapecheck.cli', 'shapecheck.exits', 'shapecheck.memo', 'shapecheck.safe_read']")


def test_a_folder_runs_memo_states_what_the_walk_looked_at(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check(capsys, ".")
    [written] = memos(tree / ".shapecheck_cache")
    decoded = memo._decode(written.read_bytes())
    assert decoded is not None
    inputs = dict(decoded[1])
    root = os.path.realpath(tree)
    for folder in ("pkg", os.path.join("pkg", "deep")):
        assert inputs[os.path.join(root, folder)].startswith(str(memo.FOLDER_TYPE)), folder
    assert inputs[os.path.join(root, ".gitignore")] != ""
    # A name that is not there, in a folder stated before it: the folder vouches for it.
    assert os.path.join(root, "pkg", "deep", ".gitignore") not in inputs
    assert os.path.join(root, "build") not in inputs and os.path.join(root, "generated") not in inputs


def test_a_forged_folder_memo_is_not_believed(tree: Path, capsys: pytest.CaptureFixture[str],
                                              runs: list[list[str]]) -> None:
    first = check(capsys, ".")
    [written] = memos(tree / ".shapecheck_cache")
    decoded = memo._decode(written.read_bytes())
    assert decoded is not None
    key, inputs, _, stderr, status = decoded
    # A valid checksum and the true signatures, another output: believed (it is the user's own
    # folder, as the entries are); a signature that is not the path's: never.
    forged = dict(inputs)
    path = os.path.join(os.path.realpath(tree), "pkg")
    forged[path] = forged[path].replace(",", ",1", 1)
    raw = {name: tuple(int(part) for part in text.split(",")) if text else None for name, text in forged.items()}
    memo.write(str(tree / ".shapecheck_cache" / memo.FOLDER), key, raw, "[]\n", stderr, status)  # type: ignore[arg-type]
    assert check(capsys, ".") == first
    assert len(runs) == 2


# --- a run after a few files changed ---------------------------------------------------------------

def _texts_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files whose text the result cache reads to validate an entry."""
    from shapecheck import cache

    read: list[str] = []
    real = cache._file_text

    def recording(path: str) -> str | None:
        read.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(cache, "_file_text", recording)
    return read


def _edit_a(tree: Path) -> None:
    (tree / "pkg" / "a.py").write_text(BROKEN)


def _edit_a_back(tree: Path) -> None:
    (tree / "pkg" / "a.py").write_text(CLEAN)


@pytest.mark.parametrize("change", [_edit_a, _edit, _touch, _imported, _edit_a_back],
                         ids=lambda change: change.__name__.lstrip("_"))
def test_after_an_edit_only_what_changed_is_read_again(tree: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       change: Callable[[Path], None]) -> None:
    check(capsys, ".")
    read = _texts_read(monkeypatch)
    change(tree)
    expected = check(capsys, "--no-cache", ".")
    assert check(capsys, ".") == expected
    edited = {_edit_a: {"a.py"}, _edit: {"b.py"}, _touch: {"a.py"}, _imported: {"layers.py", "main.py"},
              _edit_a_back: {"a.py"}}[change]
    assert set(read) == edited  # every other result came from the last memo, its text unread


def test_edits_in_turn_are_each_seen(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Each run's memo is the next one's starting point: a chain of partial runs never drifts.
    check(capsys, ".")
    for change in (_edit_a, _edit, _imported, _edit_a_back, _touch, _rename, _edit_a):
        change(tree)
        expected = check(capsys, "--no-cache", ".")
        assert check(capsys, ".") == expected, change.__name__
        assert check(capsys, ".") == expected, change.__name__


def _forge_table(tree: Path, table: bytes) -> None:
    [written] = memos(tree / ".shapecheck_cache")
    decoded = memo._decode(written.read_bytes())
    assert decoded is not None
    key, inputs, stdout, stderr, status = decoded
    raw = {name: tuple(int(part) for part in text.split(",")) if text else None for name, text in inputs}
    memo.write(str(tree / ".shapecheck_cache" / memo.FOLDER), key, raw, stdout, stderr, status, table)  # type: ignore[arg-type]


def _row(diagnostics: object) -> object:
    return [[], [], diagnostics, 2, "0" * 16]


FORGED_TABLES = [
    b"", b"{", b"[]", b'{"files": "abc", "paths": {}, "roots": [], "results": {}}',
    b'{"files": ["pkg/a.py"], "paths": {}, "roots": [], "results": {}}',
    b'{"files": ["pkg/a.py"], "paths": {"x": 1}, "roots": [], "results": {"pkg/a.py": []}}',
    json.dumps({"files": ["pkg/a.py"], "paths": {}, "roots": [],
                "results": {"pkg/a.py": _row([[1, 0, 1, 1, "SC999", "m", "error", []]])}}).encode(),
    json.dumps({"files": ["pkg/a.py"], "paths": {}, "roots": [],
                "results": {"pkg/a.py": _row([[0, 0, 1, 1, "SC101", "m", "error", []]])}}).encode(),
    json.dumps({"files": ["pkg/a.py"], "paths": {}, "roots": [],
                "results": {"pkg/a.py": _row([[1, 0, 1, 1, "SC101", "m", "error", [[1]]]])}}).encode(),
    b"[" * 100_000 + b"]" * 100_000,
    b"\xff\xfe",
]


@pytest.mark.parametrize("table", FORGED_TABLES, ids=range(len(FORGED_TABLES)))
def test_a_forged_table_is_not_believed(tree: Path, capsys: pytest.CaptureFixture[str], table: bytes) -> None:
    check(capsys, ".")
    _forge_table(tree, table)
    _edit_a(tree)
    expected = check(capsys, "--no-cache", ".")
    assert check(capsys, ".") == expected


def test_a_changed_setting_is_never_an_edit(tree: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # The configuration changes every result: no result of the last run is reused.
    check(capsys, ".")
    read = _texts_read(monkeypatch)
    _configure(tree)
    _edit_a(tree)
    assert check(capsys, ".") == check(capsys, "--no-cache", ".")
    assert {"a.py", "b.py", "main.py"} <= set(read)
