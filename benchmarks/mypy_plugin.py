"""mypy with the shapecheck plugin against mypy without it, on the same files, in one run.

The files are copied into a scratch folder first (mypy refuses to treat files inside
site-packages as the program to check); their imports of jax still resolve to the installed
package, so the workload is that real code and everything it imports. Each run is a fresh mypy process with its own empty cache directory, so both sides analyse
everything (jax's own modules included) from scratch; the two configurations alternate run by
run so drift of the machine affects both alike. Prints the median wall time of each and the
slowdown ratio (target: at most 1.15, issue 12), and beside them the CPU time (mypy and the
processes it waited for: the plugin analyses a large project on a spare core, which shortens
the wall time but not the CPU time).

    python benchmarks/mypy_plugin.py [--runs 3] [PATH]   # default: the installed jax/_src/numpy
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def default_target() -> Path | None:
    spec = importlib.util.find_spec("jax")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "_src" / "numpy"


def run_mypy(target: Path, plugin: bool, scratch: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds for one mypy run from an empty cache, and its amount of output."""
    run_dir = Path(tempfile.mkdtemp(dir=scratch))
    config = run_dir / "mypy.ini"
    config.write_text("[mypy]\n" + ("plugins = shapecheck.plugin\n" if plugin else ""))
    command = [sys.executable, "-m", "mypy", "--config-file", str(config),
               "--cache-dir", str(run_dir / "cache"), "--no-error-summary", str(target)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=run_dir, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(f"mypy failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    lines = done.stdout.strip().splitlines()
    return elapsed, cpu, f"{len(lines)} lines of output"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, help="folder or file (default: jax/_src/numpy)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    target = args.path or default_target()
    if target is None:
        print("jax is not installed; pass a folder", file=sys.stderr)
        return 2
    files = [target] if target.is_file() else sorted(target.rglob("*.py"))
    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in files)
    print(f"target: {target} ({len(files)} files, {lines} lines)", flush=True)
    times: dict[bool, list[float]] = {False: [], True: []}
    cpu_times: dict[bool, list[float]] = {False: [], True: []}
    with tempfile.TemporaryDirectory(prefix="shapecheck-mypy-bench-") as scratch:
        # A package named after its path (`jax_src_numpy`): a top-level `numpy` would shadow numpy.
        workload = Path(scratch) / "workload" / "_".join(target.parts[-3:]).lstrip("_")
        if target.is_file():
            workload.parent.mkdir(parents=True)
            shutil.copy(target, workload)
        else:
            shutil.copytree(target, workload, ignore=shutil.ignore_patterns("__pycache__"))
        for index in range(args.runs):
            for plugin in (False, True) if index % 2 == 0 else (True, False):
                seconds, cpu, output = run_mypy(workload, plugin, Path(scratch))
                times[plugin].append(seconds)
                cpu_times[plugin].append(cpu)
                label = "with plugin" if plugin else "without"
                print(f"run {index + 1} {label:>11}: {seconds:6.2f} s, CPU {cpu:6.2f} s  ({output})",
                      flush=True)
    without = statistics.median(times[False])
    with_plugin = statistics.median(times[True])
    print(f"median without plugin: {without:.2f} s")
    print(f"median with plugin:    {with_plugin:.2f} s")
    print(f"slowdown ratio:        {with_plugin / without:.2f} (target <= 1.15)")
    cpu_without = statistics.median(cpu_times[False])
    cpu_with = statistics.median(cpu_times[True])
    print(f"median CPU without plugin: {cpu_without:.2f} s, with plugin: {cpu_with:.2f} s "
          f"(ratio {cpu_with / cpu_without:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
