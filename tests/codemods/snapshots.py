"""The codemods' input programs and their expected outputs (snapshots beside them)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from shapecheck.diagnostic import Diagnostic

PROGRAMS = Path(__file__).parent / "programs"
EXAMPLES = Path(__file__).parents[2] / "examples"
UPDATE = os.environ.get("SHAPECHECK_UPDATE_SNAPSHOTS") == "1"


def programs(kind: str) -> list[Path]:
    return sorted((PROGRAMS / kind).glob("*.py"))


def assert_snapshot(kind: str, program: Path, text: str) -> None:
    """`text` is the codemod's output for `program`, as recorded in programs/KIND/expected/."""
    expected = PROGRAMS / kind / "expected" / program.name
    if UPDATE or not expected.exists():
        expected.parent.mkdir(exist_ok=True)
        expected.write_text(text)
    assert text == expected.read_text(), f"output differs from {expected}; rerun with SHAPECHECK_UPDATE_SNAPSHOTS=1"


def found(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> Counter[tuple[str, str]]:
    """Diagnostics by code and message: a codemod moves lines, never what is found."""
    return Counter((str(d.code), d.message) for d in diagnostics)
