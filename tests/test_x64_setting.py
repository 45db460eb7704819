"""`x64` in [tool.shapecheck]: the jax_enable_x64 mode SC301 checks dtypes in."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapecheck.api import analyze_source
from shapecheck.config import Config, ConfigError, from_table


def test_x64_is_unknown_unless_set(tmp_path: Path) -> None:
    assert Config().x64 is None
    assert from_table({}, tmp_path).x64 is None
    assert from_table({"x64": True}, tmp_path).x64 is True
    assert from_table({"x64": False}, tmp_path).x64 is False


def test_x64_must_be_a_bool(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="x64 must be true or false"):
        from_table({"x64": "yes"}, tmp_path)


def test_inferred_types_are_shown_as_the_mode_makes_them() -> None:
    source = "import jax.numpy as jnp\nx = jnp.ones(3)\ny = jnp.ones(3, dtype=jnp.float16)\n"
    shown = [str(t.type) for t in analyze_source("t.py", source, keep_types=True).types]
    assert shown == ["f32[(3,)]", "f16[(3,)]"]  # JAX's default: x64 off
    on = analyze_source("t.py", source, Config(x64=True), keep_types=True).types
    assert [str(t.type) for t in on] == ["f64[(3,)]", "f16[(3,)]"]
