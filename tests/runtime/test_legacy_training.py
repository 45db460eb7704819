"""A legacy training script end to end: programs/legacy_transformer.py (mesh-transformer-jax's
structure: the old mesh function, pjit'd init with in_axis_resources, an xmap'd train step
over 'shard'/'batch' on a ('dp', 'mp') mesh, thread_resources) runs under `shapecheck run`,
checked first, on 8 CPU devices, and prints the numbers of:

- the same script after `shapecheck migrate`, under plain python;
- the same model written with today's shard_map (programs/current_transformer.py);
- the script over two processes: JAX's distributed runtime (`jax.distributed.initialize` on a
  free localhost port, 4 CPU devices each, Gloo for the collectives between them) takes its
  ('dp', 'mp') mesh across both ('dp' splits across them), with the pjit'd init, the xmap'd
  train step with axis_resources and the evaluation run over all 8 devices.

The run under `shapecheck run` is the reference of both tests, run once for the module. Every
program is bounded: killed with its whole process group on failure or after the timeout.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from shapecheck.codemods.migrate import migrate_text

from .processes import PROGRAMS, free_port, group, numbers, python, results, shape

pytest.importorskip("jax")

LEGACY = PROGRAMS / "legacy_transformer.py"
CURRENT = PROGRAMS / "current_transformer.py"
PRINTED = ("step ", "eval losses ", "params norm ", "mesh ")
TIMEOUT = 420  # seconds for the programs of one test together, on a loaded 2-core machine


@pytest.fixture(scope="module")
def legacy(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """What the legacy script prints under `shapecheck run` (checked first), in one process with 8 devices."""
    with group(tmp_path_factory.mktemp("legacy")) as runs:
        run = runs.start("shapecheck run", python("-m", "shapecheck", "run", str(LEGACY)), devices=8)
        runs.wait(TIMEOUT)
    printed = results(run.output(), PRINTED)
    assert len(printed) == 6 and printed[-1] == "mesh {'dp': 2, 'mp': 4}", run.output()
    return printed


def test_the_legacy_script_runs_as_written_and_migrated_with_shard_map_s_numbers(
        legacy: list[str], tmp_path: Path) -> None:
    rewrite = migrate_text(str(LEGACY), LEGACY.read_text())
    assert not rewrite.messages, rewrite.messages  # everything it uses has today's form
    migrated = tmp_path / LEGACY.name
    migrated.write_text(rewrite.text)
    with group(tmp_path) as runs:
        started = [runs.start("migrated", python("-W", "error::DeprecationWarning", str(migrated)), devices=8),
                   runs.start("shard_map", python(str(CURRENT)), devices=8)]
        runs.wait(TIMEOUT)
    after_migrate, current = (results(run.output(), PRINTED) for run in started)
    assert len(current) == 6 and current[-1] == "mesh {'dp': 2, 'mp': 4}", current
    for name, lines in (("shapecheck run", legacy), ("migrated", after_migrate)):
        assert shape(lines) == shape(current), name
        assert numbers(lines) == pytest.approx(numbers(current), rel=1e-5), name


def test_two_processes_run_a_legacy_xmap_program_over_one_mesh(legacy: list[str], tmp_path: Path) -> None:
    coordinator = f"localhost:{free_port()}"
    run = ("-m", "shapecheck", "run", "--no-check", str(LEGACY))
    with group(tmp_path) as runs:
        processes = [runs.start(f"process {index}", python(*run, "--coordinator", coordinator,
                                                             "--num-processes", "2", "--process-id", str(index)),
                                devices=4)
                     for index in range(2)]
        runs.wait(TIMEOUT)
    for process in processes:
        found = results(process.output(), PRINTED)
        assert shape(found) == shape(legacy), process.name
        # Gloo sums across processes in its own order: the last bits may differ.
        assert numbers(found) == pytest.approx(numbers(legacy), rel=1e-5), process.name


def test_a_program_that_hangs_is_killed_with_its_whole_process_group(tmp_path: Path) -> None:
    """What the tests above rely on when a process waits forever for a peer that died."""
    hanging = ("import subprocess, sys, time\n"
               "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
               "print(child.pid, flush=True)\n"
               "time.sleep(120)\n")
    with pytest.raises(AssertionError, match="still running after 3 s"), group(tmp_path) as runs:
        run = runs.start("hanging", python("-c", hanging), devices=1)
        runs.wait(3)
    assert run.process.returncode is not None
    child = int(run.output())
    deadline = time.monotonic() + 10
    while _alive(child):  # SIGKILL is delivered at once; the loop only waits for the kernel
        assert time.monotonic() < deadline, f"the hanging program's child {child} outlived it"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    """Running, not a zombie (in a container nobody may reap an orphan for a while)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False
