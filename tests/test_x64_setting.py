"""`x64` in [tool.shapecheck]: the jax_enable_x64 mode SC301 checks dtypes in."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapecheck.config import Config, ConfigError, from_table


def test_x64_is_unknown_unless_set(tmp_path: Path) -> None:
    assert Config().x64 is None
    assert from_table({}, tmp_path).x64 is None
    assert from_table({"x64": True}, tmp_path).x64 is True
    assert from_table({"x64": False}, tmp_path).x64 is False


def test_x64_must_be_a_bool(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="x64 must be true or false"):
        from_table({"x64": "yes"}, tmp_path)
