"""One module per diagnostic code, each defining `RULE`: its docs, and examples that run as tests."""

from __future__ import annotations

import functools
import importlib
import pkgutil

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


_all: dict[Code, Rule] | None = None


def __getattr__(name: str) -> dict[Code, Rule]:
    """`RULES`: every rule, keyed and sorted by code. Loaded on first use: a check that finds
    nothing never reads a rule (their docs and examples are most of this package)."""
    if name != "RULES":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _table()


def _table() -> dict[Code, Rule]:
    global _all
    if _all is None:
        _all = _load()
    return _all


def get_rule(code: str) -> Rule | None:
    """The rule for `code` (`SC201`) or for its name (`resource-cooccurrence`)."""
    rules = _table()
    code = code.strip()
    if code.upper() in rules:
        return rules[Code(code.upper())]
    return next((rule for rule in rules.values() if code in (rule.name, rule.error_code)), None)


def severity_of(code: Code) -> Severity:
    """The severity of a diagnostic with `code`: its rule's (NOT_CHECKED, no rule, is an error).
    Reads that rule's module alone (`sc101_...` for SC101) while the others are not loaded."""
    rule = _all.get(code) if _all is not None else _one(code)
    return rule.severity if rule is not None else Severity.ERROR


@functools.cache
def _one(code: Code) -> Rule | None:
    prefix = f"{code.lower()}_"
    name = next((info.name for info in pkgutil.iter_modules(__path__) if info.name.startswith(prefix)), None)
    rule = importlib.import_module(f"{__name__}.{name}").RULE if name is not None else None
    return rule if isinstance(rule, Rule) else None
