"""What a run is given: folders it cannot read, entries that are not files, names that are not
UTF-8, modules found as Python finds them, bytes as CPython decodes them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from shapecheck.cli import main

MISMATCH = "import jax.numpy as jnp\nx = jnp.ones((3,)) + jnp.ones((4,))\n"


def _json_run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, set[tuple[str, str]]]:
    status = main(["check", "--no-cache", "--format", "json", *args])
    found = {(Path(d["path"]).name, d["code"]) for d in json.loads(capsys.readouterr().out)}
    return status, found


# --- walks ---------------------------------------------------------------------------------


def test_an_entry_that_cannot_be_examined_is_sc000_and_the_rest_is_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # /proc/1/cwd: stat() refuses it to anyone but root with ptrace rights (an internal error
    # ended `shapecheck check /proc/1`).
    try:
        os.stat("/proc/1/cwd")
    except PermissionError:
        pass
    else:
        pytest.skip("this machine lets the tests stat /proc/1/cwd")
    (tmp_path / "ok.py").write_text(MISMATCH)
    (tmp_path / "link.py").symlink_to("/proc/1/cwd")
    (tmp_path / "cwd").symlink_to("/proc/1/cwd")  # not a *.py: never checked, no error either
    monkeypatch.chdir(tmp_path)
    status, found = _json_run(capsys, ".")
    assert found == {("ok.py", "SC101"), ("link.py", "SC000")}
    assert status == 2


def test_a_folder_that_cannot_be_listed_is_sc000_and_the_rest_is_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ok.py").write_text(MISMATCH)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "hidden.py").write_text(MISMATCH)
    locked.chmod(0)
    if os.access(locked, os.R_OK):  # root reads it all the same: refuse it by hand
        refuse = str(locked)

        def guarded(real):  # type: ignore[no-untyped-def]
            def call(path=".", *args, **kwargs):  # type: ignore[no-untyped-def]
                if os.fspath(path) in (refuse, "locked"):
                    raise PermissionError(13, "Permission denied", os.fspath(path))
                return real(path, *args, **kwargs)
            return call

        monkeypatch.setattr(os, "scandir", guarded(os.scandir))
        monkeypatch.setattr(os, "listdir", guarded(os.listdir))
        monkeypatch.setattr(os, "open", guarded(os.open))
    monkeypatch.chdir(tmp_path)
    try:
        status, found = _json_run(capsys, ".")
    finally:
        locked.chmod(0o755)
    assert found == {("ok.py", "SC101"), ("locked", "SC000")}
    assert status == 2


def test_a_walk_gives_what_naming_gives_for_entries_that_are_not_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ok.py").write_text(MISMATCH)
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "device.py").symlink_to(os.devnull)
    (tmp_path / "gone.py").symlink_to(tmp_path / "nowhere.py")
    monkeypatch.chdir(tmp_path)
    odd = {("pipe.py", "SC000"), ("device.py", "SC000"), ("gone.py", "SC000")}
    walked = _json_run(capsys, ".")  # a FIFO opened in blocking mode would hang here
    named = _json_run(capsys, "ok.py", "pipe.py", "device.py", "gone.py")
    assert walked == named == (2, {("ok.py", "SC101")} | odd)
