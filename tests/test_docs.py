"""Every python example in docs/ checks as its page says, every internal link leads somewhere,
every option and setting is documented, and the site builds.

The convention (the one of fixtures/): a line that must get diagnostics ends with
`# expect: CODE [CODE...]`; every other line must get none, so an example without markers
must check clean. A python block right after a `<!-- docs: not-checked -->` line is skipped
(a fragment, or an abbreviation of a generated example). The rule pages are generated from
rules/ (tools/docs_rules.py) and checked here like the written ones. Examples and links are
checked without mkdocs; the build (mkdocs --strict) runs where mkdocs is installed.
"""

from __future__ import annotations

import importlib.util
import itertools
import re
import shutil
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from shapecheck.engine import Engine

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_rules", ROOT / "tools" / "docs_rules.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATED: dict[str, str] = _generator().rule_pages()
NOT_CHECKED: str = _generator().NOT_CHECKED


def _pages() -> dict[str, str]:
    written = {path.relative_to(DOCS).as_posix(): path.read_text(encoding="utf-8")
               for path in sorted(DOCS.rglob("*.md"))}
    clash = set(written) & set(GENERATED)
    assert not clash, f"pages generated from rules/ must not be written by hand: {sorted(clash)}"
    return written | GENERATED


PAGES = _pages()

FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
EXPECT = re.compile(r"#\s*expect:\s*((?:SC\d{3}\s*)+)$")


def _examples() -> list[tuple[str, int, str]]:
    """(page, line of the fence, source) of every checked python block."""
    found = []
    for page, text in PAGES.items():
        for match in FENCE.finditer(text):
            if match.group(1) != "python":
                continue
            before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            if before.strip() == NOT_CHECKED:
                continue
            found.append((page, text.count("\n", 0, match.start()) + 1, match.group(2)))
    return found


EXAMPLES = _examples()


def _expected(source: str) -> Counter[tuple[int, str]]:
    expected: Counter[tuple[int, str]] = Counter()
    for number, line in enumerate(source.splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            expected.update((number, code) for code in match.group(1).split())
    return expected


@pytest.mark.parametrize(("page", "line", "source"), EXAMPLES,
                         ids=[f"{page}:{line}" for page, line, _ in EXAMPLES])
def test_example_checks_as_the_page_shows(page: str, line: int, source: str) -> None:
    result = Engine().analyze(f"{page}:{line}.py", source)
    assert result.error is None, result.error
    found = Counter((d.span.line, str(d.code)) for d in result.diagnostics)
    assert found == _expected(source), "\n".join(
        f"{d.span.line}:{d.span.column + 1}: {d.code} {d.message}" for d in result.diagnostics)


def test_there_are_examples_with_and_without_diagnostics() -> None:
    # The parametrized test is only worth something if it found both kinds.
    with_markers = [source for _, _, source in EXAMPLES if _expected(source)]
    assert len(with_markers) >= 15 and len(EXAMPLES) - len(with_markers) >= 15
    assert {page for page, _, _ in EXAMPLES} >= {"annotations.md", "rules/sc101.md"}


def _reads_only(command: str) -> bool:
    words = command.split()
    return words[2:3] == ["check"] or (words[2:3] in (["annotate"], ["migrate"]) and "--diff" in words)


def _shown_runs() -> list[tuple[str, str, str, str]]:
    """(page, python source, command, output) of each console block that runs
    `$ shapecheck ... model.py` (check, or annotate/migrate --diff) right after a python
    example: what the command prints for that example."""
    found = []
    for page, text in PAGES.items():
        blocks = list(FENCE.finditer(text))
        for previous, block in itertools.pairwise(blocks):
            command, _, output = block.group(2).partition("\n")
            if (block.group(1) == "console" and previous.group(1) == "python"
                    and command.startswith("$ shapecheck ") and command.endswith(" model.py")):
                assert _reads_only(command), f"{page}: the docs test runs only commands that write nothing: {command}"
                found.append((page, previous.group(2), command, output))
    return found


SHOWN = _shown_runs()


@pytest.mark.parametrize(("page", "source", "command", "output"), SHOWN,
                         ids=[f"{page}:{command}" for page, _, command, _ in SHOWN])
def test_shown_output_is_what_the_checker_prints(page: str, source: str, command: str, output: str,
                                                 tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from shapecheck.cli import main

    (tmp_path / "model.py").write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    main(command.split()[2:])
    assert capsys.readouterr().out == output


def test_some_outputs_are_shown() -> None:
    assert len(SHOWN) >= 2


def slug(heading: str) -> str:
    """The anchor Python-Markdown's toc extension (mkdocs' default) gives a heading."""
    text = re.sub(r"`|\*|_{2}", "", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(text: str) -> set[str]:
    prose = FENCE.sub("", text)
    return {slug(match.group(1)) for match in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", prose, re.M)}


LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _links() -> list[tuple[str, str]]:
    return [(page, match.group(1)) for page, text in PAGES.items()
            for match in LINK.finditer(FENCE.sub("", re.sub(r"`[^`\n]*`", "", text)))]


def test_internal_links_lead_to_a_page_and_heading() -> None:
    links = _links()
    assert len(links) >= 20  # the link check is only worth something if it saw links
    broken = []
    for page, target in links:
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # https:, mailto:: not ours to check offline
        path, _, anchor = target.partition("#")
        resolved = (Path(page).parent / path).as_posix() if path else page
        resolved = _normalise(resolved)
        if resolved not in PAGES and not (DOCS / resolved).is_file():
            broken.append(f"{page}: {target} (no page {resolved})")
        elif anchor and resolved in PAGES and anchor not in _anchors(PAGES[resolved]):
            broken.append(f"{page}: {target} (no heading #{anchor} in {resolved})")
    assert not broken, "\n".join(broken)


def _normalise(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


def test_slug_matches_mkdocs() -> None:
    assert slug("GitHub Actions with SARIF upload") == "github-actions-with-sarif-upload"
    assert slug("`--format gitlab`: Code Quality") == "-format-gitlab-code-quality"


def test_every_check_option_and_setting_is_documented() -> None:
    from shapecheck.arguments import parser
    from shapecheck.config import _KEYS

    check = next(action for action in parser()._subparsers._group_actions  # type: ignore[union-attr]
                 ).choices["check"]  # type: ignore[attr-defined]
    options = {option for action in check._actions for option in action.option_strings
               if option.startswith("--") and option != "--help"}
    documented = PAGES["checking.md"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = sorted(o for o in options if f"`{o}" not in documented)
    assert not missing, f"options missing from docs/checking.md: {missing}"
    missing = sorted(k for k in _KEYS if f"{k} =" not in documented and f"`{k}`" not in documented)
    assert not missing, f"settings missing from docs/checking.md: {missing}"
    missing = sorted(o for o in options if o not in readme)
    assert not missing, f"options missing from README.md: {missing}"
    missing = sorted(k for k in _KEYS if k not in readme)
    assert not missing, f"settings missing from README.md: {missing}"


def test_the_site_builds(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent)) or shutil.which("mkdocs")
    command = [mkdocs] if mkdocs else [sys.executable, "-m", "mkdocs"]
    result = subprocess.run([*command, "build", "--strict", "--site-dir", str(tmp_path / "site")],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site" / "rules" / "sc101" / "index.html").is_file()
    assert (tmp_path / "site" / "annotations" / "index.html").is_file()
    # Code blocks are highlighted: each keeps its language for the theme's highlight.js.
    page = (tmp_path / "site" / "ci" / "index.html").read_text(encoding="utf-8")
    assert "highlight.min.js" in page and "languages/groovy.min.js" in page
    assert 'class="language-yaml"' in page
