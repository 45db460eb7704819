"""`--format sarif` is valid SARIF 2.1.0 (checked against the vendored OASIS schema) and says
what its consumers need: percent-encoded URIs relative to %SRCROOT%, the column unit, rule docs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from shapecheck.cli import main
from shapecheck.formats import sarif

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text())

MISMATCH = "import jax.numpy as jnp\n\nx = jnp.ones((3, 4)) + jnp.ones((5,))\n"
# Two characters outside the Basic Multilingual Plane before the span: 2 code points, 4 UTF-16
# code units, so the columns tell which unit the output counts.
WIDE = "import jax.numpy as jnp\n\nx = ('😀😀', jnp.ones((3,)) + jnp.ones((4,)))\n"
NAMED = """\
import jax.numpy as jnp
from jax.experimental.maps import xmap

def f(x, y):
    return x + y

z = xmap(f, in_axes=(['i', ...], ['i', ...]), out_axes=['i', ...])(jnp.ones((3, 2)), jnp.ones((4, 2)))
"""


def _validate(log: dict[str, Any]) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(log)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["check", "--format", "sarif", *args]) == 1
    log: dict[str, Any] = json.loads(capsys.readouterr().out)
    return log


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "sub dir").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (root / "sub dir" / "my prog.py").write_text(MISMATCH)
    (root / "wide.py").write_text(WIDE)
    (root / "named.py").write_text(NAMED)
    monkeypatch.chdir(root)
    return root


def test_the_schema_is_the_sarif_schema_and_rejects_what_it_should() -> None:
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    assert SCHEMA["id"].endswith("/sarif-schema-2.1.0.json")
    # The test below is only worth something if the validator can fail.
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                            "results": [{"ruleId": "SC101"}]}]}
    with pytest.raises(jsonschema.ValidationError):
        _validate(broken)


def test_output_is_valid_sarif(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _run(capsys)
    _validate(log)
    run = log["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {"SC101", "SC102", "SC201"}
    assert len(run["results"]) == 3
    # Notes become related locations, valid too (the SC102 of named.py has one).
    assert any(r.get("relatedLocations") for r in run["results"])


def test_uris_are_percent_encoded_and_relative_to_the_project_root(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Run from a subfolder, naming the file as the user would there: the URI is the same.
    monkeypatch.chdir(project / "sub dir")
    log = _run(capsys, "my prog.py")
    _validate(log)
    (result,) = log["runs"][0]["results"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "sub%20dir/my%20prog.py", "uriBaseId": "%SRCROOT%"}
    assert unquote(artifact["uri"]) == "sub dir/my prog.py"


def test_a_file_outside_the_project_gets_an_absolute_file_uri(
    project: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    outside = project.parent / "other place" / "x.py"
    outside.parent.mkdir()
    outside.write_text(MISMATCH)
    log = _run(capsys, str(outside))
    _validate(log)
    artifact = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert "uriBaseId" not in artifact
    assert artifact["uri"] == outside.as_uri() and "%20" in artifact["uri"]


def test_columns_are_unicode_code_points_and_declared_so(
    project: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    log = _run(capsys, "wide.py")
    run = log["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    region = run["results"][0]["locations"][0]["physicalLocation"]["region"]
    line = WIDE.splitlines()[2]
    start = line.index("jnp.ones((3,))")  # a str index: code points
    assert (region["startLine"], region["startColumn"]) == (3, start + 1)
    assert region["endColumn"] == line.index("))", line.index("(4,)")) + 2 + 1


def test_rules_link_their_docs_page_when_the_package_declares_its_docs(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sarif, "documentation_url", lambda: "https://docs.example.org/shapecheck/")
    log = _run(capsys, "wide.py")
    _validate(log)
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["SC101"]["helpUri"] == "https://docs.example.org/shapecheck/rules/sc101/"


def test_without_declared_docs_no_help_uri_is_invented(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sarif, "documentation_url", lambda: None)
    log = _run(capsys, "wide.py")
    _validate(log)
    assert all("helpUri" not in r for r in log["runs"][0]["tool"]["driver"]["rules"])
