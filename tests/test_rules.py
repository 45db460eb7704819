"""Every rule module is well formed, and its examples are what the checker reports."""

from __future__ import annotations

import ast
import re
from functools import partial
from pathlib import Path

import pytest

from shapecheck.bounds import run_bounded
from shapecheck.rules import RULES, Example, Rule

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"
KEBAB = re.compile(r"^[a-z]+(-[a-z]+)*$")
CODE = re.compile(r"^SC\d{3}$")

ALL = sorted(RULES.values(), key=lambda rule: rule.code)


def _examples(rule: Rule) -> list[tuple[str, Example]]:
    return [("wrong", rule.wrong), ("fixed", rule.fixed)] + [
        (f"more[{i}]", example) for i, example in enumerate(rule.more)
    ]


def test_every_rule_module_is_registered() -> None:
    modules = sorted(path.stem for path in RULES_DIR.glob("sc[0-9][0-9][0-9]_*.py"))
    codes = sorted(name.split("_", 1)[0].upper() for name in modules)
    assert codes == sorted(RULES)


@pytest.mark.parametrize("rule", ALL, ids=lambda rule: rule.code)
def test_rule_is_well_formed(rule: Rule) -> None:
    assert CODE.match(rule.code), rule.code
    module = RULES_DIR / f"{rule.code.lower()}_{rule.name.replace('-', '_')}.py"
    assert module.is_file(), f"{rule.code} ({rule.name}) should live in rules/{module.name}"
    assert KEBAB.match(rule.name), rule.name
    assert not rule.name.startswith("no-"), "names describe the pattern, not its absence"
    assert rule.error_code == f"shape-{rule.name}" or rule.mypy_code
    assert rule.summary.strip() and rule.why.strip()

    text = rule.explain()
    assert text.startswith(f"{rule.code} ({rule.name})")
    sections = ["## What it does", "## Why is this bad?", "## Example", "## Use instead"]
    positions = [text.find(section) for section in sections]
    assert all(p >= 0 for p in positions), text
    assert positions == sorted(positions)

    wrong_codes = {code for _, code in rule.wrong.expected}
    assert rule.code in wrong_codes, "the wrong example must show the rule's own code"
    assert rule.fixed.expected == (), "the fixed example must be clean"


@pytest.mark.parametrize("rule", ALL, ids=lambda rule: rule.code)
def test_rule_examples_are_well_formed(rule: Rule) -> None:
    for label, example in _examples(rule):
        lines = example.source.splitlines()
        assert lines and lines[0].strip(), f"{label}: starts with a non-empty line"
        for line, code in example.expected:
            assert CODE.match(code), f"{label}: {code}"
            assert 1 <= line <= len(lines), f"{label}: line {line} is outside the example"
            assert lines[line - 1].strip(), f"{label}: line {line} is blank"
        # Parsed within the checker's bounds: SC005's example nests deeper than the default
        # recursion limit allows on the main thread.
        if rule.code == "SC004" and label != "fixed":
            with pytest.raises(SyntaxError):
                run_bounded(partial(ast.parse, example.source))
        else:
            run_bounded(partial(ast.parse, example.source))


@pytest.mark.parametrize(
    ("rule", "label", "example"),
    [(rule, label, example) for rule in ALL for label, example in _examples(rule)],
    ids=[f"{rule.code}-{label}" for rule in ALL for label, _ in _examples(rule)],
)
def test_rule_examples_run_through_checker(rule: Rule, label: str, example: Example) -> None:
    from shapecheck.api import check_source

    path = f"{rule.code.lower()}_{label}.py"
    found = {(d.span.line, d.code) for d in check_source(path, example.source)}
    assert found == set(example.expected)
