"""Test-wide setup. The runtime's tests need 8 simulated CPU devices, which XLA reads once,
when jax is first imported: set the flag here, before any test module can import jax."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Under pytest-xdist (make test), the tests of a folder that share one expensive fixture (a
    # language server, mypy's cache of jax) run on one worker rather than build it on each.
    for item in items:
        folder = item.path.parent.name
        if folder in _SHARED_FIXTURE_FOLDERS:
            item.add_marker(pytest.mark.xdist_group(folder))


_SHARED_FIXTURE_FOLDERS = frozenset({"lsp", "plugin"})
