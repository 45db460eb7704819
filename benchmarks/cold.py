"""A cold check against the parser's floor: `shapecheck check --no-cache` beside `ast.parse`
alone over the same files, on the same number of processes, in one run.

Every checker built on CPython's `ast` parses each file first, so the throughput of
`ast.parse` alone is the ceiling of any of them; issue 27 asks for a cold check at half of it
or better. Both are whole processes (start-up included), alternating run by run so that the
drift of a shared machine touches them alike; the figure to quote is the ratio of medians.

With `--baseline PATH` (another shapecheck, `pip install --no-deps -t PATH`), its cold check
runs in the same rotation: new capabilities must not cost more than 10% cold.

    python benchmarks/cold.py [--runs 5] [--jobs 2] [--baseline PATH] [TARGET]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The bytecode step and the default target are lint.py's (this folder is on the path of a script).
from lint import _compile_bytecode, _installed_jax

# Parses each of the files named on stdin, split over `jobs` processes as the checker splits
# them, and prints nothing: the floor a checker built on `ast` cannot go below.
_PARSE_ONLY = """
import ast, sys
from concurrent.futures import ProcessPoolExecutor

def parse(paths):
    for path in paths:
        with open(path, 'rb') as file:
            ast.parse(file.read(), filename=path)
    return len(paths)

if __name__ == '__main__':
    jobs = int(sys.argv[1])
    paths = sys.stdin.read().split('\\n')
    batches = [paths[index::jobs * 8] for index in range(jobs * 8)]
    if jobs == 1:
        parse(paths)
    else:
        with ProcessPoolExecutor(jobs) as pool:
            sum(pool.map(parse, batches))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", type=Path, help="folder to check (default: the installed jax package)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--baseline", type=Path, metavar="PATH",
                        help="PYTHONPATH of another shapecheck to time cold beside this one")
    args = parser.parse_args()
    target = args.target or _installed_jax(quick=False)
    if target is None:
        print("jax is not installed; pass a folder", file=sys.stderr)
        return 2
    target = target.resolve()  # the runs start in a scratch folder
    _compile_bytecode()
    files = sorted(str(path) for path in target.rglob("*.py"))
    lines = sum(Path(path).read_bytes().count(b"\n") for path in files)
    print(f"target: {target}: {len(files)} files, {lines:,} lines; {args.runs} runs each; "
          f"{args.jobs} processes; {os.cpu_count()} cores; load {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="shapecheck-cold-") as scratch:
        script = Path(scratch) / "parse_only.py"
        script.write_text(_PARSE_ONLY)
        # Run from the scratch folder: `python -m` puts the working folder first on the path,
        # where a source checkout would shadow the baseline's shapecheck.
        runs = {
            "ast.parse alone": lambda: _time([sys.executable, str(script), str(args.jobs)], scratch,
                                             "\n".join(files)),
            "shapecheck check, no cache": lambda: _time(_check(target, args.jobs), scratch),
        }
        if args.baseline is not None:
            runs["baseline check, no cache"] = lambda: _time(_check(target, args.jobs), scratch,
                                                             python_path=args.baseline)
        times: dict[str, list[float]] = {name: [] for name in runs}
        for index in range(args.runs):
            order = list(runs) if index % 2 == 0 else list(reversed(runs))
            for name in order:
                times[name].append(runs[name]())
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        print(f"{name:<28} median {medians[name]:6.2f} s  {lines / medians[name]:>10,.0f} lines/s  "
              f"runs {' '.join(f'{value:.2f}' for value in values)}")
    print(f"check / parser throughput: {medians['ast.parse alone'] / medians['shapecheck check, no cache']:.2f}x "
          "(target: at least 0.5x)")
    if args.baseline is not None:
        print(f"this check / baseline check, time: "
              f"{medians['shapecheck check, no cache'] / medians['baseline check, no cache']:.3f}")
    print(f"load at the end: {os.getloadavg()[0]:.1f}")
    return 0


def _check(target: Path, jobs: int) -> list[str]:
    return [sys.executable, "-m", "shapecheck", "check", "--no-cache", "--jobs", str(jobs), "--format", "json",
            str(target)]


def _time(command: list[str], cwd: str, stdin: str = "", python_path: Path | None = None) -> float:
    env = dict(os.environ)
    if python_path is not None:
        env["PYTHONPATH"] = str(python_path)
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{command[:4]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed


if __name__ == "__main__":
    sys.exit(main())
