"""The README's 30-second example prints what the README says it prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shapecheck.cli import main

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_thirty_second_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    section = README.split("## 30 seconds", 1)[1]
    program = re.search(r"```python\n(.*?)```", section, re.S)
    shown = re.search(r"```console\n\$ shapecheck check model.py\n(.*?)```", section, re.S)
    assert program and shown
    (tmp_path / "model.py").write_text(program.group(1))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "model.py"]) == 1
    assert capsys.readouterr().out == shown.group(1)


def _version() -> str:
    import tomllib

    project = tomllib.loads((README_PATH.parent / "pyproject.toml").read_text())["project"]
    version: str = project["version"]
    return version


README_PATH = Path(__file__).resolve().parent.parent / "README.md"


def test_pre_commit_snippet_names_the_declared_hook_at_the_release_tag() -> None:
    snippet = re.search(r"```yaml\nrepos:\n(.*?)```", README, re.S)
    assert snippet, "the README's pre-commit snippet"
    rev = re.search(r"^\s*rev: (\S+)", snippet.group(1), re.M)
    hook = re.search(r"^\s*- id: (\S+)", snippet.group(1), re.M)
    assert rev and hook
    assert rev.group(1) == f"v{_version()}"  # release tags are vX.Y.Z, on the version released
    declared = (README_PATH.parent / ".pre-commit-hooks.yaml").read_text()
    assert re.search(rf"^- id: {re.escape(hook.group(1))}$", declared, re.M)
    entry = re.search(r"^\s+entry: shapecheck (\w+)", declared, re.M)
    assert entry and entry.group(1) == "check"


def test_install_lines_name_extras_that_exist() -> None:
    import tomllib

    extras = tomllib.loads((README_PATH.parent / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    install = README.split("## Install", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"shapecheck\[(\w+)\]", install))
    assert named >= {"jax", "lsp"}  # the issue asks for core, [jax] and [lsp]
    assert named <= set(extras), f"extras the README names but pyproject lacks: {named - set(extras)}"
    assert re.search(r"pip install \./shapecheck\s", install)  # the core, no extra


def test_quickstart_keeps_exactly_two_commands() -> None:
    quickstart = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```console\n(.*?)```", quickstart, re.S)
    assert block
    assert [line.split("#")[0].strip() for line in block.group(1).splitlines()] == ["make run", "make test"]
