"""One module per diagnostic code, each defining `RULE`: its docs, and examples that run as tests."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Final

from shapecheck.rules.rule import Example, Rule

__all__ = ["RULES", "Example", "Rule", "get_rule"]


def _load() -> dict[str, Rule]:
    found: dict[str, Rule] = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("sc"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        rule = module.RULE
        assert isinstance(rule, Rule), info.name
        found[rule.code] = rule
    return dict(sorted(found.items()))


RULES: Final[dict[str, Rule]] = _load()
"""Every rule, keyed and sorted by code."""


def get_rule(code: str) -> Rule | None:
    """The rule for `code` (`SC201`) or for its name (`resource-cooccurrence`)."""
    code = code.strip()
    if code.upper() in RULES:
        return RULES[code.upper()]
    return next((rule for rule in RULES.values() if code in (rule.name, rule.error_code)), None)
