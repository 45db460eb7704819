"""Shared mypy caches: analysing jax from scratch takes mypy seconds, so the plugin's tests
share one cache with the plugin and one without (each keyed by its own plugin data), each split
by the flags of the run (`support.cache_for`)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def plugin_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache-plugin")


@pytest.fixture(scope="session")
def plain_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache-plain")
