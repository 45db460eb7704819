"""What a run is given: folders it cannot read, entries that are not files, names that are not
UTF-8, modules found as Python finds them, bytes as CPython decodes them."""

from __future__ import annotations

import io
import json
import os
import sys
from importlib.machinery import PathFinder
from pathlib import Path

import pytest

from shapecheck.api import check_file
from shapecheck.cli import main
from shapecheck.formats import FORMATS
from shapecheck.project import ProjectIndex

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


# --- module resolution ---------------------------------------------------------------------


def _python_finds(module: str, roots: list[Path]) -> str | None:
    """The file Python's import system would load for `module` (nothing is imported)."""
    search: list[str] | None = [str(root) for root in roots]
    spec = None
    parts = module.split(".")
    for depth in range(len(parts)):
        if search is None:
            return None  # a module, not a package: it has no submodules
        spec = PathFinder.find_spec(".".join(parts[: depth + 1]), search)
        if spec is None:
            return None
        search = list(spec.submodule_search_locations) if spec.submodule_search_locations is not None else None
    assert spec is not None
    return spec.origin if spec.has_location else None


LAYOUTS = {
    # A package and a module of the same name side by side: Python imports the package.
    "package-beside-module": (["r/helper.py", "r/helper/__init__.py"], "helper"),
    # A module beats a namespace package of the same name; it has no submodules.
    "module-beside-namespace": (["r/ns.py", "r/ns/sub.py"], "ns"),
    "no-submodule-of-a-module": (["r/ns.py", "r/ns/sub.py"], "ns.sub"),
    "package-submodule": (["r/pkg/__init__.py", "r/pkg/mod.py", "r/pkg.py"], "pkg.mod"),
    "namespace-submodule": (["r/nsp/a.py"], "nsp.a"),
    # Across two roots: a regular package ends the search for its submodules in itself...
    "regular-package-is-one-folder": (["r/pkg/__init__.py", "s/pkg/extra.py"], "pkg.extra"),
    # ...while a namespace package spans every root, and a later module beats it.
    "namespace-across-roots": (["r/nsp/a.py", "s/nsp/b.py"], "nsp.b"),
    "module-after-namespace": (["r/thing/x.py", "s/thing.py"], "thing"),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_modules_are_found_as_python_finds_them(tmp_path: Path, layout: str) -> None:
    files, module = LAYOUTS[layout]
    for file in files:
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file).write_text("X = 1\n")
    roots = [tmp_path / "r", tmp_path / "s"]
    expected = _python_finds(module, roots)
    on_disk = ProjectIndex(roots=tuple(str(root) for root in roots)).find(module)
    assert (on_disk[0] if on_disk else None) == expected
    # The same when the files are those of the run.
    index = ProjectIndex.of([tmp_path / file for file in files], roots)
    in_run = index.find(module)
    assert (os.path.realpath(in_run[0]) if in_run else None) == (
        os.path.realpath(expected) if expected else None)


def test_a_package_beside_a_module_of_its_name_is_what_is_imported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "helper").mkdir()
    (tmp_path / "helper.py").write_text(
        "from shapecheck import f32\n\ndef make(x: f32[(3,)]) -> f32[(3,)]:\n    return x\n")
    (tmp_path / "helper" / "__init__.py").write_text(
        "from shapecheck import f32\n\ndef make(x: f32[(4,)]) -> f32[(4,)]:\n    return x\n")
    (tmp_path / "main.py").write_text(
        "import jax.numpy as jnp\nfrom helper import make\n\ny = make(jnp.ones((4,))) + jnp.ones((4,))\n"
        "z = make(jnp.ones((3,)))\n")
    monkeypatch.chdir(tmp_path)
    # Only main.py named (the others found on disk), and all of them named.
    for paths in (["main.py"], ["main.py", "helper.py", "helper/__init__.py"]):
        status, out = main(["check", "--no-cache", "--format", "json", *paths]), capsys.readouterr().out
        found = {(Path(d["path"]).name, d["line"]) for d in json.loads(out)}
        assert found == {("main.py", 5)}, paths  # the call with 3 elements, against the package's 4
        assert status == 1


# --- bytes as CPython decodes them ---------------------------------------------------------

BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("data", [
    BOM + BOM + b"import jax\n",
    BOM + b"import jax\n",
    BOM + b"import jax\n" + BOM + b"x = 1\n",
    b"import jax  " + BOM + b"\n",
    BOM + b"# -*- coding: latin-1 -*-\nimport jax\n",
    BOM + b"# -*- coding: utf-8 -*-\nimport jax\n",
    b"# -*- coding: latin-1 -*-\nimport jax\ns = '\xe9'\n",
], ids=["two-boms", "one-bom", "bom-on-line-2", "bom-in-line", "bom-and-latin1", "bom-and-utf8", "latin1"])
def test_what_cpython_refuses_to_compile_is_never_analysed(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(data)
    try:
        compile(data, str(path), "exec")
    except SyntaxError:
        refused = True
    else:
        refused = False
    result = check_file(path)
    codes = {d.code for d in result.diagnostics} | ({"SC000"} if result.error else set())
    if refused:
        assert codes in ({"SC004"}, {"SC000"})
    else:
        assert codes == set()


def test_the_text_excerpt_numbers_lines_as_cpython(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # U+2028 and a form feed end a line for str.splitlines(), not for CPython: the excerpt of
    # line 3 must be line 3 of the file as CPython counts.
    (tmp_path / "m.py").write_text(
        'import jax.numpy as jnp\ns = "a\u2028b\x0cc"\nx = jnp.ones((3,)) + jnp.ones((4,))\n', encoding="utf-8")
    assert main(["check", "--no-cache", "--format", "text", str(tmp_path / "m.py")]) == 1
    assert "3 | x = jnp.ones((3,)) + jnp.ones((4,))" in capsys.readouterr().out
