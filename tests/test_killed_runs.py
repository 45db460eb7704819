"""A run that is killed or terminated leaves no process behind.

The workers are forked by multiprocessing's fork server, not by the run itself; without care a
killed run's fork server, resource tracker and workers live on, holding its stdout and stderr
open, so `shapecheck check . | wc -c` never ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_shadowed_modules import descendants

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).parent / "shapecheck"
WORKERS = 2


@pytest.fixture
def workload(tmp_path: Path) -> Path:
    """Enough files that the run is still busy when it is stopped."""
    for copy in range(6):
        shutil.copytree(ROOT / "fixtures", tmp_path / f"copy{copy}")
    return tmp_path


def _busy_run(folder: Path) -> tuple[subprocess.Popen[bytes], set[int]]:
    """A run with its workers started: the process and the processes below it."""
    process = subprocess.Popen([str(SCRIPT), "check", "--no-cache", "--jobs", str(WORKERS), "."],
                               cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    below: set[int] = set()
    # The fork server, the resource tracker and the workers.
    while len(below) < WORKERS + 2:
        assert process.poll() is None, "the run ended before it could be stopped"
        assert time.monotonic() < deadline, f"workers never started: {below}"
        below = descendants(process.pid)
        time.sleep(0.02)
    return process, below


def _gone(pids: set[int], within: float) -> set[int]:
    """The processes of `pids` still alive after waiting up to `within` seconds."""
    deadline = time.monotonic() + within
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        alive = {pid for pid in alive if _alive(pid)}
        time.sleep(0.05)
    return alive


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its parent's wait is missing


def _kill_all(pids: set[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_stopped_run_leaves_no_process_and_closes_its_output(workload: Path,
                                                              how: signal.Signals) -> None:
    process, below = _busy_run(workload)
    started = time.monotonic()
    try:
        process.send_signal(how)
        # What a pipe's reader sees: the end of the output once every holder is gone.
        _out, err = process.communicate(timeout=30)
        left = _gone(below, within=10)
        assert left == set(), f"still running after the run was stopped: {left}"
        assert time.monotonic() - started < 30
        if how == signal.SIGTERM:
            assert process.returncode == 128 + signal.SIGTERM
            assert b"Traceback" not in err, err.decode()
    finally:
        process.kill()
        _kill_all(below)
