"""The command line: every output format (snapshots), every exit path, config and file selection."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shapecheck.cli import main

SNAPSHOTS = Path(__file__).parent / "snapshots"
ALL_FORMATS = ["text", "concise", "json", "github", "gitlab", "sarif", "junit", "pylint", "azure"]
UPDATE = os.environ.get("SHAPECHECK_UPDATE_SNAPSHOTS") == "1"

PROGRAM = textwrap.dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap
    from shapecheck import f32

    def named_matmul(x: f32[(5,), {'b': 20, 'k': 7}], y: f32[(), {'k': 7, 'm': 11}]):
        return jnp.einsum('n{b,k},{k,m}->n{b,m}', x, y)

    x = jnp.ones((20, 5, 7))
    y = jnp.ones((8, 11))
    z = xmap(named_matmul, in_axes=[{0: 'b', 2: 'k'}, ['k', 'm', ...]], out_axes={0: 'b', 2: 'm'})(x, y)
    w = jnp.ones((3, 4)) + jnp.ones((5,))
    """)
CLEAN = "import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((4,))\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "model.py").write_text(PROGRAM)
    (tmp_path / "clean.py").write_text(CLEAN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if UPDATE or not path.exists():
        path.write_text(text)
    assert text == path.read_text(), f"output differs from {path}; rerun with SHAPECHECK_UPDATE_SNAPSHOTS=1"


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_format_snapshot(project: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    code, out, _ = run(capsys, "check", "--format", fmt)
    assert code == 1
    snapshot(f"check.{fmt}", out)


def test_json_shape(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "model.py", "--format", "json")
    items = json.loads(out)
    assert code == 1
    assert [(i["line"], i["code"]) for i in items] == [(10, "SC102"), (11, "SC101")]
    keys = {"path", "line", "column", "end_line", "end_column", "code", "message", "severity", "notes"}
    assert all(set(item) == keys for item in items)
    assert "'k'" in items[0]["message"] and "7" in items[0]["message"] and "8" in items[0]["message"]


def test_clean_exit_zero(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "clean.py")
    assert code == 0
    snapshot("clean.text", out)


def test_select_and_ignore(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "check", "model.py", "--select", "SC101")[0] == 1
    code, out, _ = run(capsys, "check", "model.py", "--ignore", "SC101,SC102", "--format", "json")
    assert (code, json.loads(out)) == (0, [])
    code, out, _ = run(capsys, "check", "model.py", "--select", "SC1", "--ignore", "SC102", "--format", "json")
    assert [i["code"] for i in json.loads(out)] == ["SC101"]


def test_pyproject_config(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text('[tool.shapecheck]\nignore = ["SC101"]\nexclude = ["clean.py"]\n')
    code, out, _ = run(capsys, "check", "--format", "json")
    assert [i["code"] for i in json.loads(out)] == ["SC102"]
    assert code == 1


def test_explicit_config_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = project / "other.toml"
    other.write_text('[tool.shapecheck]\nselect = ["SC101"]\n')
    _, out, _ = run(capsys, "check", "model.py", "--config", str(other), "--format", "json")
    assert [i["code"] for i in json.loads(out)] == ["SC101"]


def test_suppression_comments(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = PROGRAM.replace("jnp.ones((5,))\n", "jnp.ones((5,))  # shapecheck: ignore[SC101]\n")
    text = text.replace("(x, y)\n", "(x, y)  # shapecheck: ignore\n")
    (project / "model.py").write_text(text)
    assert run(capsys, "check", "model.py")[0] == 0
    (project / "model.py").write_text(PROGRAM.replace("jnp.ones((5,))\n", "jnp.ones((5,))  # shapecheck: ignore[SC102]\n"))
    _, out, _ = run(capsys, "check", "model.py", "--format", "json")
    # SC102 is reported on another line: the comment silences nothing and says so (SC006).
    assert [i["code"] for i in json.loads(out)] == ["SC102", "SC101", "SC006"]


def test_usage_errors_exit_two(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "check", "missing.py")[0] == 2
    assert run(capsys, "check", "--select", "E501")[0] == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--format", "xml"])
    assert exit_info.value.code == 2
    (project / "pyproject.toml").write_text("[tool.shapecheck]\nselct = ['SC101']\n")
    code, _, err = run(capsys, "check")
    assert code == 2 and "selct" in err


def test_internal_error_reported_and_others_checked(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shapecheck.analysis as analysis

    real = analysis._interpret

    def flaky(path: str, *args: object, **kwargs: object) -> object:
        if path.endswith("clean.py"):
            raise ValueError("boom")
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis, "_interpret", flaky)
    code, out, err = run(capsys, "check", "--jobs", "1", "--format", "json")
    assert code == 2
    assert "clean.py" in err and "boom" in err
    # The failure is in the output too, as a result for that file.
    found = {(Path(i["path"]).name, i["code"]) for i in json.loads(out)}
    assert found == {("clean.py", "SC000"), ("model.py", "SC101"), ("model.py", "SC102")}


def test_syntax_error_does_not_stop_the_run(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "broken.py").write_text("import jax\ndef f(:\n    pass\n")
    code, out, _ = run(capsys, "check", "--format", "json")
    codes = sorted((Path(i["path"]).name, i["code"]) for i in json.loads(out))
    assert codes == [("broken.py", "SC004"), ("model.py", "SC101"), ("model.py", "SC102")]
    assert code == 1


def test_gitignore_and_excludes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("generated/\n")
    (project / "generated").mkdir()
    (project / "generated" / "bad.py").write_text(PROGRAM)
    (project / ".venv").mkdir()
    (project / ".venv" / "bad.py").write_text(PROGRAM)
    code, out, _ = run(capsys, "check", "--format", "json")
    assert {Path(i["path"]).name for i in json.loads(out)} == {"model.py"}
    # Named explicitly, an ignored folder is checked (the user asked for it)...
    code, out, _ = run(capsys, "check", "generated", "--format", "json")
    assert {Path(i["path"]).name for i in json.loads(out)} == {"bad.py"}
    # ...but excludes still apply to files named explicitly, as pre-commit passes them.
    code, out, _ = run(capsys, "check", "model.py", "--exclude", "model.py", "--format", "json")
    assert (code, json.loads(out)) == (0, [])


def test_rules_and_explain(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()][:2] == ["SC001", "SC002"]
    code, out, _ = run(capsys, "explain", "SC201")
    assert code == 0 and "## Why is this bad?" in out and "## Use instead" in out
    assert run(capsys, "explain", "resource-cooccurrence")[0] == 0
    assert run(capsys, "explain", "SC999")[0] == 2


def test_parallel_run_matches_serial(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for index in range(12):
        (project / f"copy{index}.py").write_text(PROGRAM)
    _, serial, _ = run(capsys, "check", "--jobs", "1", "--format", "json")
    _, parallel, _ = run(capsys, "check", "--jobs", "2", "--format", "json")
    assert serial == parallel
    assert len(json.loads(serial)) == 26


def test_light_path_never_imports_jax(project: Path) -> None:
    script = (
        "import sys\nfrom shapecheck.cli import main\n"
        "code = main(['check', 'model.py', '--format', 'json'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'numpy', 'jaxlib'))\n"
        "assert not heavy, heavy\nassert code == 1\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=project, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# Scenario -> (file name, bytes, the exit code a run of that file alone must give).
UNDECODABLE = b"import jax.numpy as jnp\ns = '\xff\xfe'\n"
SCENARIOS = {
    "clean": ("clean.py", CLEAN.encode(), 0),
    "findings": ("model.py", PROGRAM.encode(), 1),
    "undecodable": ("latin.py", UNDECODABLE, 2),
    "too_deep": ("deep.py", ("import jax.numpy as jnp\nx = jnp.ones(3)\ny = "
                             + " + ".join(["x"] * 3_100) + "\n").encode(), 2),
}


def _codes_in(fmt: str, out: str) -> set[str]:
    """The diagnostic codes a format's output holds, read as its consumers read it."""
    if fmt == "json":
        return {item["code"] for item in json.loads(out)}
    if fmt == "gitlab":
        return {item["check_name"] for item in json.loads(out)}
    if fmt == "sarif":
        return {result["ruleId"] for result in json.loads(out)["runs"][0]["results"]}
    if fmt == "github":
        return {line.split("title=shapecheck ")[1].split("::")[0] for line in out.splitlines()}
    if fmt == "junit":
        from xml.etree import ElementTree

        return {failure.get("type", "") for failure in ElementTree.fromstring(out).iter("failure")}
    if fmt == "pylint":
        return {line.split("[")[1].split("]")[0] for line in out.splitlines()}
    if fmt == "azure":
        return {line.split(";code=")[1].split(";")[0] for line in out.splitlines()}
    return {line.split(": ")[1].split()[0] for line in out.splitlines() if line.startswith(("model", "latin", "deep"))}


@pytest.mark.parametrize("fmt", ALL_FORMATS)
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_exit_code_and_format_matrix(project: Path, capsys: pytest.CaptureFixture[str], fmt: str,
                                     scenario: str) -> None:
    name, data, expected = SCENARIOS[scenario]
    (project / name).write_bytes(data)
    code, out, _ = run(capsys, "check", "--format", fmt, name)
    assert code == expected
    codes = _codes_in(fmt, out)
    if scenario == "undecodable":
        assert codes == {"SC000"}  # the failure is a result in every format
    if scenario == "too_deep":
        assert codes == {"SC005"}
    if fmt in ("text", "concise"):
        assert ("All checks passed" in out) == (expected == 0)


def test_unknown_codes_are_usage_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for option in ("--select", "--ignore"):
        code, _, err = run(capsys, "check", "model.py", option, "SC999")
        assert code == 2 and "SC999" in err
    assert run(capsys, "check", "model.py", "--select", "SC1")[0] == 1  # a prefix of known codes
    assert run(capsys, "check", "model.py", "--select", "SC10,SC20")[0] == 1
    for key in ("select", "ignore"):
        (project / "pyproject.toml").write_text(f'[tool.shapecheck]\n{key} = ["SC101", "SC9"]\n')
        code, _, err = run(capsys, "check", "model.py")
        assert code == 2 and "SC9" in err


def test_selecting_codes_never_hides_a_file_not_checked(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "latin.py").write_bytes(UNDECODABLE)
    code, out, _ = run(capsys, "check", "latin.py", "model.py", "--select", "SC101", "--format", "json")
    assert code == 2
    assert {(Path(i["path"]).name, i["code"]) for i in json.loads(out)} == {("latin.py", "SC000"), ("model.py", "SC101")}


def test_source_encodings(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = "import jax.numpy as jnp\nname = 'é'\nx = jnp.ones((3,)) + jnp.ones((4,))\n"
    (project / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\n" + program.encode("latin-1"))
    (project / "bom.py").write_bytes(b"\xef\xbb\xbf" + program.encode("utf-8"))
    code, out, _ = run(capsys, "check", "latin.py", "bom.py", "--format", "json")
    assert code == 1
    found = {(Path(i["path"]).name, i["line"], i["column"], i["code"]) for i in json.loads(out)}
    assert found == {("latin.py", 4, 5, "SC101"), ("bom.py", 3, 5, "SC101")}
    code, out, _ = run(capsys, "check", "latin.py")
    assert "4 | x = jnp.ones((3,))" in out  # the excerpt is read with the file's own encoding


def test_no_python_files_is_a_warning(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "empty").mkdir()
    code, out, err = run(capsys, "check", "empty", "--format", "json")
    assert (code, json.loads(out)) == (0, [])
    assert "warning" in err and "no Python files" in err


def test_any_unexpected_exception_exits_two(project: Path) -> None:
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "shapecheck", "check", "--format", "json", "model.py"],
                                cwd=project, stdout=full, stderr=subprocess.PIPE, text=True)
    assert result.returncode == 2
    assert "No space left on device" in result.stderr


def test_python_warnings_about_checked_code_stay_quiet(project: Path) -> None:
    (project / "escapes.py").write_text("import jax\npattern = '\\d+'\n")
    # -W error: a warning that escaped would even turn into a false SC004.
    for option in ("default", "error"):
        result = subprocess.run([sys.executable, "-W", option, "-m", "shapecheck", "check", "escapes.py"],
                                cwd=project, capture_output=True, text=True)
        assert (result.returncode, result.stderr) == (0, "")


def test_long_lines_are_cut_to_a_window_around_the_span(project: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from shapecheck.formats.text import EXCERPT_WIDTH

    left, right = " + ".join(["1"] * 300), " + ".join(["2"] * 300)
    (project / "wide.py").write_text(
        "import jax.numpy as jnp\n"
        f"z = {left} + (jnp.ones((2, 3)) + jnp.ones((4,))) + {right}\n")
    code, out, _ = run(capsys, "check", "wide.py")
    assert code == 1
    header, _, source, caret = out.splitlines()[:4]
    assert header.startswith("wide.py:2:") and "SC101" in header
    shown = source.split(" | ", 1)[1]
    assert len(shown) <= EXCERPT_WIDTH + 2 * len("...")
    assert shown.startswith("...") and shown.endswith("...")
    # The caret still sits under the operation, inside the window.
    start = caret.index("^") - (len(source) - len(shown))
    assert shown[start:].startswith("(jnp.ones((2, 3)) + jnp.ones((4,)))"[1:])


def test_junit_is_xml_whatever_the_message_holds(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from xml.etree import ElementTree

    from shapecheck.codes import Code
    from shapecheck.diagnostic import Diagnostic, Span
    from shapecheck.formats import formatter

    odd = Diagnostic("a&b<\udcff>.py", Span(1, 0, 1, 1), Code.BROADCAST_MISMATCH, "x\x00 & <y> \"z\"\n")
    tree = ElementTree.fromstring(formatter("junit")([odd], 1, project))
    failure = next(tree.iter("failure"))
    assert failure.get("message") == 'x\\x00 & <y> "z"\n' and failure.get("type") == "SC101"
    assert next(tree.iter("testsuite")).get("name") == "a&b<\\xff>.py"
    clean = ElementTree.fromstring(formatter("junit")([], 3, project))
    assert clean.get("failures") == "0" and len(list(clean.iter("testcase"))) == 1


def test_azure_escapes_what_its_agent_unescapes(project: Path) -> None:
    from shapecheck.codes import Code
    from shapecheck.diagnostic import Diagnostic, Span
    from shapecheck.formats import formatter

    d = Diagnostic("a;b].py", Span(2, 3, 2, 4), Code.UNUSED_SUPPRESSION, "100% sure\nnext", )
    line = formatter("azure")([d], 1, project)
    assert line == "##vso[task.logissue type=error;sourcepath=a%3Bb%5D.py;linenumber=2;columnnumber=4;code=SC006;]100%AZP25 sure%0Anext\n"
