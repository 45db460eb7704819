"""The differential benchmark of sharding in types: thousands of random programs over explicit
meshes, run by JAX on 8 CPU devices and checked by shapecheck; prints the confusion matrix.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu \\
        .venv/bin/python benchmarks/explicit_sharding.py [COUNT] [SEED]

Rows are what JAX did at the first statement it refused (ok: it ran every statement), columns
what the checker reported there. Also: statements JAX ran that the checker reported (must be
0), and the inferred shardings compared with `jax.typeof` (wrong must be 0).
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from explicit_sharding import RandomChooser, check, describe, judge, program, run


def main(count: int = 2000, seed: int = 0, show: int = 5) -> int:
    matrix: Counter[tuple[str, str]] = Counter()
    false_programs = 0
    agreed = unknown = wrong = 0
    shown = 0
    for number in range(count):
        built = program(RandomChooser(seed * 1_000_003 + number))
        ran = run(built)
        judged = judge(built, ran, check(built))
        matrix[judged.expected, judged.reported] += 1
        false_programs += bool(judged.false_reports)
        agreed += judged.types_agreed
        unknown += judged.types_unknown
        wrong += len(judged.types_wrong)
        bad = judged.false_reports or judged.types_wrong or (
            judged.expected in ("SC208", "SC209") and judged.reported != judged.expected)
        if bad and shown < show:
            shown += 1
            print(describe(built, judged, ran), end="\n\n")
    columns = ["clean", "SC208", "SC209", "both"]
    print(f"{count} programs (seed {seed})")
    print(f"{'JAX / checker':>14} " + " ".join(f"{c:>7}" for c in columns))
    for row in ["ok", "SC208", "SC209", "other"]:
        print(f"{row:>14} " + " ".join(f"{matrix[row, c]:>7}" for c in columns))
    print(f"programs with a report on a statement JAX ran: {false_programs}")
    print(f"shardings: {agreed} agree with jax.typeof, {unknown} unknown to the checker, {wrong} wrong")
    return 0


if __name__ == "__main__":
    arguments = [int(a) for a in sys.argv[1:]]
    sys.exit(main(*arguments))
