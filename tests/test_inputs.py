"""What a run is given: folders it cannot read, entries that are not files, names that are not
UTF-8, modules found as Python finds them, bytes as CPython decodes them."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from shapecheck.cli import main
from shapecheck.formats import FORMATS

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


# --- names that are not UTF-8 --------------------------------------------------------------


@pytest.fixture
def bad_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = os.fsdecode(b"bad\xff.py")
    try:
        (tmp_path / name).write_text(MISMATCH)
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system takes only UTF-8 names")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    monkeypatch.chdir(tmp_path)
    return name


def _strict_output(monkeypatch: pytest.MonkeyPatch, fmt: str, *paths: str) -> tuple[int, str]:
    """The output of a run, from a stdout that accepts only valid UTF-8 (as a UTF-8 terminal or
    pipe does); raises where the output is not."""
    buffer = io.BytesIO()
    stdout = io.TextIOWrapper(buffer, encoding="utf-8", errors="strict", newline="")
    monkeypatch.setattr(sys, "stdout", stdout)
    status = main(["check", "--no-cache", "--no-progress", "--format", fmt, *paths])
    stdout.flush()
    return status, buffer.getvalue().decode("utf-8")


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_name_that_is_not_utf8_is_written_as_valid_utf8(
        bad_name: str, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    status, out = _strict_output(monkeypatch, fmt, ".")
    assert status == 1
    if fmt in ("json", "gitlab", "sarif"):
        strings: list[str] = []
        json.loads(out, object_hook=lambda o: strings.extend(v for v in o.values() if isinstance(v, str)) or o)
        for value in strings:
            value.encode("utf-8")  # no lone surrogate in any string of the document
    shown = "\n".join(strings) if fmt in ("json", "gitlab", "sarif") else out
    assert "bad\\xff.py" in shown or "bad%FF.py" in shown  # the byte is shown, not lost
    if fmt == "json":
        assert [d["path"] for d in json.loads(out)] == ["bad\\xff.py"]


def test_sarif_names_the_raw_bytes_of_the_file(bad_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from urllib.parse import unquote_to_bytes

    _, out = _strict_output(monkeypatch, "sarif", ".")
    log = json.loads(out)
    schema = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(log)
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "bad%FF.py"
    assert unquote_to_bytes(uri) == os.fsencode(bad_name)  # a consumer finds the file again
