"""`shapecheck run PROG.py [ARGS]`: check a program, then run it on the xmap runtime.

The program runs as `__main__` with `sys.argv` set to `[PROG.py, *ARGS]`, with
shapecheck.runtime standing in for `jax.experimental.maps.xmap` and the named-axis forms of
jax.numpy, jax.lax, jax.nn and jax.scipy.special, so a program written for the removed xmap
runs unchanged. Exit status: the program's own; 1 when the check finds errors (unless
`--no-check`) or the program raises; 2 for a usage error.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback
from collections.abc import Sequence

USAGE = "shapecheck run [--no-check] PROG.py [ARGS...]"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shapecheck run", usage=USAGE,
                                     description="check, then run a program written for xmap")
    parser.add_argument("--no-check", action="store_true",
                        help="run without checking first (also when the checker is unavailable)")
    parser.add_argument("program", help="the Python file to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program")
    return parser


def check(program: str) -> int | None:
    """Print the program's diagnostics; 1 when it has errors, None when it may run."""
    try:
        from shapecheck.engine import Engine
    except (ImportError, AttributeError) as error:
        print(f"shapecheck run: the checker is unavailable ({error}); "
              "pass --no-check to run without it", file=sys.stderr)
        return 2
    from shapecheck.diagnostic import Severity

    report = Engine().check_paths([program])
    for failed in report.errors:
        raise RuntimeError(f"{failed.path}: {failed.error}")
    diagnostics = report.diagnostics
    for d in diagnostics:
        print(f"{d.path}:{d.span.line}:{d.span.column + 1}: {d.code} {d.message}", file=sys.stderr)
    if any(d.severity is Severity.ERROR for d in diagnostics):
        print(f"shapecheck run: {program} has shape errors; fix them or pass --no-check",
              file=sys.stderr)
        return 1
    return None


def execute(program: str, args: Sequence[str]) -> int:
    """Run `program` as __main__ with the runtime standing in for xmap; its exit status."""
    from shapecheck.runtime.install import stand_ins

    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [program, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
    try:
        with stand_ins():
            runpy.run_path(program, run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except Exception as error:
        _print_from(program, error)
        return 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return 0


def _print_from(program: str, error: BaseException) -> None:
    """The traceback from the program's own frames in: runpy's and the runner's are not the user's."""
    target = os.path.abspath(program)
    tb = error.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != target:
        tb = tb.tb_next
    traceback.print_exception(type(error), error, tb or error.__traceback__)


def _missing_runtime() -> str | None:
    """The module of the `jax` extra that is not installed, if one is not (as `shapecheck lsp`
    names its extra rather than fail with a traceback)."""
    import importlib.util

    return next((name for name in ("jax", "numpy") if importlib.util.find_spec(name) is None), None)


def main(argv: list[str]) -> int:
    try:
        options = _parser().parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else 2
    if not os.path.isfile(options.program):
        print(f"shapecheck run: no such file: {options.program}", file=sys.stderr)
        return 2
    missing = _missing_runtime()
    if missing:
        print(f"shapecheck run: error: the runtime needs {missing}, which is not installed; "
              "install it with: pip install 'shapecheck[jax]'", file=sys.stderr)
        return 2
    if not options.no_check:
        refused = check(options.program)
        if refused is not None:
            return refused
    return execute(options.program, options.args)
