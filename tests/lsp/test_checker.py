"""The checker's process: a check past its deadline is ended and reported, the next one runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapecheck.codes import Code
from shapecheck.lsp.buffers import Buffer
from shapecheck.lsp.checker import Checker, Closed

MISMATCH = "import jax.numpy as jnp\n\nb = jnp.ones((3, 4)) + jnp.ones((5,))\n"


def _buffer(folder: Path, name: str, text: str) -> Buffer:
    path = folder / name
    return Buffer(path.as_uri(), str(path), text, 1)


def test_a_check_past_the_deadline_is_unchecked_and_the_next_one_runs(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    large = _buffer(tmp_path, "large.py", MISMATCH * 20_000)  # far more than half a second
    small = _buffer(tmp_path, "small.py", MISMATCH)
    checker = Checker(deadline=0.5)
    try:
        stopped = checker.analyze(large, [large, small])
        assert [(d.code, d.span.line) for d in stopped.result.diagnostics] == [(Code.ANALYSIS_LIMIT, 1)]
        assert not stopped.result.types and stopped.syntax is None
        checker.deadline = 60
        checked = checker.analyze(small, [large, small])  # in a fresh process
        assert [d.code for d in checked.result.diagnostics] == [Code.BROADCAST_MISMATCH]
        assert checked.result.error is None and checked.parses
    finally:
        checker.close()
    with pytest.raises(Closed):
        checker.analyze(small, [small])
