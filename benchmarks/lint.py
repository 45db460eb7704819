"""Lines per second for `shapecheck check` over the installed jax package (real JAX code).

Prints the median of several runs of the whole check (discovery, parsing, analysis, in
parallel worker processes as the CLI runs it) and, side by side, a bare libcst parse of the
same files in one process, which bounds what a libcst-based analyzer can do per core.

    python benchmarks/lint.py [--runs 3] [--jobs N] [PATH]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import libcst as cst

from shapecheck.config import Config
from shapecheck.engine import Engine, tune_gc
from shapecheck.files import discover


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="folder to check (default: the installed jax package)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    if args.path:
        folder = Path(args.path)
    else:
        spec = importlib.util.find_spec("jax")
        if spec is None or spec.origin is None:
            print("jax is not installed; pass a folder", file=sys.stderr)
            return 2
        folder = Path(spec.origin).parent
    tune_gc()
    files = [str(f) for f in discover([folder], Config())]
    lines = sum(Path(f).read_text(encoding="utf-8").count("\n") + 1 for f in files)
    print(f"{len(files)} files, {lines} lines under {folder}")

    check_times, parse_times = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        report = Engine(Config()).check_files(files, args.jobs)
        check_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        for path in files:
            cst.parse_module(Path(path).read_text(encoding="utf-8"))
        parse_times.append(time.perf_counter() - start)
        gc.collect()
    check, parse = statistics.median(check_times), statistics.median(parse_times)
    print(f"shapecheck check: median {check:.2f} s = {lines / check:,.0f} lines/s "
          f"({len(report.diagnostics)} diagnostics, {len(report.errors)} internal errors)")
    print(f"libcst parse, 1 process: median {parse:.2f} s = {lines / parse:,.0f} lines/s")
    print(f"ratio check/parse(1 core): {check / parse:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
