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


# Ctrl-C as a terminal delivers it. A child inherits SIGINT ignored or blocked, and pytest's
# worker, after hundreds of tests and the libraries they load, does not certainly have it as a
# shell's foreground command does: twice in three full runs the watcher outlived its SIGINT, never
# when this file ran alone. The watcher starts with SIGINT raising KeyboardInterrupt, unblocked.
_AS_IN_A_TERMINAL = ("import runpy, signal, sys\n"
                     "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})\n"
                     "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
                     "sys.argv[0] = 'shapecheck'\n"
                     "runpy.run_module('shapecheck', run_name='__main__', alter_sys=True)\n")


class Watcher:
    def __init__(self, folder: Path, *args: str) -> None:
        env = dict(os.environ, SHAPECHECK_WATCH_INTERVAL="0.1")
        # faulthandler: a watcher that outlives Ctrl-C prints where each of its threads stands.
        self.process = subprocess.Popen([sys.executable, "-P", "-X", "faulthandler", "-c", _AS_IN_A_TERMINAL,
                                         "check", "--watch", *args],
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
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running 30 s after Ctrl-C:\n{self._state()}") from None
        finally:
            self.process.kill()

    def _state(self) -> str:
        """The signal masks of a watcher that did not stop, and its threads' tracebacks."""
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text().splitlines()
        except OSError:
            status = []
        masks = "\n".join(line for line in status if line.startswith(("State", "Sig", "Shd", "Threads")))
        mine = Path(f"/proc/self/task/{threading.get_native_id()}/status")
        if mine.exists():  # what this test's process would hand a child
            masks += "\npytest: " + " ".join(line for line in mine.read_text().splitlines()
                                             if line.startswith(("SigBlk", "SigIgn")))
        self.process.send_signal(signal.SIGABRT)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return f"{masks}\n(no traceback within 10 s of SIGABRT)"
        assert self.process.stderr is not None
        return f"{masks}\n{self.process.stderr.read()[-6000:]}"


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
