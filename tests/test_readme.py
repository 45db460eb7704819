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
