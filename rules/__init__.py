"""One module per diagnostic code, each defining `RULE`: its docs, and examples that run as tests."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Final

from shapecheck.codes import Code
from shapecheck.diagnostic import Severity
from shapecheck.rules.rule import Example, Rule

__all__ = ["RULES", "Example", "Rule", "get_rule", "severity_of"]


def _load() -> dict[Code, Rule]:
    found: dict[Code, Rule] = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("sc"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        rule = module.RULE
        assert isinstance(rule, Rule), info.name
        found[rule.code] = rule
    return dict(sorted(found.items()))


RULES: Final[dict[Code, Rule]] = _load()
"""Every rule, keyed and sorted by code."""


def get_rule(code: str) -> Rule | None:
    """The rule for `code` (`SC201`) or for its name (`resource-cooccurrence`)."""
    code = code.strip()
    if code.upper() in RULES:
        return RULES[Code(code.upper())]
    return next((rule for rule in RULES.values() if code in (rule.name, rule.error_code)), None)


def severity_of(code: Code) -> Severity:
    """The severity of a diagnostic with `code`: its rule's (NOT_CHECKED, no rule, is an error)."""
    rule = RULES.get(code)
    return rule.severity if rule is not None else Severity.ERROR
