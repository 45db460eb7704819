"""The rule pages of the docs, generated from `rules/` (never written by hand).

`rule_pages()` returns {path under docs/: markdown}: `rules/index.md` (every code) and one page
per rule (`rules/sc101.md`), in ruff's template. The wrong example carries `# expect: CODE`
markers on the lines the checker reports, the convention of fixtures/ and of every example in
the docs, so tests/test_docs.py checks these pages like the written ones. mkdocs adds them to
the site through `on_files` (mkdocs.yml names this file as a hook); the test imports
`rule_pages` without mkdocs.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from shapecheck.rules import RULES, Example, Rule

NOT_CHECKED = "<!-- docs: not-checked -->"
"""Put on the line before a python block: the docs test skips it (a fragment, an abbreviation)."""

_WIDTH = 100


def page_path(rule: Rule) -> str:
    return f"rules/{rule.code.lower()}.md"


def _marked(example: Example) -> str:
    codes: dict[int, list[str]] = defaultdict(list)
    for line, code in example.expected:
        codes[line].append(code)
    lines = example.source.rstrip("\n").splitlines()
    for line, found in codes.items():
        lines[line - 1] += f"  # expect: {' '.join(found)}"
    return "\n".join(lines)


def _block(example: Example) -> str:
    source = _marked(example)
    if any(len(line) > _WIDTH for line in source.splitlines()):
        # A generated line of thousands of terms (SC005's example) is shown abbreviated; the
        # full example runs in tests/test_rules.py.
        shown = "\n".join(line if len(line) <= _WIDTH else f"{line[:_WIDTH - 40]} ... {line[-30:]}"
                          for line in source.splitlines())
        return f"{NOT_CHECKED}\n```python\n{shown}\n```"
    return f"```python\n{source}\n```"


def rule_page(rule: Rule) -> str:
    return (
        f"# {rule.code} {rule.name}\n\n"
        f"Severity: {rule.severity.value}. Inside mypy: `{rule.error_code}`. "
        f"Silence one line with `# shapecheck: ignore[{rule.code}]`.\n\n"
        f"## What it does\n\n{rule.summary}\n\n"
        f"## Why is this bad?\n\n{rule.why}\n\n"
        f"## Example\n\n{_block(rule.wrong)}\n\n"
        f"## Use instead\n\n{_block(rule.fixed)}\n"
    )


def _first_sentence(rule: Rule) -> str:
    first: str = rule.summary.split(". ")[0]
    return first.rstrip(".").replace("|", "\\|")


def index_page() -> str:
    rows = "\n".join(f"| [{rule.code}]({rule.code.lower()}.md) | {rule.name} | {_first_sentence(rule)} |"
                     for rule in RULES.values())
    return (
        "# Rules\n\n"
        "Every diagnostic code, generated from the rule modules under `rules/` (the same text as\n"
        "`shapecheck explain CODE`). Each page has a wrong example, marked with the diagnostics\n"
        "the checker reports on it, and its fix; both run as tests.\n\n"
        "| code | name | what it checks |\n| --- | --- | --- |\n"
        f"{rows}\n\n"
        "`SC000` is not a rule: it marks a file that could not be checked at all (unreadable,\n"
        "undecodable, an internal error); `--select` and `--ignore` never hide it.\n"
    )


def rule_pages() -> dict[str, str]:
    pages = {"rules/index.md": index_page()}
    pages.update({page_path(rule): rule_page(rule) for rule in RULES.values()})
    return pages


def on_files(files: Any, config: Any) -> Any:
    """mkdocs hook: add the generated pages to the site."""
    from mkdocs.structure.files import File

    for path, text in rule_pages().items():
        files.append(File.generated(config, path, content=text))
    return files


def on_config(config: Any) -> Any:
    """mkdocs hook: the nav's `Rules` entry lists the index and then every rule's page."""
    for entry in config["nav"] or []:
        if isinstance(entry, dict) and entry.get("Rules") == "rules/index.md":
            entry["Rules"] = ["rules/index.md",
                              *({f"{rule.code} {rule.name}": page_path(rule)} for rule in RULES.values())]
    return config
