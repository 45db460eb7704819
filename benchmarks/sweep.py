"""The open-source sweep: shapecheck over the released source of JAX libraries, as published.

Each package's newest wheel is fetched from the package registry (`pip download --no-deps`,
kept in a cache folder so a rerun fetches nothing) and unpacked; nothing is installed or
imported. Then one `shapecheck check` runs over all of it, and the script prints, per package,
its files, lines and diagnostics, every diagnostic in full (each one is to be read and
confirmed as a real defect), and how much the analyzer knows: of the expressions it evaluates
in those files, how many have an array type, and how many of those a fully known shape
(`--coverage`, slower: every file analysed in this process with types kept).

    python benchmarks/sweep.py [--cache DIR] [--coverage] [PACKAGE ...]
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

PACKAGES = ("flax", "optax", "equinox", "dm-haiku", "diffrax", "penzai", "levanter", "chex", "jraph",
            "trax", "objax")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", default=list(PACKAGES))
    parser.add_argument("--cache", type=Path, default=Path(".sweep_cache"))
    parser.add_argument("--coverage", action="store_true", help="also count expressions with known types")
    args = parser.parse_args()
    roots = {name: _unpacked(name, args.cache) for name in args.packages}
    files = {name: sorted(root.rglob("*.py")) for name, root in roots.items()}
    run = subprocess.run([sys.executable, "-m", "shapecheck", "check", "--no-cache", "--exit-zero",
                          "--format", "json", *(str(r) for r in roots.values())],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        print(run.stderr, file=sys.stderr)
        return 2
    found = json.loads(run.stdout)
    print(f"{'package':12} {'files':>6} {'lines':>8} {'diagnostics':>12}")
    total = Counter[str]()
    for name, root in roots.items():
        lines = sum(_lines(path) for path in files[name])
        count = sum(1 for d in found if Path(d["path"]).is_relative_to(root))
        total.update(files=len(files[name]), lines=lines, diagnostics=count)
        print(f"{name:12} {len(files[name]):>6} {lines:>8} {count:>12}")
    print(f"{'all':12} {total['files']:>6} {total['lines']:>8} {total['diagnostics']:>12}")
    for d in found:
        print(f"{d['path']}:{d['line']}:{d['column']}: {d['code']} {d['message']}")
    if args.coverage:
        typed, known, evaluated = _coverage([path for paths in files.values() for path in paths])
        print(f"expressions evaluated {evaluated}, with an array type {typed} "
              f"({typed / max(evaluated, 1):.1%}), with every dim known {known} ({known / max(typed, 1):.1%} of those)")
    return 0


def _unpacked(name: str, cache: Path) -> Path:
    wheels = cache / "wheels" / name
    if not any(wheels.glob("*.whl")):
        wheels.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                        "--quiet", "--dest", str(wheels), name], check=True)
    wheel = sorted(wheels.glob("*.whl"))[-1]
    root = cache / "source" / wheel.stem
    if not root.exists():
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(root)
    return root


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except OSError:
        return 0


def _coverage(paths: list[Path]) -> tuple[int, int, int]:
    """(expressions with an array type, of those with every dim known, expressions evaluated):
    an expression counts as evaluated where the analyzer could give it a type at all (calls,
    operators, subscripts, attributes, names read)."""
    from shapecheck.engine import Engine

    engine = Engine()
    typed = known = evaluated = 0
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        evaluated += sum(1 for node in ast.walk(tree) if isinstance(node, ast.Call | ast.BinOp | ast.Subscript)
                         or (isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load)))
        result = engine.analyze(str(path), text, keep_types=True)
        spans = {(t.span, t.type) for t in result.types}
        typed += len(spans)
        known += sum(1 for _, type_ in spans if type_.ellipsis is None and all(isinstance(d, int) for d in type_.dims))
    return typed, known, evaluated


if __name__ == "__main__":
    raise SystemExit(main())
