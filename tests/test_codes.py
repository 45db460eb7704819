"""The codes the engine can emit are exactly the documented rules, named through one enum,
and each diagnostic carries its rule's severity."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from shapecheck.api import check_source
from shapecheck.codes import Code
from shapecheck.diagnostic import INCOMPLETE, NOT_CHECKED, Severity
from shapecheck.rules import RULES, get_rule, severity_of

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "shapecheck", ROOT / "plugin", ROOT / "rules"]
CODE_TEXT = re.compile(r"^SC\d{3}$")


def test_every_code_but_not_checked_has_a_rule_and_every_rule_a_code() -> None:
    assert set(RULES) == set(Code) - {Code.NOT_CHECKED}
    assert all(isinstance(code, Code) for code in RULES)
    assert NOT_CHECKED is Code.NOT_CHECKED
    assert {Code.NOT_CHECKED, Code.ANALYSIS_LIMIT} == INCOMPLETE


def test_member_names_are_the_rule_names() -> None:
    for code, rule in RULES.items():
        assert code.name == rule.name.upper().replace("-", "_")


def test_codes_are_the_strings_they_replaced() -> None:
    # Output formats, suppression comments and --select compare codes as text.
    assert Code.BROADCAST_MISMATCH == "SC101"
    assert f"{Code.BROADCAST_MISMATCH}" == str(Code.BROADCAST_MISMATCH) == "SC101"
    assert json.dumps({"code": Code.NOT_CHECKED}) == '{"code": "SC000"}'
    assert hash(Code.UNKNOWN_RESOURCE) == hash("SC206")
    assert get_rule("sc206") is RULES[Code.UNKNOWN_RESOURCE]


def _bare_codes(path: Path) -> list[tuple[int, str]]:
    """String literals that are exactly a code, outside a rule example's `expected=` pairs."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "expected":
            allowed.update(id(inner) for inner in ast.walk(node.value))
    return [
        (node.lineno, node.value) for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and CODE_TEXT.match(node.value) and id(node) not in allowed
    ]


def test_no_bare_code_string_in_the_source() -> None:
    found = {
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for base in SOURCES for path in sorted(base.rglob("*.py"))
        if path != ROOT / "shapecheck" / "codes.py"
        for line, text in _bare_codes(path)
    }
    assert not found, "use shapecheck.codes.Code members"


def test_the_scan_sees_a_bare_code(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text('x = "SC101"\nE = Example("", expected=((1, "SC102"),))\n"""SC103: a docstring"""\n')
    assert _bare_codes(source) == [(1, "SC101")]


def test_severity_comes_from_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = RULES[Code.BROADCAST_MISMATCH]
    found = check_source("wrong.py", rule.wrong.source)
    assert {d.severity for d in found} == {Severity.ERROR}
    monkeypatch.setitem(RULES, Code.BROADCAST_MISMATCH, replace(rule, severity=Severity.WARNING))
    found = check_source("wrong.py", rule.wrong.source)
    assert [(d.code, d.severity) for d in found] == [(Code.BROADCAST_MISMATCH, Severity.WARNING)]


def test_syntax_error_severity_comes_from_its_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = RULES[Code.SYNTAX_ERROR]
    monkeypatch.setitem(RULES, Code.SYNTAX_ERROR, replace(rule, severity=Severity.NOTE))
    found = check_source("broken.py", "def f(:\n")
    assert [(d.code, d.severity) for d in found] == [(Code.SYNTAX_ERROR, Severity.NOTE)]


def test_not_checked_has_no_rule_and_is_an_error() -> None:
    assert severity_of(Code.NOT_CHECKED) is Severity.ERROR


def test_a_severity_is_read_from_its_rule_alone_until_every_rule_is_loaded() -> None:
    # A fresh interpreter: a check that reports one code reads that rule's module only, and
    # each severity is its rule's whether the table is loaded or not.
    import subprocess
    import sys

    child = (
        "import sys; from shapecheck.codes import Code; from shapecheck.rules import severity_of\n"
        "first = severity_of(Code.BROADCAST_MISMATCH), severity_of(Code.UNUSED_SUPPRESSION)\n"
        "loaded = sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('shapecheck.rules.sc'))\n"
        "from shapecheck.rules import RULES\n"
        "print(loaded, [s.value for s in first] == [RULES[Code.BROADCAST_MISMATCH].severity.value,"
        " RULES[Code.UNUSED_SUPPRESSION].severity.value], severity_of(Code.NOT_CHECKED).value)\n")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["['sc006_unused_suppression',", "'sc101_broadcast_mismatch']", "True", "error"]
