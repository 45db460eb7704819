"""The installed jax package is ~300k lines of correct JAX code: any diagnostic there is a false
positive, and any internal error a crash the analyzer must not have."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from shapecheck.api import check_files
from shapecheck.config import Config
from shapecheck.files import discover


def _jax_dir() -> Path | None:
    spec = importlib.util.find_spec("jax")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


@pytest.mark.skipif(_jax_dir() is None, reason="jax is not installed (it comes with the [jax] extra)")
def test_jax_sources_have_no_diagnostics_and_no_crash() -> None:
    folder = _jax_dir()
    assert folder is not None
    files = [str(f) for f in discover([folder], Config())]
    assert len(files) > 300
    report = check_files(files, Config())
    assert report.lines > 200_000
    assert not report.errors, [(r.path, (r.error or "")[-500:]) for r in report.errors[:5]]
    assert report.diagnostics == [], [
        f"{d.path}:{d.span.line} {d.code} {d.message}" for d in report.diagnostics[:20]
    ]
