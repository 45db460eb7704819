"""The editor recipes of docs/lsp.md (and the README), run in a real Neovim: each Lua recipe the
installed Neovim supports is its init.lua, a Python file with a finding is opened headless, and
the diagnostics the server publishes must reach the buffer. Skipped where nvim is missing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "lsp.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
RECIPES = re.findall(r"Neovim ([\d.]+)[^\n]*\n(?:[^\n]+\n)*?\n?```lua\n(.*?)```", DOCS, re.S)

PROBE = """\
vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local out = {}
for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(out, (d.lnum + 1) .. ' ' .. tostring(d.code)) end
vim.fn.writefile(out, 'result.txt')
vim.cmd('qa!')
"""


def _nvim_version() -> tuple[int, int] | None:
    nvim = shutil.which("nvim")
    if nvim is None:
        return None
    first = subprocess.run([nvim, "--version"], capture_output=True, text=True, check=False).stdout.split("\n")[0]
    match = re.search(r"v(\d+)\.(\d+)", first)
    return (int(match.group(1)), int(match.group(2))) if match else None


def test_the_recipes_are_in_the_readme_too() -> None:
    assert [version for version, _ in RECIPES] == ["0.11", "0.7"]
    for _, recipe in RECIPES:
        assert recipe in README


@pytest.mark.parametrize(("since", "recipe"), RECIPES, ids=[f"nvim-{v}" for v, _ in RECIPES])
def test_neovim_recipe_shows_the_diagnostics(since: str, recipe: str, tmp_path: Path) -> None:
    pytest.importorskip("pygls")
    version = _nvim_version()
    if version is None:
        pytest.skip("nvim is not installed")
    wanted = tuple(int(part) for part in since.split("."))
    if version < wanted or (wanted == (0, 7) and version >= (0, 11)):
        pytest.skip(f"this recipe is for Neovim {since}, not {version}")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "model.py").write_text("import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((5,))\n")
    (tmp_path / "init.lua").write_text(recipe)
    (tmp_path / "probe.lua").write_text(PROBE)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_DATA_HOME=str(tmp_path / "data"))
    subprocess.run(["nvim", "--headless", "-u", "init.lua", "model.py", "-c", "luafile probe.lua"], cwd=tmp_path,
                   env=env, capture_output=True, timeout=120, check=False)
    assert (tmp_path / "result.txt").read_text().split("\n")[0] == "3 SC101"
