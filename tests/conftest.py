"""Test-wide setup. The runtime's tests need 8 simulated CPU devices, which XLA reads once,
when jax is first imported: set the flag here, before any test module can import jax."""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

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
