"""Whole-process timings of `shapecheck check` against mypy on the same files, in one run.

The target (default: the installed jax package) is copied into a scratch folder, so files can
be touched without touching the installation, and every measurement is a fresh process, from
start to exit, as a pre-commit hook or a CI step would run it:

- cold, with 1 and with 2 workers (an empty result cache: analysing, and writing the cache);
- warm, nothing changed since the last run;
- one file changed (a statement appended: its code changes, so it is analysed again), and one
  module that others import changed so;
- one small file alone, unchanged since the last run and changed;
- mypy with its default settings (`--follow-imports=normal`, a fresh cache) on the same files.

shapecheck's own modules are compiled to bytecode first, as installing a wheel leaves them.

Each figure is the median of `--runs` runs; the cold configurations alternate run by run so
the drift of a shared machine affects them alike. `--baseline PATH` also times another shapecheck
(installed with `pip install --no-deps -t PATH`) beside this one: the cold check without any
cache, alternating with this one's, and the warm runs, each with its own cache, in turn.

    python benchmarks/lint.py [--runs 3] [--quick] [--no-mypy] [--baseline PATH] [TARGET]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", type=Path, help="folder to check (default: the installed jax package)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold-runs", type=int, help="runs of the cold checks and mypy (default: --runs)")
    parser.add_argument("--quick", action="store_true",
                        help="one run each, jax/_src/numpy only by default, no mypy: for iterating")
    parser.add_argument("--no-mypy", action="store_true", help="skip the mypy comparison")
    parser.add_argument("--baseline", type=Path, metavar="PATH",
                        help="PYTHONPATH of another shapecheck to time cold beside this one")
    args = parser.parse_args()
    target = args.target or _installed_jax(args.quick)
    if target is None:
        print("jax is not installed; pass a folder", file=sys.stderr)
        return 2
    runs = 1 if args.quick else args.runs
    _compile_bytecode()
    cold_runs = 1 if args.quick else args.cold_runs or runs
    with tempfile.TemporaryDirectory(prefix="shapecheck-lint-bench-") as scratch:
        bench = _Bench(target, Path(scratch))
        print(f"target: {target}: {len(bench.files)} files, {bench.lines:,} lines; {runs} runs each; "
              f"{os.cpu_count()} cores", flush=True)
        bench.interpreter(runs)
        bench.cold(cold_runs, args.baseline)
        bench.incremental(runs, args.baseline)
        # A tenth of a second each, against this machine's +-20 ms of noise: more runs for a median.
        bench.small_file(max(runs, 9))
        if not (args.quick or args.no_mypy):
            bench.mypy(cold_runs)
        bench.summary()
    return 0


def _compile_bytecode() -> None:
    """Compile shapecheck's modules to bytecode, as installing a wheel does.

    Timed processes then load them as an installation would. Without this, a source checkout
    on a machine with PYTHONDONTWRITEBYTECODE set (this one) compiles its ~100 modules again in
    every process, about 0.18 s that no installed copy spends.
    """
    import compileall

    for name in ("shapecheck", "shapecheck.rules", "shapecheck.plugin"):
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            compileall.compile_dir(folder, quiet=1)


def _installed_jax(quick: bool) -> Path | None:
    spec = importlib.util.find_spec("jax")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent
    return folder / "_src" / "numpy" if quick else folder


class _Bench:
    def __init__(self, target: Path, scratch: Path) -> None:
        self.scratch = scratch
        # Named as the original, so imports among the files resolve as they do there.
        self.copy = scratch / "work" / target.name
        shutil.copytree(target, self.copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so"))
        self.files = sorted(self.copy.rglob("*.py"))
        self.lines = sum(_lines(path) for path in self.files)
        self.medians: dict[str, float] = {}
        self.notes: dict[str, str] = {}
        self.caches = 0
        self.filled: Path | None = None  # the cache of the last cold run with 2 workers

    def _cache(self) -> Path:
        self.caches += 1
        return self.scratch / f"cache{self.caches}"

    def _check(self, paths: Sequence[Path], cache: Path | None, jobs: int | None = None,
               python_path: Path | None = None) -> tuple[float, int]:
        command = [sys.executable, "-m", "shapecheck", "check", "--format", "json", "--no-progress"]
        if python_path is not None:
            command = [sys.executable, "-m", "shapecheck", "check", "--format", "json"]  # older flags
        if cache is None:
            command.append("--no-cache")
        else:
            command += ["--cache-dir", str(cache)]
        if jobs is not None:
            command += ["--jobs", str(jobs)]
        env = dict(os.environ)
        if python_path is not None:
            env["PYTHONPATH"] = str(python_path)
        start = time.perf_counter()
        done = subprocess.run([*command, *map(str, paths)], cwd=self.copy.parent, capture_output=True,
                              text=True, env=env, check=False)
        elapsed = time.perf_counter() - start
        if done.returncode not in (0, 1, 2) or not done.stdout.strip().startswith("["):
            raise SystemExit(f"shapecheck failed ({done.returncode}):\n{done.stderr[-3000:]}")
        return elapsed, len(json.loads(done.stdout))

    def _record(self, name: str, times: list[float], lines: int, note: str = "") -> None:
        median = statistics.median(times)
        self.medians[name] = median
        self.notes[name] = note
        rate = f"{lines / median:>12,.0f} lines/s" if lines else " " * 20
        print(f"{name:<34} median {median:7.2f} s  {rate}  "
              f"runs {' '.join(f'{t:.2f}' for t in times)}  {note}", flush=True)

    def interpreter(self, runs: int) -> None:
        """Python's own start and exit, for reference: no process can be faster."""
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            times.append(time.perf_counter() - start)
        self._record("python -c pass", times, 0)

    def _cold_filling(self) -> tuple[float, int]:
        self.filled = self._cache()
        return self._check([self.copy], self.filled, 2)

    def cold(self, runs: int, baseline: Path | None) -> None:
        configurations: dict[str, Callable[[], tuple[float, int]]] = {
            "cold, 1 worker": lambda: self._check([self.copy], self._cache(), 1),
            "cold, 2 workers": self._cold_filling,
        }
        if baseline is not None:
            configurations["cold, 2 workers, no cache"] = lambda: self._check([self.copy], None, 2)
            configurations["baseline cold, 2 workers"] = lambda: self._check([self.copy], None, 2, baseline)
        times: dict[str, list[float]] = {name: [] for name in configurations}
        found: dict[str, int] = {}
        for index in range(runs):
            names = list(configurations)
            for name in names if index % 2 == 0 else reversed(names):
                elapsed, found[name] = configurations[name]()
                times[name].append(elapsed)
        for name in configurations:
            self._record(name, times[name], self.lines, f"({found[name]} diagnostics)")

    def incremental(self, runs: int, baseline: Path | None) -> None:
        """Warm runs; with a baseline, its warm runs too, each with a cache of its own, run by run
        in turn (each sees the same one file changed since its last run)."""
        sides: dict[str, tuple[Path, Path | None]] = {"": (self.filled or self._cache(), None)}
        if self.filled is None:
            self._check([self.copy], sides[""][0], 2)
        if baseline is not None:
            sides["baseline "] = (self._cache(), baseline)
            self._check([self.copy], sides["baseline "][0], 2, baseline)
        warm: dict[str, list[float]] = {side: [] for side in sides}
        for _ in range(runs):
            for side, (cache, python_path) in sides.items():
                warm[side].append(self._check([self.copy], cache, python_path=python_path)[0])
        for side in sides:
            self._record(f"{side}warm, nothing changed", warm[side], self.lines)
        leaf, imported = self._leaf_and_imported()
        for name, path in (("one file changed", leaf), ("imported module changed", imported)):
            times: dict[str, list[float]] = {side: [] for side in sides}
            again: dict[str, int] = {}
            for index in range(runs):
                with path.open("a", encoding="utf-8") as file:
                    file.write(f"_shapecheck_benchmark_{index} = {index}\n")
                for side, (cache, python_path) in sides.items():
                    before = time.time()
                    times[side].append(self._check([self.copy], cache, python_path=python_path)[0])
                    # Entries written by the last run: the files it analysed again.
                    again[side] = sum(entry.stat().st_mtime >= before for entry in (cache / "results").iterdir())
            for side in sides:
                self._record(f"{side}{name}", times[side], self.lines,
                             f"({path.relative_to(self.copy.parent)}; {again[side]} file(s) analysed again)")

    def _leaf_and_imported(self) -> tuple[Path, Path]:
        """A mid-sized file, and the module that the most files import."""
        by_size = sorted(self.files, key=lambda path: path.stat().st_size)
        leaf = by_size[len(by_size) // 2]
        modules = {".".join(path.relative_to(self.copy.parent).with_suffix("").parts).removesuffix(".__init__"): path
                   for path in self.files}
        counts = dict.fromkeys(modules, 0)
        for path in self.files:
            imported: set[str] = set()
            for match in _IMPORT.finditer(path.read_text(encoding="utf-8", errors="replace")):
                if match["module"]:
                    imported.update(part.strip().split(" ")[0] for part in match["module"].split(","))
                else:
                    imported.add(match["package"])
                    imported.update(f"{match['package']}.{name.strip().split(' ')[0]}"
                                    for name in match["names"].strip("()").split(","))
            for name in imported & counts.keys():
                counts[name] += 1
        return leaf, modules[max(counts, key=lambda name: counts[name])]

    def small_file(self, runs: int) -> None:
        candidates = [path for path in self.files if 150 <= _lines(path) <= 250] or self.files
        source = candidates[0]
        folder = self.scratch / "small"
        folder.mkdir()
        path = folder / source.name
        shutil.copy(source, path)
        cache = self._cache()
        self._check([path], cache)
        unchanged = [self._check([path], cache)[0] for _ in range(runs)]
        self._record("one small file, unchanged", unchanged, _lines(path), f"({_lines(path)} lines)")
        changed = []
        for index in range(runs):
            with path.open("a", encoding="utf-8") as file:
                file.write(f"_shapecheck_benchmark_{index} = {index}\n")
            changed.append(self._check([path], cache)[0])
        self._record("one small file, changed", changed, _lines(path), f"({_lines(path)} lines)")

    def mypy(self, runs: int) -> None:
        times = []
        for index in range(runs):
            cache = self.scratch / f"mypy-cache{index}"
            command = [sys.executable, "-m", "mypy", "--follow-imports=normal", "--cache-dir", str(cache),
                       "--no-error-summary", self.copy.name]
            start = time.perf_counter()
            done = subprocess.run(command, cwd=self.copy.parent, capture_output=True, text=True, check=False)
            times.append(time.perf_counter() - start)
            if done.returncode not in (0, 1):
                raise SystemExit(f"mypy failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
            shutil.rmtree(cache, ignore_errors=True)
        self._record("mypy (default settings)", times, self.lines, "(--follow-imports=normal, fresh cache)")

    def summary(self) -> None:
        m = self.medians
        print("ratios:")
        if "mypy (default settings)" in m:
            mypy = m["mypy (default settings)"]
            for name in ("cold, 1 worker", "cold, 2 workers", "warm, nothing changed"):
                print(f"  {name} vs mypy: {mypy / m[name]:.2f}x mypy's lines/s")
        print(f"  cold 2 workers / cold 1 worker: {m['cold, 2 workers'] / m['cold, 1 worker']:.2f}")
        print(f"  warm / cold 2 workers: {m['warm, nothing changed'] / m['cold, 2 workers']:.3f}")
        start = m["python -c pass"]
        print(f"  one small file over python's own start and exit: unchanged "
              f"{m['one small file, unchanged'] - start:.3f} s, changed {m['one small file, changed'] - start:.3f} s")
        for name in ("warm, nothing changed", "one file changed", "imported module changed"):
            if f"baseline {name}" in m:
                print(f"  this / baseline, {name}: {m[name]:.3f} s / {m[f'baseline {name}']:.3f} s")
        if "baseline cold, 2 workers" in m:
            print(f"  this / baseline, cold 2 workers, no cache: "
                  f"{m['cold, 2 workers, no cache'] / m['baseline cold, 2 workers']:.2f}")


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(?P<package>[\w.]+)[ \t]+import[ \t]+(?P<names>\(?[\w, \t]+)"
                     r"|import[ \t]+(?P<module>[\w., \t]+))", re.MULTILINE)


def _lines(path: Path) -> int:
    return path.read_text(encoding="utf-8", errors="replace").count("\n") + 1


if __name__ == "__main__":
    raise SystemExit(main())
