"""A legacy training script end to end: programs/legacy_transformer.py (mesh-transformer-jax's
structure: the old mesh function, pjit'd init with in_axis_resources, an xmap'd train step
over 'shard'/'batch' on a ('dp', 'mp') mesh, thread_resources) runs under `shapecheck run`,
checked first, and after `shapecheck migrate` under plain python, on 8 CPU devices, printing
the numbers of the same model written with today's shard_map (programs/current_transformer.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapecheck.codemods.migrate import migrate_text

from .processes import PROGRAMS, group, numbers, python, results, shape

pytest.importorskip("jax")

LEGACY = PROGRAMS / "legacy_transformer.py"
CURRENT = PROGRAMS / "current_transformer.py"
PRINTED = ("step ", "eval losses ", "params norm ", "mesh ")
TIMEOUT = 420  # seconds for the three programs together, on a loaded 2-core machine


def test_the_legacy_script_runs_as_written_and_migrated_with_shard_map_s_numbers(tmp_path: Path) -> None:
    rewrite = migrate_text(str(LEGACY), LEGACY.read_text())
    assert not rewrite.messages, rewrite.messages  # everything it uses has today's form
    migrated = tmp_path / LEGACY.name
    migrated.write_text(rewrite.text)
    with group(tmp_path) as runs:
        started = [runs.start("shapecheck run", python("-m", "shapecheck", "run", str(LEGACY)), devices=8),
                   runs.start("migrated", python("-W", "error::DeprecationWarning", str(migrated)), devices=8),
                   runs.start("shard_map", python(str(CURRENT)), devices=8)]
        runs.wait(TIMEOUT)
    legacy, after_migrate, current = (results(run.output(), PRINTED) for run in started)
    assert len(current) == 6 and current[-1] == "mesh {'dp': 2, 'mp': 4}", current
    for name, lines in (("shapecheck run", legacy), ("migrated", after_migrate)):
        assert shape(lines) == shape(current), name
        assert numbers(lines) == pytest.approx(numbers(current), rel=1e-5), name
