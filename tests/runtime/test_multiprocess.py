"""Across processes: JAX's distributed runtime takes a legacy xmap program past one process.

Two processes on this machine (`jax.distributed.initialize` on a free localhost port, 4 CPU
devices each, Gloo for the collectives between them) run programs/legacy_transformer.py under
`shapecheck run`: its ('dp', 'mp') mesh spans both processes ('dp' splits across them), the
pjit'd init, the xmap'd train step with axis_resources and the evaluation run over all 8
devices, and each process must print what a single process with 8 devices prints. Bounded:
every process is killed with its whole process group on failure or after the timeout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .processes import PROGRAMS, free_port, group, numbers, python, results, shape

pytest.importorskip("jax")

PROGRAM = PROGRAMS / "legacy_transformer.py"
PRINTED = ("step ", "eval losses ", "params norm ", "mesh ")
TIMEOUT = 420  # seconds for the three processes together, on a loaded 2-core machine


def test_two_processes_run_a_legacy_xmap_program_over_one_mesh(tmp_path: Path) -> None:
    coordinator = f"localhost:{free_port()}"
    run = ("-m", "shapecheck", "run", "--no-check", str(PROGRAM))
    with group(tmp_path) as runs:
        single = runs.start("single process", python(*run), devices=8)
        processes = [runs.start(f"process {index}", python(*run, "--coordinator", coordinator,
                                                             "--num-processes", "2", "--process-id", str(index)),
                                devices=4)
                     for index in range(2)]
        runs.wait(TIMEOUT)
    expected = results(single.output(), PRINTED)
    assert len(expected) == 6, single.output()
    for process in processes:
        found = results(process.output(), PRINTED)
        assert shape(found) == shape(expected), process.name
        # Gloo sums across processes in its own order: the last bits may differ.
        assert numbers(found) == pytest.approx(numbers(expected), rel=1e-5), process.name


def test_a_program_that_hangs_is_killed_with_its_whole_process_group(tmp_path: Path) -> None:
    """What the test above relies on when a process waits forever for a peer that died."""
    import time

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
