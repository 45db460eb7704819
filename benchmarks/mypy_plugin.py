"""mypy with the shapecheck plugin against mypy without it, on the same files, in one run.

The files are copied into a scratch folder first (mypy refuses to treat files inside
site-packages as the program to check); their imports of jax still resolve to the installed
package, so the workload is that real code and everything it imports. shapecheck's own modules
are on mypy's path, as an installed shapecheck's are, so whatever of them the plugin has mypy
import is analysed too. Each run is a fresh mypy
process with its own empty cache directory, so both sides analyse everything (jax's own modules
included) from scratch; the two configurations alternate run by run so drift of the machine
affects both alike. Prints the median wall time of each and the slowdown ratio (target: at most
1.05, issue 27), and beside them the CPU time (mypy and the processes it waited for: the plugin
analyses a large project on a spare core, which shortens the wall time but not the CPU time).

Two whole mypy runs differ by 10-25% on a shared machine with nothing else changed, more than
the plugin costs, so the runs with the plugin also time the plugin itself from inside mypy's
process (`plugin_share.py`: its set-up, every hook lookup and call, the thread that receives the
worker's analyses). That share of the run does not drift with the machine, and gives the
slowdown the plugin causes: the run's time over the same time without the plugin's part.

    python benchmarks/mypy_plugin.py [--runs 3] [PATH]   # default: the installed jax/_src/numpy
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARE = Path(__file__).resolve().parent / "plugin_share.py"


def default_target() -> Path | None:
    spec = importlib.util.find_spec("jax")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "_src" / "numpy"


def run_mypy(target: Path, plugin: bool, scratch: Path) -> tuple[float, float, str, float | None]:
    """Wall and CPU seconds for one mypy run from an empty cache, its amount of output, and (with
    the plugin) the seconds mypy's process spent in the plugin."""
    run_dir = Path(tempfile.mkdtemp(dir=scratch))
    config = run_dir / "mypy.ini"
    # shapecheck's own modules on mypy's path, as installed (mypy cannot see through the editable
    # install's import hook): the modules the plugin has mypy import are analysed, as a user's are.
    config.write_text(f"[mypy]\nmypy_path = {ROOT}, {ROOT / 'stubs'}\n" + ("plugins = shapecheck.plugin\n" if plugin else ""))
    arguments = ["--config-file", str(config), "--cache-dir", str(run_dir / "cache"), "--no-error-summary",
                 str(target)]
    command = [sys.executable, *([str(SHARE)] if plugin else ["-m", "mypy"]), *arguments]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=run_dir, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(f"mypy failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    if not plugin:
        return elapsed, cpu, f"{len(done.stdout.strip().splitlines())} lines of output", None
    share = json.loads(done.stdout.strip().splitlines()[-1])
    return elapsed, cpu, f"{share['lines']} lines of output", share["hooks"] + share["thread_cpu"]


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
    shares: list[float] = []  # the plugin's part of each run with it, over the run's time without it
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
                seconds, cpu, output, inside = run_mypy(workload, plugin, Path(scratch))
                times[plugin].append(seconds)
                cpu_times[plugin].append(cpu)
                label = "with plugin" if plugin else "without"
                part = ""
                if inside is not None:
                    shares.append(seconds / (seconds - inside))
                    part = f", {inside:.2f} s of it in the plugin"
                print(f"run {index + 1} {label:>11}: {seconds:6.2f} s, CPU {cpu:6.2f} s{part}  ({output})",
                      flush=True)
    without = statistics.median(times[False])
    with_plugin = statistics.median(times[True])
    print(f"median without plugin: {without:.2f} s")
    print(f"median with plugin:    {with_plugin:.2f} s")
    print(f"slowdown ratio:        {with_plugin / without:.2f} (target <= 1.05)")
    print(f"slowdown from the plugin's own time in mypy's process: {statistics.median(shares):.3f} "
          f"(median; runs {', '.join(f'{share:.3f}' for share in shares)})")
    cpu_without = statistics.median(cpu_times[False])
    cpu_with = statistics.median(cpu_times[True])
    print(f"median CPU without plugin: {cpu_without:.2f} s, with plugin: {cpu_with:.2f} s "
          f"(ratio {cpu_with / cpu_without:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
