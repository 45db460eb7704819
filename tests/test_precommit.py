"""The README's pre-commit recipes, run as written by pre-commit itself: the `repo: local` form
with the installed command, and the hosted form through `pre-commit try-repo` on a clone of this
repository at the tag the recipe names. Slow (pre-commit builds a virtualenv and installs
shapecheck into it), and skipped where pre-commit or git is missing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
FINDING = "import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((5,))\n"
CLEAN = "import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((4,))\n"

pytestmark = pytest.mark.slow


def _recipe(kind: str) -> str:
    pattern = r"```yaml\n(repos:\n  - repo: local\n.*?)```" if kind == "local" else \
        r"```yaml\n(repos:\n  - repo: https://.*?)```"
    found = re.search(pattern, README, re.S)
    assert found, f"the README's {kind} pre-commit recipe"
    return found.group(1)


def _pre_commit() -> list[str]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
    if found is None:
        pytest.skip("pre-commit is not installed (it is in the test extra)")
    return [found]


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=540, check=False)


def _project(tmp_path: Path, env: dict[str, str]) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "model.py").write_text(FINDING)
    for command in (["git", "init", "-q"], ["git", "add", "model.py"]):
        assert _run(command, project, env).returncode == 0
    return project


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    # The installed `shapecheck` command, for `language: system`.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_the_local_recipe_runs_as_written(tmp_path: Path) -> None:
    pre_commit = _pre_commit()
    env = _env(tmp_path)
    project = _project(tmp_path, env)
    (project / ".pre-commit-config.yaml").write_text(_recipe("local"))
    failed = _run([*pre_commit, "run", "--files", "model.py"], project, env)
    assert failed.returncode == 1 and "SC101" in failed.stdout, failed.stdout + failed.stderr
    (project / "model.py").write_text(CLEAN)
    passed = _run([*pre_commit, "run", "--files", "model.py"], project, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_the_hosted_recipe_runs_through_try_repo(tmp_path: Path) -> None:
    pre_commit = _pre_commit()
    env = _env(tmp_path)
    recipe = _recipe("hosted")
    rev = re.search(r"^\s*rev: (\S+)", recipe, re.M)
    hook = re.search(r"^\s*- id: (\S+)", recipe, re.M)
    assert rev and hook
    # The hosted repository: a clone of this one (its committed state), tagged as the recipe says.
    clone = tmp_path / "shapecheck"
    assert _run(["git", "clone", "-q", str(ROOT), str(clone)], tmp_path, env).returncode == 0
    assert _run(["git", "tag", rev.group(1)], clone, env).returncode == 0
    project = _project(tmp_path, env)
    result = _run([*pre_commit, "try-repo", str(clone), hook.group(1), "--ref", rev.group(1),
                   "--files", "model.py"], project, env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "SC101" in result.stdout
