"""Fixes: `check --fix`, `--diff` and `--unsafe-fixes` through the command, and the mechanism a
rule uses to offer one (libcst replacements; safe or unsafe; overlapping fixes in later passes)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from shapecheck import fixes
from shapecheck.api import check_source
from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic
from shapecheck.fixes import Applicability, Fix, Source

STALE = textwrap.dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((3, 4)) + jnp.ones((5,))  # shapecheck: ignore[SC101, SC102]
    y = jnp.ones((3, 4))  # shapecheck: ignore
    z = jnp.ones((3, 4))  # keep this  # shapecheck: ignore[SC999]
    # shapecheck: ignore[SC105]
    w = jnp.ones((3, 4)) + jnp.ones((6,))
    """)

FIXED = textwrap.dedent("""\
    import jax.numpy as jnp

    x = jnp.ones((3, 4)) + jnp.ones((5,))  # shapecheck: ignore[SC101]
    y = jnp.ones((3, 4))
    z = jnp.ones((3, 4))  # keep this
    w = jnp.ones((3, 4)) + jnp.ones((6,))
    """)


def shapecheck(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "shapecheck", *args], cwd=folder,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "model.py").write_text(STALE)
    return tmp_path


def test_diff_shows_the_fixes_and_writes_nothing(project: Path) -> None:
    result = shapecheck(project, "check", "--diff", "model.py")
    assert result.returncode == 1
    assert "\n-y = jnp.ones((3, 4))  # shapecheck: ignore\n" in result.stdout
    assert "\n+y = jnp.ones((3, 4))\n" in result.stdout
    assert "Would fix 4 diagnostics in 1 file." in result.stderr
    assert (project / "model.py").read_text() == STALE


def test_fix_applies_the_safe_fixes_and_reports_what_is_left(project: Path) -> None:
    result = shapecheck(project, "check", "--fix", "--format", "concise", "model.py")
    assert (project / "model.py").read_text() == FIXED
    assert "Fixed 4 diagnostics in 1 file." in result.stderr
    assert result.returncode == 1  # the broadcast on the last line has no fix
    assert [line.split(": ")[1].split()[0] for line in result.stdout.splitlines()[:-1]] == ["SC101"]
    again = shapecheck(project, "check", "--diff", "model.py")
    assert again.returncode == 0 and again.stdout == ""


def test_fix_options_that_clash_are_usage_errors(project: Path) -> None:
    assert shapecheck(project, "check", "--unsafe-fixes", "model.py").returncode == 2
    assert shapecheck(project, "check", "--fix", "--add-noqa", "model.py").returncode == 2
    assert shapecheck(project, "check", "--fix", "--stdin-filename", "model.py", "-").returncode == 2


def test_the_fix_command_is_check_fix(project: Path) -> None:
    shown = shapecheck(project, "fix", "--diff", "model.py")
    assert (shown.returncode, shown.stdout, shown.stderr) == _outcome(shapecheck(project, "check", "--diff", "model.py"))
    assert "\n+y = jnp.ones((3, 4))\n" in shown.stdout
    assert (project / "model.py").read_text() == STALE
    result = shapecheck(project, "fix", "--format", "concise", "model.py")
    assert (project / "model.py").read_text() == FIXED
    assert "Fixed 4 diagnostics in 1 file." in result.stderr
    assert result.returncode == 1  # what has no fix is reported, as check --fix does
    assert [line.split(": ")[1].split()[0] for line in result.stdout.splitlines()[:-1]] == ["SC101"]
    unsafe = shapecheck(project, "fix", "--unsafe-fixes", "--diff", "model.py")
    assert (unsafe.returncode, unsafe.stdout) == (0, "")  # nothing left to fix, safe or not
    # Options that cannot go with fixing are not options of `fix`.
    for option in ("--add-noqa", "--watch", "--stdin-filename=model.py", "--fix"):
        refused = shapecheck(project, "fix", option, "model.py")
        assert refused.returncode == 2 and "unrecognized arguments" in refused.stderr, option


def _outcome(result: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    return result.returncode, result.stdout, result.stderr


def _widen(diagnostic: Diagnostic, source: Source) -> Fix | None:
    """A stand-in unsafe fix for SC101: `jnp.ones((5,))` becomes `jnp.ones((4,))`."""
    for node in source.nodes_on_line(diagnostic.span.line, cst.Integer):
        assert isinstance(node, cst.Integer)
        if node.value == "5":
            return Fix("Use 4", Applicability.UNSAFE, ((node, node.with_changes(value="4")),))
    return None


def test_unsafe_fixes_apply_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    offered = {**fixes.fixers(), Code.BROADCAST_MISMATCH: _widen}
    monkeypatch.setattr(fixes, "fixers", lambda: offered)
    text = "import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((5,))\n"
    found = list(check_source("m.py", text))
    safe = fixes.apply("m.py", text, found, unsafe=False)
    assert (safe.text, safe.fixed, safe.unsafe_left) == (text, 0, 1)
    unsafe = fixes.apply("m.py", text, found, unsafe=True)
    assert unsafe.text == text.replace("(5,)", "(4,)") and unsafe.titles == ["Use 4"]
    assert list(check_source("m.py", unsafe.text)) == []


def test_overlapping_fixes_wait_for_the_next_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    def whole_line(diagnostic: Diagnostic, source: Source) -> Fix | None:
        statement = source.nodes_on_line(diagnostic.span.line, cst.SimpleStatementLine)[0]
        return Fix("Delete the line", Applicability.SAFE, ((statement, cst.RemovalSentinel.REMOVE),))

    offered = {Code.BROADCAST_MISMATCH: _widen_safe, Code.UNUSED_SUPPRESSION: whole_line}
    monkeypatch.setattr(fixes, "fixers", lambda: offered)
    text = "import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((5,))  # shapecheck: ignore[SC102]\n"
    found = list(check_source("m.py", text))
    assert {d.code for d in found} == {Code.BROADCAST_MISMATCH, Code.UNUSED_SUPPRESSION}
    applied = fixes.apply("m.py", text, found, unsafe=False)
    assert applied.fixed == 1  # the second fix's node is inside (or around) the first's


def _widen_safe(diagnostic: Diagnostic, source: Source) -> Fix | None:
    fix = _widen(diagnostic, source)
    return Fix(fix.title, Applicability.SAFE, fix.replacements) if fix is not None else None


def test_the_rules_that_offer_fixes_are_found_in_their_modules() -> None:
    assert Code.UNUSED_SUPPRESSION in fixes.fixers()
