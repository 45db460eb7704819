"""What `shapecheck check` does with a run's diagnostics: the format, `--statistics`, where the
output goes (`--output-file`) and the exit status (`--exit-zero`)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shapecheck.diagnostic import INCOMPLETE, Diagnostic
from shapecheck.exits import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from shapecheck.formats import text

STATISTICS_FORMATS = ("text", "json")
"""As ruff's `--statistics`: a table for people, a JSON array for scripts; the CI formats
(github, gitlab, sarif) carry findings, not counts."""


@dataclass(frozen=True, slots=True)
class Count:
    code: str
    name: str
    count: int


def count_by_code(diagnostics: Sequence[Diagnostic]) -> list[Count]:
    """One entry per code found, the most frequent first (ties by code)."""
    from shapecheck.rules import RULES

    counts = Counter(d.code for d in diagnostics)
    names = {str(code): rule.name for code, rule in RULES.items()}
    return [Count(code, names.get(code, "file-not-checked"), n)
            for code, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def render_statistics(diagnostics: Sequence[Diagnostic], files: int, fmt: str) -> str:
    counts = count_by_code(diagnostics)
    if fmt == "json":
        return json.dumps([{"code": c.code, "name": c.name, "count": c.count} for c in counts],
                          indent=2) + "\n"
    width = max((len(str(c.count)) for c in counts), default=1)
    lines = [f"{c.count:>{width}}  {c.code}  {c.name}" for c in counts]
    lines.append(text.summary(diagnostics, files))
    return "\n".join(lines) + "\n"


def write_output(text: str, output_file: Path | None) -> None:
    """The report on stdout, or in `output_file` (its folders created) and nothing on stdout."""
    if output_file is None:
        sys.stdout.write(text)
        return
    output_file.parent.mkdir(parents=True, exist_ok=True)
    # newline="": the formats' own line ends, on every platform (a snapshot compares bytes).
    with output_file.open("w", encoding="utf-8", newline="") as out:
        out.write(text)


def exit_status(diagnostics: Sequence[Diagnostic], errors: int, exit_zero: bool) -> int:
    """0 clean, 1 findings (0 with `--exit-zero`), 2 when a file was not (fully) checked:
    `--exit-zero` accepts findings, never a file that went unchecked."""
    if errors or any(d.code in INCOMPLETE for d in diagnostics):
        return EXIT_ERROR
    return EXIT_FINDINGS if diagnostics and not exit_zero else EXIT_CLEAN


@dataclass(frozen=True, slots=True)
class OutputOptions:
    """The options of `shapecheck check` that say what becomes of the diagnostics."""

    format: str = "text"
    statistics: bool = False
    exit_zero: bool = False
    output_file: Path | None = None
    texts: Mapping[str, str] = field(default_factory=dict)  # checked in place of files, by path

    def problem(self) -> str | None:
        """Why these options cannot be used together, if they cannot."""
        if self.statistics and self.format not in STATISTICS_FORMATS:
            return (f"--statistics works with --format {' or '.join(STATISTICS_FORMATS)}, "
                    f"not {self.format}")
        return None


def render(diagnostics: Sequence[Diagnostic], files: int, root: Path, options: OutputOptions) -> str:
    """The run's output, in the format `options` ask for."""
    from shapecheck.formats import formatter

    if options.statistics:
        return render_statistics(diagnostics, files, options.format)
    return formatter(options.format)(diagnostics, files, root, options.texts)


def emit(diagnostics: Sequence[Diagnostic], files: int, errors: int, root: Path,
         options: OutputOptions) -> tuple[int, str]:
    """Write the run's output as `options` say; the exit status, and the output (for the run
    memo to keep)."""
    text = render(diagnostics, files, root, options)
    try:
        write_output(text, options.output_file)
    except OSError as error:
        sys.stderr.write(f"shapecheck: error: cannot write {options.output_file}: "
                         f"{error.strerror or error}\n")
        return EXIT_ERROR, text
    return exit_status(diagnostics, errors, options.exit_zero), text
