"""Programs run in subprocesses side by side, bounded in time and never left behind.

Each program runs in a process group of its own, writing to files (no pipe can fill and stall
it); when anything fails or the deadline passes, every group still running is killed whole.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.xla_settings import xla_flags

ROOT = Path(__file__).parents[2]
PROGRAMS = Path(__file__).parent / "programs"
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?")


@dataclass
class Run:
    """One program's process and the files its output goes to."""

    name: str
    process: subprocess.Popen[bytes]
    stdout: Path
    stderr: Path

    def output(self) -> str:
        return self.stdout.read_text()

    def failure(self) -> str:
        return f"{self.name} exited {self.process.returncode}:\n{self.stderr.read_text()[-4000:]}"


class Group:
    """Start programs with `start`, then `wait` for them all by one deadline."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.runs: list[Run] = []

    def start(self, name: str, command: Sequence[str], devices: int, env: Mapping[str, str] = {}) -> Run:
        """`command` with `devices` simulated CPU devices, in a process group of its own."""
        environment = {**os.environ, "XLA_FLAGS": xla_flags(devices),
                       "JAX_PLATFORMS": "cpu", **env,
                       "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        stdout, stderr = self.folder / f"{name}.out", self.folder / f"{name}.err"
        with stdout.open("wb") as out, stderr.open("wb") as err:
            process = subprocess.Popen(list(command), env=environment, cwd=ROOT, stdout=out, stderr=err,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        run = Run(name, process, stdout, stderr)
        self.runs.append(run)
        return run

    def wait(self, timeout: float) -> None:
        """Every program's exit within `timeout` seconds; AssertionError naming the first that failed."""
        deadline = time.monotonic() + timeout
        for run in self.runs:
            try:
                run.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise AssertionError(f"{run.name} still running after {timeout:.0f} s:\n"
                                     f"{run.stderr.read_text()[-4000:]}") from None
            if run.process.returncode != 0:
                raise AssertionError(run.failure())

    def kill(self) -> None:
        """Kill the process group of every program still running (and whatever it started)."""
        for run in self.runs:
            if run.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(run.process.pid, signal.SIGKILL)
                run.process.wait()


@contextlib.contextmanager
def group(folder: Path) -> Iterator[Group]:
    """A Group whose programs are all gone when the block ends, however it ends."""
    started = Group(folder)
    try:
        yield started
    finally:
        started.kill()


def python(*args: str) -> list[str]:
    return [sys.executable, *args]


def free_port() -> int:
    """A localhost TCP port nobody listens on now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def results(output: str, prefixes: Sequence[str]) -> list[str]:
    """The lines of a program's output that start with one of `prefixes` (not JAX's or Gloo's logs)."""
    return [line for line in output.splitlines() if line.startswith(tuple(prefixes))]


def numbers(lines: Sequence[str]) -> list[float]:
    return [float(n) for line in lines for n in _NUMBER.findall(line)]


def shape(lines: Sequence[str]) -> list[str]:
    """The lines with every number replaced: what must match exactly."""
    return [_NUMBER.sub("#", line) for line in lines]
