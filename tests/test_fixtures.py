"""Every fixture gets exactly the diagnostics its `# expect:` markers promise, through the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").glob("*.py")) + sorted((ROOT / "fixtures" / "models").glob("*.py"))

# The model programs' planted bugs the checker does not find yet, each with the reason.
KNOWN_MISSES: dict[tuple[str, int, str], str] = {}
MARKER = re.compile(r"#\s*expect:\s*(?P<codes>(?:SC\d{3}[\s,]*)+)$")


def expected(path: Path) -> Counter[tuple[int, str]]:
    found: Counter[tuple[int, str]] = Counter()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            for code in re.findall(r"SC\d{3}", match.group("codes")):
                found[(number, code)] += 1
    return found


@pytest.fixture(scope="module")
def reported() -> dict[str, Counter[tuple[int, str]]]:
    """One CLI run over the whole folder, as CI would run it."""
    run = subprocess.run(
        [sys.executable, "-m", "shapecheck", "check", "fixtures", "--format", "json"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    assert run.returncode in (0, 1), run.stderr
    by_file: dict[str, Counter[tuple[int, str]]] = {}
    for item in json.loads(run.stdout):
        name = Path(item["path"]).name
        by_file.setdefault(name, Counter())[(item["line"], item["code"])] += 1
    return by_file


def test_there_are_enough_fixtures() -> None:
    assert len(FIXTURES) >= 60
    codes = {code for path in FIXTURES for (_, code) in expected(path)}
    for code in ("SC001", "SC002", "SC003", "SC004", "SC101", "SC102", "SC103", "SC104", "SC105",
                 "SC106", "SC107", "SC201", "SC202", "SC203", "SC204", "SC205", "SC206", "SC207", "SC208",
                 "SC209", "SC210", "SC301"):
        assert code in codes, f"no fixture expects {code}"


def test_known_misses_are_still_missed(reported: dict[str, Counter[tuple[int, str]]]) -> None:
    """A miss fixed is taken off the list: the list says only what is true."""
    for name, line, code in KNOWN_MISSES:
        assert (line, code) in expected(ROOT / "fixtures" / "models" / name)
        assert (line, code) not in reported.get(name, Counter()), f"{name}:{line} {code} is found now"


def test_the_model_programs_are_many_and_uniquely_named() -> None:
    models = [p for p in FIXTURES if p.parent.name == "models"]
    assert len(models) >= 20
    assert len({p.name for p in FIXTURES}) == len(FIXTURES)  # results are matched by file name


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture(path: Path, reported: dict[str, Counter[tuple[int, str]]]) -> None:
    got = reported.get(path.name, Counter())
    want = expected(path) - Counter(key[1:] for key in KNOWN_MISSES if key[0] == path.name)
    missing = sorted((want - got).elements())
    extra = sorted((got - want).elements())
    assert not missing and not extra, f"missing {missing}, unexpected {extra}"
