"""Turning the checker on over an existing codebase: `--add-noqa`, SC006 (unused suppressions)
and `--baseline`, run as a user runs them (the `shapecheck` command in a subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic, Span
from shapecheck.noqa import with_suppressions

BACKLOG = textwrap.dedent('''\
    import jax.numpy as jnp

    x = jnp.ones((3, 4)) + jnp.ones((5,))
    y = jnp.ones((3, 4)) + jnp.ones((6,))  # a comment stays
    z = jnp.ones((3, 4)) + jnp.ones((7,))  # shapecheck: ignore[SC102]
    s = """abc
    """ + jnp.ones((3, 4)) + jnp.ones((2,))
    ok = jnp.ones((3, 4)) + jnp.ones((4,))
    ''')


def shapecheck(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "shapecheck", *args], cwd=folder,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "model.py").write_text(BACKLOG)
    return tmp_path


def _codes(result: subprocess.CompletedProcess[str]) -> list[tuple[int, str]]:
    return [(item["line"], item["code"]) for item in json.loads(result.stdout)]


def test_add_noqa_silences_the_backlog_and_the_next_run_passes(project: Path) -> None:
    before = shapecheck(project, "check", "--format", "json", "model.py")
    assert before.returncode == 1
    assert _codes(before) == [(3, "SC101"), (4, "SC101"), (5, "SC101"), (5, "SC006"), (6, "SC101")]
    added = shapecheck(project, "check", "--add-noqa", "model.py")
    assert added.returncode == 0, added.stderr
    assert added.stdout == "" and "Added 4 suppressions in 1 file." in added.stderr
    text = (project / "model.py").read_text()
    assert "x = jnp.ones((3, 4)) + jnp.ones((5,))  # shapecheck: ignore[SC101]\n" in text
    assert "# a comment stays  # shapecheck: ignore[SC101]\n" in text  # after the other comment
    assert "# shapecheck: ignore[SC102, SC101]\n" in text  # merged into the existing one
    # The string's first line would take the comment as text: it goes on the last line.
    assert 's = """abc\n""" + jnp.ones((3, 4)) + jnp.ones((2,))  # shapecheck: ignore[SC101]\n' in text
    assert "ok = jnp.ones((3, 4)) + jnp.ones((4,))\n" in text
    assert len(text.splitlines()) == len(BACKLOG.splitlines())  # no line broken or joined
    # What is left is the suppression that was already stale: SC006 says to delete it.
    after = shapecheck(project, "check", "--format", "json", "model.py")
    assert _codes(after) == [(5, "SC006")]
    again = shapecheck(project, "check", "--add-noqa", "model.py")
    assert "Added 0 suppressions" in again.stderr and (project / "model.py").read_text() == text


def test_add_noqa_keeps_encoding_and_line_endings(project: Path) -> None:
    source = "# -*- coding: latin-1 -*-\r\nimport jax.numpy as jnp\r\nname = 'é'\r\nx = jnp.ones((3,)) + jnp.ones((4,))\r\n"
    (project / "latin.py").write_bytes(source.encode("latin-1"))
    assert shapecheck(project, "check", "--add-noqa", "latin.py").returncode == 0
    expected = source.replace("jnp.ones((4,))\r\n", "jnp.ones((4,))  # shapecheck: ignore[SC101]\r\n")
    assert (project / "latin.py").read_bytes() == expected.encode("latin-1")
    assert shapecheck(project, "check", "latin.py").returncode == 0


def test_add_noqa_clashes_with_stdin_and_baseline_are_usage_errors(project: Path) -> None:
    assert shapecheck(project, "check", "--add-noqa", "--stdin-filename", "model.py", "-").returncode == 2
    result = shapecheck(project, "check", "--add-noqa", "--baseline", "b.json", "model.py")
    assert result.returncode == 2 and "--add-noqa" in result.stderr


def test_with_suppressions_reaches_neither_line_of_a_string_it_ends_inside() -> None:
    text = 'x = f(\n    """a\n    b""")\n'
    inside = Diagnostic("m.py", Span(2, 4, 3, 8), Code.BROADCAST_MISMATCH, "m")
    new, count, left = with_suppressions(text, [inside])
    assert (new, count) == ('x = f(\n    """a\n    b""")  # shapecheck: ignore[SC101]\n', 1)
    assert left == []
    bare = "x = 1  # shapecheck: ignore\n"
    assert with_suppressions(bare, [Diagnostic("m.py", Span(1, 0, 1, 1), Code.BROADCAST_MISMATCH, "m")])[:2] == (bare, 0)
    continued = "x = 1 + \\\n    2\n"
    d = Diagnostic("m.py", Span(1, 0, 1, 1), Code.BROADCAST_MISMATCH, "m")
    assert with_suppressions(continued, [d]) == (continued, 0, [d])


def test_unused_suppressions_are_sc006_and_respect_select(project: Path) -> None:
    (project / "model.py").write_text(
        "import jax.numpy as jnp\n\n"
        "a = jnp.ones((3, 4))  # shapecheck: ignore[SC101, SC999]\n"
        "b = jnp.ones((3, 4))  # shapecheck: ignore\n"
        "c = jnp.ones((3, 4))  # shapecheck: ignore[SC105, SC006]\n"
        "d = jnp.ones((3, 4))  # shapecheck: ignore[SC301]\n")
    result = shapecheck(project, "check", "--format", "json", "model.py")
    found = {(item["line"], item["code"], item["severity"]) for item in json.loads(result.stdout)}
    assert found == {(3, "SC006", "warning"), (4, "SC006", "warning"), (6, "SC006", "warning")}
    messages = {item["line"]: item["message"] for item in json.loads(result.stdout)}
    assert "SC101 is not reported" in messages[3] and "SC999 is not a shapecheck code" in messages[3]
    # A code the run does not select is not stale in that run.
    selected = shapecheck(project, "check", "--format", "json", "--select", "SC0,SC1", "model.py")
    assert {line for line, _ in _codes(selected)} == {3, 4}
    assert shapecheck(project, "check", "--ignore", "SC006", "model.py").returncode == 0


def test_a_file_that_does_not_parse_reports_no_unused_suppression(project: Path) -> None:
    (project / "model.py").write_text("import jax\nx = 1  # shapecheck: ignore[SC101]\ndef f(:\n")
    assert _codes(shapecheck(project, "check", "--format", "json", "model.py")) == [(3, "SC004")]


def test_baseline_reports_only_new_diagnostics_and_survives_moved_lines(project: Path) -> None:
    written = shapecheck(project, "check", "--baseline", "shapecheck-baseline.json")
    assert written.returncode == 0 and "wrote 5 diagnostics" in written.stderr
    data = json.loads((project / "shapecheck-baseline.json").read_text())
    assert {(e["path"], e["code"]) for e in data["diagnostics"]} == {("model.py", "SC101"), ("model.py", "SC006")}
    assert shapecheck(project, "check", "--baseline", "shapecheck-baseline.json").returncode == 0
    # Code above moves every line; one new finding is all that is reported.
    moved = "import jax\n\n\n" + BACKLOG + "w = jnp.ones((3, 4)) + jnp.ones((9,))\n"
    (project / "model.py").write_text(moved)
    result = shapecheck(project, "check", "--format", "json", "--baseline", "shapecheck-baseline.json")
    assert result.returncode == 1
    assert _codes(result) == [(12, "SC101")]
    # Fixing a baselined finding leaves an entry that no longer occurs: the run says so.
    (project / "model.py").write_text(moved.replace("jnp.ones((5,))", "jnp.ones((4,))"))
    result = shapecheck(project, "check", "--format", "json", "--baseline", "shapecheck-baseline.json")
    assert "1 entry of the baseline" in result.stderr and "--update-baseline" in result.stderr
    updated = shapecheck(project, "check", "--baseline", "shapecheck-baseline.json", "--update-baseline")
    assert updated.returncode == 0 and "wrote 5 diagnostics" in updated.stderr
    assert shapecheck(project, "check", "--baseline", "shapecheck-baseline.json").returncode == 0


def test_baseline_keeps_files_not_checked_and_refuses_a_foreign_file(project: Path) -> None:
    (project / "latin.py").write_bytes(b"import jax\nx = '\xe9'\n")
    assert shapecheck(project, "check", "--baseline", "b.json").returncode == 2  # written, but SC000
    assert all(e["code"] != "SC000" for e in json.loads((project / "b.json").read_text())["diagnostics"])
    result = shapecheck(project, "check", "--format", "json", "--baseline", "b.json")
    assert result.returncode == 2 and [code for _, code in _codes(result)] == ["SC000"]
    (project / "b.json").write_text("[]")
    result = shapecheck(project, "check", "--baseline", "b.json")
    assert result.returncode == 2 and "not a shapecheck baseline" in result.stderr
    assert shapecheck(project, "check", "--update-baseline").returncode == 2  # needs --baseline
