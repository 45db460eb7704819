"""The CI-facing options of `shapecheck check`: --statistics, --exit-zero, --output-file, the
GitLab Code Quality format, and the progress bar (only on a terminal, only for people)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from shapecheck import progress
from shapecheck.cli import main
from shapecheck.engine import Engine

MISMATCHES = (
    "import jax.numpy as jnp\n\n"
    "a = jnp.ones((3, 4)) + jnp.ones((5,))\n"
    "b = jnp.ones((3, 4)) + jnp.ones((5,))\n"
    "c = jnp.ones((2,)).reshape((3,))\n"
)
CLEAN = "import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((4,))\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text(MISMATCHES)
    (tmp_path / "clean.py").write_text(CLEAN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_statistics_counts_per_code(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--statistics")
    assert code == 1
    assert out.splitlines() == [
        "2  SC101  broadcast-mismatch",
        "1  SC105  reshape-mismatch",
        "Found 3 diagnostics in 1 file (2 checked).",
    ]
    code, out, _ = run(capsys, "--statistics", "--format", "json")
    assert code == 1
    assert json.loads(out) == [{"code": "SC101", "name": "broadcast-mismatch", "count": 2},
                               {"code": "SC105", "name": "reshape-mismatch", "count": 1}]
    code, out, _ = run(capsys, "--statistics", "clean.py")
    assert (code, out) == (0, "All checks passed (1 file checked).\n")


def test_statistics_with_a_ci_format_is_a_usage_error(project: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ("sarif", "gitlab", "github"):
        code, out, err = run(capsys, "--statistics", "--format", fmt)
        assert (code, out) == (2, "")
        assert "--statistics" in err and fmt in err


def test_exit_zero_accepts_findings_but_not_unchecked_files(project: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--exit-zero", "--format", "json")
    assert code == 0 and len(json.loads(out)) == 3  # the findings are still reported
    (project / "latin.py").write_bytes(b"s = '\xff\xfe'\n")
    code, out, _ = run(capsys, "--exit-zero", "--format", "json", "latin.py")
    assert code == 2 and [i["code"] for i in json.loads(out)] == ["SC000"]


def test_output_file_gets_what_stdout_would(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, expected, _ = run(capsys, "--format", "sarif")
    code, out, _ = run(capsys, "--format", "sarif", "--output-file", "reports/shapecheck.sarif")
    assert (code, out) == (1, "")
    assert (project / "reports" / "shapecheck.sarif").read_text() == expected
    code, out, _ = run(capsys, "-o", "stats.json", "--statistics", "--format", "json", "--exit-zero")
    assert (code, out) == (0, "")
    assert json.loads((project / "stats.json").read_text())[0]["code"] == "SC101"


def test_an_unwritable_output_file_is_an_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "taken").write_text("a file, not a folder")
    code, out, err = run(capsys, "--output-file", "taken/report.json", "--format", "json")
    assert (code, out) == (2, "")
    assert "cannot write" in err and "taken" in err


def _gitlab(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    code, out, _ = run(capsys, "--format", "gitlab", *args)
    assert code == 1
    issues: list[dict[str, object]] = json.loads(out)
    return issues


def test_gitlab_report(project: Path, capsys: pytest.CaptureFixture[str],
                       monkeypatch: pytest.MonkeyPatch) -> None:
    issues = _gitlab(capsys)
    assert [i["check_name"] for i in issues] == ["SC101", "SC101", "SC105"]
    for issue in issues:
        assert {"description", "check_name", "fingerprint", "severity", "location"} <= set(issue)
        assert issue["severity"] == "major"
        assert issue["location"] == {"path": "pkg/model.py", "lines": {"begin": issues.index(issue) + 3,
                                                                       "end": issues.index(issue) + 3}}
    fingerprints = [i["fingerprint"] for i in issues]
    # Two identical findings in one file: GitLab keeps only the first issue of a fingerprint.
    assert len(set(fingerprints)) == 3
    # Stable across runs, and from wherever the run starts: paths are relative to the root.
    monkeypatch.chdir(project / "pkg")
    again = _gitlab(capsys, "model.py")
    assert [i["fingerprint"] for i in again] == fingerprints
    assert {i["location"]["path"] for i in again} == {"pkg/model.py"}  # type: ignore[index]


def test_gitlab_fingerprints_survive_moved_code(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {i["fingerprint"] for i in _gitlab(capsys)}
    model = project / "pkg" / "model.py"
    model.write_text(model.read_text().replace("\n\n", "\n\n# a comment moves every line down\n\n", 1))
    after = _gitlab(capsys)
    assert {i["fingerprint"] for i in after} == before
    assert after[0]["location"]["lines"]["begin"] == 5  # type: ignore[index]


def test_gitlab_marks_an_unchecked_file_critical(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "latin.py").write_bytes(b"s = '\xff\xfe'\n")
    code, out, _ = run(capsys, "--format", "gitlab", "latin.py")
    assert code == 2
    assert [(i["check_name"], i["severity"]) for i in json.loads(out)] == [("SC000", "critical")]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _many_files(project: Path, count: int = progress.MIN_FILES) -> None:
    for index in range(count):
        (project / f"copy{index}.py").write_text(CLEAN)


def test_progress_bar_on_a_terminal_for_text_output(project: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _many_files(project)
    monkeypatch.setattr(progress, "DELAY_S", 0)
    monkeypatch.delenv("TERM", raising=False)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["check", "--jobs", "1"]) == 1
    assert "shapecheck" in terminal.getvalue() and "file" in terminal.getvalue()
    out = capsys.readouterr().out
    assert "Found 3 diagnostics" in out and "\r" not in out  # stdout untouched


@pytest.mark.parametrize("args", [["--format", "json"], ["--format", "sarif"], ["--format", "gitlab"],
                                  ["--no-progress"], ["clean.py"]])
def test_no_progress_bar_for_machines_small_runs_or_when_asked(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: list[str],
) -> None:
    _many_files(project)
    monkeypatch.setattr(progress, "DELAY_S", 0)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    main(["check", "--jobs", "1", *args])
    assert terminal.getvalue() == ""


def test_no_progress_bar_when_stderr_is_not_a_terminal(project: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _many_files(project)
    monkeypatch.setattr(progress, "DELAY_S", 0)
    code, _, err = run(capsys, "--jobs", "1")
    assert (code, err) == (1, "")
    assert not progress.wanted(100, True, io.StringIO())
    assert progress.wanted(100, True, _Terminal())
    monkeypatch.setenv("TERM", "dumb")
    assert not progress.wanted(100, True, _Terminal())


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_engine_reports_every_file_once_also_from_workers(project: Path, jobs: int) -> None:
    _many_files(project, 12)
    paths = sorted(str(p) for p in project.rglob("*.py"))
    seen: list[str] = []
    report = Engine().check_files(paths, jobs, lambda result: seen.append(result.path))
    assert sorted(seen) == sorted(r.path for r in report.results) == paths


def test_a_run_without_a_bar_never_imports_tqdm(project: Path) -> None:
    import subprocess
    import sys

    _many_files(project)
    # Not a terminal (a pipe): no bar, so the light path stays light.
    script = ("import sys\nfrom shapecheck.cli import main\n"
              "code = main(['check', '--jobs', '1'])\n"
              "assert 'tqdm' not in sys.modules, 'tqdm imported'\nassert code == 1\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=project, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
