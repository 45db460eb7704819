"""Migrated programs run under plain `python` with the numbers `shapecheck run` prints for the
originals. All programs run in two subprocesses (one jax start-up each), side by side."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from shapecheck.codemods.migrate import migrate_text
from tests.xla_settings import xla_flags

from .snapshots import EXAMPLES, programs

pytest.importorskip("jax")

RUNNER = Path(__file__).parent / "run_programs.py"
# Every program that runs (m10 imports a module that does not exist; of examples/, the others
# demonstrate wrong programs, and mlp_named is m01's tutorial network again).
RUNNABLE = [p for p in programs("migrate") if p.stem != "m10_unknown_constructs"] + [EXAMPLES / "regression.py"]
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?")


def _start(mode: str, files: list[Path]) -> subprocess.Popen[str]:
    root = Path(__file__).parents[2]
    env = {**os.environ, "XLA_FLAGS": xla_flags(8), "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, str(RUNNER), mode, *map(str, files)], env=env, cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _outcomes(process: subprocess.Popen[str]) -> dict[str, dict[str, str | None]]:
    stdout, stderr = process.communicate()
    assert process.returncode == 0, stderr
    result: dict[str, dict[str, str | None]] = json.loads(stdout)
    return result


def _numbers(text: str) -> list[float]:
    return [float(n) for n in _NUMBER.findall(text)]


def test_migrated_programs_print_what_shapecheck_run_prints(tmp_path: Path) -> None:
    migrated = []
    for program in RUNNABLE:
        target = tmp_path / program.name
        target.write_text(migrate_text(str(program), program.read_text()).text)
        migrated.append(target)
    original, plain = _start("original", RUNNABLE), _start("plain", migrated)
    before, after = _outcomes(original), _outcomes(plain)
    for program, target in zip(RUNNABLE, migrated, strict=True):
        old, new = before[str(program)], after[str(target)]
        assert old["error"] is None, f"{program.name} fails under the runtime: {old['error']}"
        assert new["error"] is None, f"migrated {program.name} fails under python: {new['error']}"
        assert old["stdout"], program.name
        assert _NUMBER.sub("#", str(new["stdout"])) == _NUMBER.sub("#", str(old["stdout"])), program.name
        assert _numbers(str(new["stdout"])) == pytest.approx(_numbers(str(old["stdout"])), rel=1e-5), program.name
