"""Test-wide setup. The runtime's tests need 8 simulated CPU devices, which XLA reads once,
when jax is first imported: set the flag here, before any test module can import jax."""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path
from typing import Any

import pytest

from tests.xla_settings import xla_flags

os.environ.setdefault("XLA_FLAGS", xla_flags(8))
os.environ.setdefault("JAX_PLATFORMS", "cpu")


def _share_compilations() -> None:
    """One JAX compilation cache for the whole run: the pytest workers and every program the
    tests start (they inherit the environment) compile a computation once between them.

    Most of the runtime tests' time is XLA compiling the same fixtures again: the shape, dtype
    and current-JAX differentials run the same programs, a legacy script runs as written and
    migrated. A fresh folder per run (made by the first process, which removes it at exit), so
    nothing is carried from one run to the next; tracing, and so every error JAX raises, is
    unchanged: only compiled executables are reused.
    """
    if "JAX_COMPILATION_CACHE_DIR" in os.environ:
        return
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="shapecheck-tests-xla-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["JAX_COMPILATION_CACHE_DIR"] = folder
    os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"  # every computation, small ones too
    os.environ["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "-1"  # whatever their size


_share_compilations()

HERE = Path(__file__).resolve().parent
# The tests of these folders share one expensive fixture (a language server, mypy's cache of jax).
_SHARED_FIXTURE_FOLDERS = frozenset({"lsp", "plugin"})


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadgroup` (make test), the tests that share an expensive fixture run on one
    worker rather than each worker building it: a folder of _SHARED_FIXTURE_FOLDERS, and a
    module with a module-scoped fixture (one CLI run over many files, say).

    A scheduler of our own, because the `xdist_group` mark does nothing with pytest 9:
    pytest-xdist 3.8 appends the group to `item._nodeid`, which pytest 9 no longer reads.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class SharedFixtureGroups(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _group(nodeid) or super()._split_scope(nodeid)

    return SharedFixtureGroups(config, log)


def _group(nodeid: str) -> str | None:
    module = nodeid.split("::")[0]
    folder = Path(module).parent.name
    if folder in _SHARED_FIXTURE_FOLDERS:
        return folder
    return module if _has_module_fixture(HERE.parent / module) else None


@functools.cache
def _has_module_fixture(path: Path) -> bool:
    """Whether the module defines a fixture with scope="module" (read, not imported)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return False
    return any(isinstance(node, ast.keyword) and node.arg == "scope"
               and isinstance(node.value, ast.Constant) and node.value.value == "module"
               for node in ast.walk(tree))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With SHAPECHECK_RANDOM_EXAMPLES=N (`make explore`), every hypothesis test draws N random
    examples rather than CI's fixed (derandomized) ones: how the differential suites find what
    the checker misses against JAX. A failure prints the program to keep as a fixed case."""
    count = os.environ.get("SHAPECHECK_RANDOM_EXAMPLES")
    if not count:
        return
    from hypothesis import settings

    for item in items:
        test = getattr(item, "obj", None)
        if getattr(test, "hypothesis", None) is None:
            continue
        # What @settings stores on a @given test, read when the test runs.
        current = getattr(test, "_hypothesis_internal_use_settings", None)
        test._hypothesis_internal_use_settings = settings(
            current, derandomize=False, max_examples=int(count), database=None)
