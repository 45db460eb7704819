"""Run mypy with the shapecheck plugin in this process and say how much of its time the plugin took.

A helper of `mypy_plugin.py`, which starts it as `python plugin_share.py MYPY_ARGS...` and reads
the one JSON line it prints. Every way the plugin runs in mypy's process is timed: its set-up,
each hook lookup and each hook call (nested ones once), and the CPU time of the thread that
receives the worker's analyses. mypy itself is compiled (mypyc), so none of its own work runs
through these wrappers. Two whole mypy runs, with and without the plugin, differ by as much as
25% from the drift of a shared machine alone; the plugin's own time, measured inside one run,
does not drift with the machine.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from mypy import api

from shapecheck.plugin import hooks, named_axes, prefetch
from shapecheck.plugin.main import ShapecheckPlugin

_spent = [0.0]
_thread_cpu = [0.0]
_depth = [0]


def _timed(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _depth[0]:
            return function(*args, **kwargs)
        _depth[0] += 1
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            _spent[0] += time.perf_counter() - start
            _depth[0] -= 1

    return wrapper


def _timed_factory(factory: Callable[..., Callable[..., Any]]) -> Callable[..., Callable[..., Any]]:
    """A hook factory whose hooks are timed."""
    return functools.wraps(factory)(lambda *args, **kwargs: _timed(factory(*args, **kwargs)))


def _thread_timed(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            _thread_cpu[0] += time.thread_time() - start

    return wrapper


def main() -> int:
    for name in ("annotation_hook", "assignment_hook", "call_hook", "attribute_hook"):
        setattr(hooks, name, _timed_factory(getattr(hooks, name)))
    for name in ("widen_function", "widen_method"):
        setattr(named_axes, name, _timed(getattr(named_axes, name)))
    import shapecheck.plugin.main as plugin_main

    for name in ("widen_function", "widen_method"):
        setattr(plugin_main, name, getattr(named_axes, name))
    for name, member in list(vars(ShapecheckPlugin).items()):
        if callable(member) and (name == "__init__" or name.startswith(("get_", "report_", "set_"))):
            setattr(ShapecheckPlugin, name, _timed(member))
    prefetch.Prefetch._exchange = _thread_timed(prefetch.Prefetch._exchange)  # type: ignore[method-assign]
    start = time.perf_counter()
    stdout, stderr, status = api.run(sys.argv[1:])
    total = time.perf_counter() - start
    if status not in (0, 1):
        print(stdout[-2000:], stderr[-2000:], file=sys.stderr)
        return 2
    print(json.dumps({"total": total, "hooks": _spent[0], "thread_cpu": _thread_cpu[0],
                      "lines": len(stdout.strip().splitlines())}), flush=True)
    return 0


if __name__ == "__main__":
    status = main()
    # As `mypy` itself ends: without freeing the build's millions of objects one by one (8 s
    # here for jax/_src/numpy), which `python -m mypy` never spends either.
    os._exit(status)
