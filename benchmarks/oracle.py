"""JAX as the oracle, at scale: thousands of generated programs over every map, spec and
collective the checker models, each run on JAX (8 CPU devices, traced) and checked in this
process; prints the confusion matrix per API and per code, and every disagreement in full.

    python benchmarks/oracle.py [--examples N] [--seed S] [--show K]

The programs and their judging are tests/oracle.py's (the test suite runs a bounded number of
the same in `make test`). Exit status 1 when any program is a false report or a miss.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CELLS = ("accepted", "caught", "false report", "miss", "internal error")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=5, help="disagreements printed per API")
    args = parser.parse_args()

    import warnings

    from hypothesis import HealthCheck, Phase, given, seed, settings

    from tests.oracle import Verdict, judge, programs

    warnings.simplefilter("ignore")
    verdicts: list[Verdict] = []

    @seed(args.seed)
    @settings(max_examples=args.examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def collect(program: object) -> None:
        verdicts.append(judge(program))  # type: ignore[arg-type]

    started = time.monotonic()
    collect()
    elapsed = time.monotonic() - started
    by_api: dict[str, Counter[str]] = {}
    by_code: dict[str, Counter[str]] = {}
    for verdict in verdicts:
        by_api.setdefault(verdict.program.api, Counter())[verdict.cell] += 1
        for found in verdict.codes:
            by_code.setdefault(found, Counter())[verdict.cell] += 1
    print(f"{len(verdicts)} programs in {elapsed:.0f}s\n")
    for title, table in (("API", by_api), ("code", by_code)):
        print(f"{title:26}" + "".join(f"{cell:>14}" for cell in CELLS))
        for key in sorted(table):
            print(f"{key:26}" + "".join(f"{table[key][cell]:>14}" for cell in CELLS))
        total = Counter[str]()
        for counts in table.values():
            total.update(counts)
        if title == "API":
            print(f"{'all':26}" + "".join(f"{total[cell]:>14}" for cell in CELLS))
        print()
    wrong = [v for v in verdicts if v.cell in ("false report", "miss", "internal error")]
    shown = Counter[str]()
    for verdict in wrong:
        if shown[verdict.program.api] < args.show:
            shown[verdict.program.api] += 1
            print(verdict, "\n")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
