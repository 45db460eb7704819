"""The README's examples print what the README says they print; its recipes name what exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shapecheck.cli import main

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


# Each program of the README followed by `$ shapecheck check NAME.py` and the output shown.
EXAMPLES = re.findall(r"```python\n(.*?)```\s*```console\n\$ shapecheck check (\w+\.py)\n(.*?)```",
                      README, re.S)


def test_the_readme_opens_with_an_example_of_todays_jax() -> None:
    section = README.split("## 30 seconds", 1)[1].split("\n## ", 1)[0]
    program = re.search(r"```python\n(.*?)```", section, re.S)
    assert program
    assert "shard_map" in program.group(1) and "axis_name=" in program.group(1)
    assert "xmap" not in program.group(1)  # removed from JAX: it comes later, for old programs


@pytest.mark.parametrize(("program", "name", "shown"), EXAMPLES, ids=[e[1] for e in EXAMPLES])
def test_each_example_prints_what_the_readme_shows(program: str, name: str, shown: str,
                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / name).write_text(program)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", name]) == 1
    assert capsys.readouterr().out == shown


def test_both_examples_are_found() -> None:
    assert [name for _, name, _ in EXAMPLES] == ["model.py", "legacy.py"]


def _version() -> str:
    import tomllib

    project = tomllib.loads((README_PATH.parent / "pyproject.toml").read_text())["project"]
    version: str = project["version"]
    return version


README_PATH = Path(__file__).resolve().parent.parent / "README.md"


def test_pre_commit_snippet_names_the_declared_hook_at_the_release_tag() -> None:
    snippet = re.search(r"```yaml\nrepos:\n(  - repo: https://.*?)```", README, re.S)
    assert snippet, "the README's pre-commit snippet of a hosted repository"
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


def test_the_diagnostics_table_lists_every_code() -> None:
    from shapecheck.codes import Code

    table = README.split("### Diagnostics", 1)[1].split("\n#", 1)[0]
    listed = set(re.findall(r"^\| (SC\d{3}) \|", table, re.M))
    assert listed == {str(code.value) for code in Code if code.value != "SC000"}
