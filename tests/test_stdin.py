"""`shapecheck check --stdin-filename PATH -`: stdin's text checked as if it were PATH."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shapecheck.cli import main

BROKEN = "import jax.numpy as jnp\n\nw = jnp.ones((3, 4)) + jnp.ones((5,))\n"
LAYERS = "from shapecheck import f32\n\n\ndef dense(x: f32[(4, 3)]) -> f32[(4, 3)]:\n    return x\n"


def check(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], text: str | bytes,
          *args: str) -> tuple[int, str, str]:
    data = text.encode() if isinstance(text, str) else text
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.shapecheck]\nexclude = ['generated/']\n")
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_text_is_checked_as_the_named_file(project: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # The file on disk says something else: stdin's text is what gets checked.
    (project / "src" / "model.py").write_text("x = 1\n")
    code, out, _ = check(monkeypatch, capsys, BROKEN, "--stdin-filename", "src/model.py", "-")
    assert code == 1
    assert out.startswith("src/model.py:3:5: SC101 ")
    (project / "src" / "model.py").write_text(BROKEN)
    assert main(["check", "src/model.py"]) == 1
    assert capsys.readouterr().out == out


@pytest.mark.parametrize("fmt", ["json", "github", "sarif"])
def test_every_format(project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                      fmt: str) -> None:
    (project / "src" / "model.py").write_text(BROKEN)
    assert main(["check", "--format", fmt, "src/model.py"]) == 1
    on_disk = capsys.readouterr().out
    (project / "src" / "model.py").write_text("")
    code, out, _ = check(monkeypatch, capsys, BROKEN, "--format", fmt, "--stdin-filename", "src/model.py", "-")
    assert (code, out) == (1, on_disk)
    if fmt == "json":
        assert [(d["path"], d["line"], d["code"]) for d in json.loads(out)] == [("src/model.py", 3, "SC101")]


def test_clean_text_exits_zero(project: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(monkeypatch, capsys, BROKEN.replace("(5,)", "(4,)"), "--format", "json",
                         "--stdin-filename", "src/model.py", "-")
    assert (code, json.loads(out)) == (0, [])


def test_an_excluded_path_prints_nothing(project: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ("text", "json"):
        code, out, err = check(monkeypatch, capsys, BROKEN, "--format", fmt,
                               "--stdin-filename", "generated/model.py", "-")
        assert (code, out, err) == (0, "", "")
    code, out, err = check(monkeypatch, capsys, BROKEN, "--exclude", "src/", "--stdin-filename", "src/model.py", "-")
    assert (code, out, err) == (0, "", "")


def test_configuration_is_found_from_the_path(project: Path, tmp_path_factory: pytest.TempPathFactory,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path_factory.mktemp("other")
    (other / "pyproject.toml").write_text("[tool.shapecheck]\nignore = ['SC101']\n")
    inside = str(other / "model.py")
    assert check(monkeypatch, capsys, BROKEN, "--stdin-filename", inside, "-")[0] == 0
    # The same text as a file of the current project (no such setting) is reported.
    assert check(monkeypatch, capsys, BROKEN, "--stdin-filename", "src/model.py", "-")[0] == 1
    # An explicit --config still wins.
    (project / "strict.toml").write_text("[tool.shapecheck]\n")
    assert check(monkeypatch, capsys, BROKEN, "--config", "strict.toml", "--stdin-filename", inside, "-")[0] == 1


def test_imports_resolve_from_the_paths_project(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    package = project / "src" / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "layers.py").write_text(LAYERS)
    main_text = "import jax.numpy as jnp\nfrom .layers import dense\n\ny = dense(jnp.ones((4, 5)))\n"
    code, out, _ = check(monkeypatch, capsys, main_text, "--format", "json", "--stdin-filename",
                         "src/pkg/main.py", "-")
    assert code == 1
    assert [(d["line"], d["code"]) for d in json.loads(out)] == [(4, "SC103")]
    absolute = main_text.replace("from .layers", "from pkg.layers")
    code, out, _ = check(monkeypatch, capsys, absolute, "--format", "json", "--stdin-filename",
                         "src/pkg/main.py", "-")
    assert [(d["line"], d["code"]) for d in json.loads(out)] == [(4, "SC103")]


def test_syntax_errors_and_undecodable_text(project: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(monkeypatch, capsys, "def f(:\n", "--stdin-filename", "src/model.py", "-")
    assert code == 1 and " SC004 " in out
    latin = textwrap.dedent("""\
        # -*- coding: latin-1 -*-
        import jax.numpy as jnp
        s = 'caf\xe9'
        w = jnp.ones((3, 4)) + jnp.ones((5,))
        """).encode("latin-1")
    code, out, _ = check(monkeypatch, capsys, latin, "--format", "json", "--stdin-filename", "src/model.py", "-")
    assert (code, [d["code"] for d in json.loads(out)]) == (1, ["SC101"])
    code, out, err = check(monkeypatch, capsys, b"x = '\xff'\n", "--format", "json",
                           "--stdin-filename", "src/model.py", "-")
    assert code == 2
    assert [d["code"] for d in json.loads(out)] == ["SC000"] and "cannot decode" in err


def test_stdin_without_a_filename_and_usage_errors(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(monkeypatch, capsys, BROKEN, "-")
    assert code == 1 and out.startswith("-:3:5: SC101 ")
    code, _, err = check(monkeypatch, capsys, BROKEN, "--stdin-filename", "src/model.py", "src/")
    assert code == 2 and "stdin is checked alone" in err
    code, _, err = check(monkeypatch, capsys, BROKEN, "-", "src/")
    assert code == 2 and "stdin is checked alone" in err
    code, _, err = check(monkeypatch, capsys, BROKEN, "--stdin-filename", "src", "-")
    assert code == 2 and "names a folder" in err


def test_output_options_apply(project: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(monkeypatch, capsys, BROKEN, "--exit-zero", "--output-file", "out.json",
                         "--format", "json", "--stdin-filename", "src/model.py", "-")
    assert (code, out) == (0, "")
    assert [d["code"] for d in json.loads((project / "out.json").read_text())] == ["SC101"]


def test_checking_stdin_loads_no_language_server(project: Path) -> None:
    # pygls is the `lsp` extra: the check paths must work without it, and never pay for it.
    child = ("import sys\nfrom shapecheck.cli import main\ncode = main(['check', '--stdin-filename', 'm.py', '-'])\n"
             "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'cattrs'))\n"
             "print(code, loaded, 'shapecheck.lsp.server' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", child], input=BROKEN, capture_output=True, text=True,
                            cwd=project, check=False)
    assert result.stdout.splitlines()[-1] == "1 [] False", result.stderr
