"""Varying manual axes (SC210) against JAX: the confusion matrix over thousands of programs.

Each program is a random shard_map body (`tests/vma_programs.py`: random meshes, in_specs,
partial `axis_names=`, `check_vma=`, collectives and `lax.pcast`, loops and branches whose
carries and outputs may vary over other axes than they should). JAX traces it with
`jax.eval_shape` (no compile) and says whether it refuses it for its varying axes; the checker
says whether it reports SC210. The script prints the matrix (JAX's verdict by row, the checker's
by column; `other` is any other refusal or code), the disagreeing programs (the first few in
full), and, for each program the checker refuses, whether `check --fix`'s rewrite runs on JAX.

    python benchmarks/vma_differential.py [--programs 2000] [--seed 0] [--show 3] [--no-fixes]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.vma_programs import Program, checked, fixed, verdict

VERDICTS = ("vma", "ok", "other")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=3, help="disagreements to print in full")
    parser.add_argument("--no-fixes", action="store_true", help="skip running the fixed programs")
    args = parser.parse_args()
    matrix: Counter[tuple[str, str]] = Counter()
    fixes: Counter[str] = Counter()
    shown = 0
    start = time.perf_counter()
    for seed in range(args.seed, args.seed + args.programs):
        source = Program(random.Random(seed).choice).source()
        jax_says, error = verdict(source)
        we_say, found = checked(source)
        matrix[jax_says, we_say] += 1
        if jax_says != we_say and shown < args.show:
            shown += 1
            print(f"--- seed {seed}: JAX {jax_says} ({error}), checker {we_say}\n{source}" + "\n".join(found) + "\n")
        if we_say == "vma" and not args.no_fixes:
            after = fixed(source)
            fixes["runs" if checked(after)[0] == "ok" and verdict(after)[0] == "ok" else "fails"] += 1
    elapsed = time.perf_counter() - start
    print(f"{args.programs} programs (seeds {args.seed}..{args.seed + args.programs - 1}) in {elapsed:.0f} s\n")
    width = 10
    print(" " * 12 + "checker: " + "".join(f"{v:>{width}}" for v in VERDICTS))
    for row in VERDICTS:
        print(f"JAX {row:>7}: " + " " * 9 + "".join(f"{matrix[row, column]:>{width}}" for column in VERDICTS))
    agree = sum(matrix[v, v] for v in VERDICTS)
    print(f"\nagree: {agree}/{args.programs}  (SC210 where JAX accepts: {matrix['ok', 'vma']}, "
          f"silent where JAX refuses for varying axes: {matrix['vma', 'ok']})")
    if fixes:
        print(f"fixed programs that check clean and run on JAX: {fixes['runs']}/{sum(fixes.values())}")
    return 0 if agree == args.programs and not fixes["fails"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
