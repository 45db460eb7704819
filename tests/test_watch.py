"""`shapecheck check --watch`, run as a user runs it: the command in a subprocess, files edited
while it watches, and only what changed printed after each edit."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic, Span
from shapecheck.watch import changes

FINDING = "import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((5,))\n"


class Watcher:
    def __init__(self, folder: Path, *args: str) -> None:
        env = dict(os.environ, SHAPECHECK_WATCH_INTERVAL="0.1")
        self.process = subprocess.Popen([sys.executable, "-P", "-m", "shapecheck", "check", "--watch", *args],
                                        cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def run_output(self, timeout: float = 60) -> list[str]:
        """The lines of the next run, up to its summary line."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            out.append(line)
            if "watching for changes" in line:
                return out

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(timeout=30)
        finally:
            self.process.kill()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "model.py").write_text(FINDING)
    return tmp_path


def test_watch_prints_what_changed_after_each_edit(project: Path) -> None:
    watcher = Watcher(project, "--no-cache", ".")
    try:
        first = watcher.run_output()
        assert [line[:20] for line in first[:-1]] == ["+ model.py:3:5: SC10"]
        assert "1 diagnostic in 1 file" in first[-1]
        # Code above moves the finding: not a change. A new file with a finding is one.
        (project / "model.py").write_text("import jax\n\n" + FINDING)
        (project / "other.py").write_text(FINDING.replace("(5,)", "(6,)"))
        second = watcher.run_output()
        if len(second) == 1:  # the two writes were seen by two polls
            second = watcher.run_output()
        assert [line[:20] for line in second[:-1]] == ["+ other.py:3:5: SC10"]
        assert "(1 new, 0 gone)" in second[-1]
        (project / "model.py").write_text(FINDING.replace("(5,)", "(4,)"))
        third = watcher.run_output()
        assert [line[:20] for line in third[:-1]] == ["- model.py:5:5: SC10"]
        assert "1 diagnostic in 2 files (0 new, 1 gone)" in third[-1]
    finally:
        assert watcher.stop() == 0  # Ctrl-C ends it quietly


def test_watch_clashes_are_usage_errors(project: Path) -> None:
    result = subprocess.run([sys.executable, "-P", "-m", "shapecheck", "check", "--watch", "--fix"], cwd=project,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2 and "--watch" in result.stderr


def test_a_moved_diagnostic_is_no_change(tmp_path: Path) -> None:
    before = [Diagnostic("m.py", Span(3, 4, 3, 9), Code.BROADCAST_MISMATCH, "m")]
    after = [Diagnostic("m.py", Span(9, 4, 9, 9), Code.BROADCAST_MISMATCH, "m")]
    assert changes(before, after, tmp_path) == ([], [])
    assert changes(before, [], tmp_path) == ([], before)
