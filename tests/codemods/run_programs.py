"""Run several programs in this one process (one jax start-up for all) and print what each did.

`python run_programs.py original PROG...` runs each as `shapecheck run --no-check` does (the
runtime standing in for xmap and the named-axis modules); `python run_programs.py plain
PROG...` runs each as plain `python` does. Prints one JSON object: path -> {stdout, error},
where error is the last line of the exception a program raised (None when it ran through).
"""

from __future__ import annotations

import contextlib
import io
import json
import runpy
import sys
import traceback


def main(mode: str, programs: list[str]) -> None:
    outcomes = {}
    for program in programs:
        captured = io.StringIO()
        error = None
        try:
            with contextlib.redirect_stdout(captured), _context(mode):
                runpy.run_path(program, run_name="__main__")
        except Exception as raised:
            error = traceback.format_exception_only(raised)[-1].strip()
        outcomes[program] = {"stdout": captured.getvalue(), "error": error}
    print(json.dumps(outcomes))


def _context(mode: str) -> contextlib.AbstractContextManager[None]:
    if mode == "original":
        from shapecheck.runtime.install import stand_ins

        return stand_ins()
    return contextlib.nullcontext()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
