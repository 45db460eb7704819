"""Running real mypy (its API, in this process) with the plugin, and reading what it reports."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mypy import api

from shapecheck.plugin.codes import SC_CODES

ROOT = Path(__file__).resolve().parents[2]

_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?:(?P<column>\d+):)? (?P<severity>error|note): "
                   r"(?P<message>.*?)(?:  \[(?P<code>[a-z0-9-]+)\])?$")


@dataclass(frozen=True, slots=True)
class Message:
    path: str
    line: int
    column: int  # 1-based, as mypy prints it; 0 where mypy prints none
    severity: str
    message: str
    code: str | None

    @property
    def sc_code(self) -> str | None:
        """The shapecheck code of a plugin error (`shape-broadcast-mismatch` -> SC101)."""
        return SC_CODES.get(self.code or "") if self.severity == "error" else None


@dataclass(frozen=True, slots=True)
class Result:
    messages: list[Message]
    stdout: str
    stderr: str
    status: int

    def errors(self, file: str | None = None) -> list[Message]:
        return [m for m in self.messages if m.severity == "error"
                and (file is None or Path(m.path).name == file)]

    def shape_pairs(self, file: str) -> Counter[tuple[int, str]]:
        return Counter((m.line, m.sc_code) for m in self.errors(file) if m.sc_code)

    def mypy_errors(self, file: str) -> set[tuple[int, str | None]]:
        """mypy's own errors (not the plugin's), as (line, code)."""
        return {(m.line, m.code) for m in self.errors(file) if m.sc_code is None}


def write_config(folder: Path, *, plugin: bool = True, shapecheck: str = "") -> Path:
    """A mypy.ini for the run, set up as the README says for a checkout: mypy_path finds the
    repository's `shapecheck` package (mypy cannot see through setuptools' editable import hook)
    and the stubs that the wheel installs as the partial `jax-stubs` package."""
    lines = ["[mypy]", f"mypy_path = {ROOT}, {ROOT / 'stubs'}"]
    if plugin:
        lines.append("plugins = shapecheck.plugin")
    if shapecheck:
        lines += ["[shapecheck]", shapecheck]
    path = folder / "mypy.ini"
    path.write_text("\n".join(lines) + "\n")
    return path


def cache_for(cache_dir: Path, extra: Iterable[str] = ()) -> Path:
    """The folder in `cache_dir` for runs with the flags `extra`.

    mypy keeps with every cached module the flags it was checked under (--strict's,
    --warn-unused-ignores...) and analyses the module again, jax's thousands of lines included,
    when a run's flags differ; runs that alternated flags over one folder would each start cold.
    Runs with the same flags still share one folder, as the tests of the cache need.
    """
    return cache_dir / ("_".join(sorted(flag.lstrip("-") for flag in extra)) or "default")


def run_mypy(paths: Sequence[str | Path], config: Path, cache_dir: Path,
             extra: Iterable[str] = ()) -> Result:
    extra = list(extra)
    args = ["--config-file", str(config), "--cache-dir", str(cache_for(cache_dir, extra)),
            "--show-column-numbers", "--show-error-codes", "--no-error-summary", "--no-pretty", "--hide-error-context",
            "--no-color-output", *extra, *map(str, paths)]
    stdout, stderr, status = api.run(args)
    return parse_output(stdout, stderr, status)


def parse_output(stdout: str, stderr: str, status: int) -> Result:
    """mypy's (or dmypy's) output, one message a line."""
    messages = [Message(m["path"], int(m["line"]), int(m["column"] or 0), m["severity"], m["message"],
                        m["code"])
                for m in (_LINE.match(line) for line in stdout.splitlines()) if m]
    return Result(messages, stdout, stderr, status)
