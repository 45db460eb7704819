"""What a user meets in their first hour, run as they meet it (the `shapecheck` command in a
subprocess): the exit status table of the README, a setting of the wrong type, a file in the
wrong encoding, `shapecheck run` without the `jax` extra."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

FINDING = "import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((5,))\n"
CLEAN = "import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((4,))\n"


def shapecheck(folder: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "shapecheck", *args], cwd=folder, input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    return tmp_path


def _exit_table() -> dict[int, str]:
    section = README.split("Exit status:", 1)[1].split("\n\n", 2)[1]
    return {int(status): meaning for status, meaning in re.findall(r"^\| (\d) \| (.*) \|$", section, re.M)}


# (files to write, arguments, the status the README's table gives, a word of its row).
SCENARIOS = {
    "clean": ({"a.py": CLEAN}, ["a.py"], 0, "clean"),
    "no files": ({}, ["."], 0, "no Python file"),
    "exit zero": ({"a.py": FINDING}, ["--exit-zero", "a.py"], 0, "--exit-zero"),
    "finding": ({"a.py": FINDING}, ["a.py"], 1, "diagnostics"),
    "syntax error": ({"a.py": "import jax\ndef f(:\n"}, ["a.py"], 1, "SC004"),
    "unknown code": ({"a.py": CLEAN}, ["--select", "SC999", "a.py"], 2, "SC999"),
    "unknown option": ({"a.py": CLEAN}, ["--frobnicate", "a.py"], 2, "unknown option"),
    "undecodable": ({"a.py": b"import jax\nx = '\xe9'\n"}, ["a.py"], 2, "SC000"),
    "too deep": ({"a.py": "import jax.numpy as jnp\nx = jnp.ones(3)\ny = " + " + ".join(["x"] * 3_100) + "\n"},
                 ["a.py"], 2, "SC005"),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_the_readme_exit_status_table_holds(project: Path, scenario: str) -> None:
    files, args, status, word = SCENARIOS[scenario]
    for name, content in files.items():
        if isinstance(content, bytes):
            (project / name).write_bytes(content)
        else:
            (project / name).write_text(content)
    assert word in _exit_table()[status]
    result = shapecheck(project, "check", "--no-cache", *args)
    assert result.returncode == status, result.stdout + result.stderr


def test_the_table_has_every_status() -> None:
    assert set(_exit_table()) == {0, 1, 2}


@pytest.mark.parametrize("key", ["select", "ignore", "exclude", "annotation-names"])
def test_a_string_where_a_list_is_expected_is_a_usage_error(project: Path, key: str) -> None:
    (project / "pyproject.toml").write_text(f'[tool.shapecheck]\n{key} = "SC1"\n')
    (project / "a.py").write_text(CLEAN)
    result = shapecheck(project, "check", "a.py")
    assert result.returncode == 2
    assert f'{key} = ["SC1"]' in result.stderr  # the fix, written out


def test_an_undecodable_file_names_the_line_and_byte(project: Path) -> None:
    (project / "a.py").write_bytes(b"import jax\n\nname = '\xe9t\xe9'\n")
    result = shapecheck(project, "check", "--no-cache", "a.py")
    assert result.returncode == 2
    assert "line 3, column 9" in result.stdout and "0xe9" in result.stdout
    assert "coding: latin-1" in result.stdout  # and how to declare another encoding
    # A first line that is not UTF-8 is tokenize's "invalid or missing encoding declaration".
    (project / "a.py").write_bytes(b"name = '\xe9'\n")
    result = shapecheck(project, "check", "--no-cache", "a.py")
    assert "line 1, column 9" in result.stdout and "0xe9" in result.stdout
    assert "encoding declaration" not in result.stdout


def test_run_without_the_jax_extra_says_what_to_install(project: Path) -> None:
    (project / "prog.py").write_text("print('ran')\n")
    child = ("import sys\nsys.modules['jax'] = None\nfrom shapecheck.cli import main\n"
             "sys.exit(main(['run', 'prog.py']))\n")
    result = subprocess.run([sys.executable, "-P", "-c", child], cwd=project, capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 2
    assert "pip install 'shapecheck[jax]'" in result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
