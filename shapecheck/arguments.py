"""The command line of `shapecheck`: its subcommands and options (argparse)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

from shapecheck.exits import EXIT_ERROR


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"shapecheck: error: {message}\n")
        raise SystemExit(EXIT_ERROR)


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with `command`, only that subcommand's (the others are not
    built: argparse looks up translations for each parser, a tenth of a warm check's time)."""
    top = _Parser(prog="shapecheck", description="Static checking of named-shape JAX programs.")
    top.add_argument("--version", action="store_true", help="print the version and exit")
    commands = top.add_subparsers(dest="command", parser_class=_Parser)
    for name, add in COMMANDS.items():
        if command is None or command == name:
            add(commands)
    return top


_Commands: TypeAlias = "argparse._SubParsersAction[_Parser]"


def _add_check(commands: _Commands) -> None:
    _check_options(commands.add_parser("check", help="check files and directories (default: .)"), fix=False)


def _add_fix(commands: _Commands) -> None:
    fix = commands.add_parser("fix", help="apply the safe fixes the rules offer, as `check --fix` (--diff: show them)",
                              description="The same run as `shapecheck check --fix`, with the options of check that go with it.")
    _check_options(fix, fix=True)


def _check_options(check: argparse.ArgumentParser, *, fix: bool) -> None:
    """The options of `check`; `fix` is the same command with --fix always on."""
    from shapecheck.formats import FORMATS

    check.add_argument("paths", nargs="*", default=[], help="files or directories")
    check.add_argument("--format", choices=sorted(FORMATS), default="text",
                       help="text (default), concise (one line each), json, github (workflow "
                            "annotations), gitlab (Code Quality report), sarif (code scanning), junit, "
                            "pylint, azure (Azure Pipelines)")
    check.add_argument("--select", action="append", metavar="CODES",
                       help="only these codes or prefixes, comma-separated (SC1, SC201)")
    check.add_argument("--ignore", action="append", metavar="CODES", help="codes or prefixes to skip")
    check.add_argument("--config", type=Path, help="a pyproject.toml (or TOML file) to read settings from")
    check.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                       help="gitignore-style pattern to skip (adds to the configured ones)")
    check.add_argument("--jobs", "-j", type=int, help="worker processes (default: all cores)")
    check.add_argument("--no-respect-gitignore", action="store_true", help="check files .gitignore hides")
    check.add_argument("--statistics", action="store_true",
                       help="print the number of diagnostics per code instead of each one (text or json)")
    check.add_argument("--exit-zero", action="store_true",
                       help="exit 0 even when there are diagnostics (2 still means a file was not checked)")
    check.add_argument("--output-file", "-o", type=Path, metavar="FILE",
                       help="write the output to FILE instead of stdout")
    check.add_argument("--no-progress", action="store_true",
                       help="never show the progress bar (shown on a terminal for many files, text format only)")
    if fix:
        # What cannot go with --fix is left out, not refused after parsing.
        check.set_defaults(fix=True, stdin_filename=None, watch=False, add_noqa=False, baseline=None,
                           update_baseline=False)
        check.add_argument("--unsafe-fixes", action="store_true", help="apply (or with --diff show) the unsafe fixes too")
    else:
        check.add_argument("--stdin-filename", metavar="PATH",
                           help="check the text on stdin (path `-`) as if it were the file PATH")
        check.add_argument("--fix", action="store_true",
                           help="apply the safe fixes the rules offer, then report what is left")
        check.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff: the unsafe fixes too")
    check.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff and write nothing (exit 1 when there are some)")
    if not fix:
        check.add_argument("--watch", action="store_true",
                           help="check again whenever a file changes, printing only what changed (Ctrl-C stops)")
        check.add_argument("--add-noqa", action="store_true",
                           help="write `# shapecheck: ignore[CODE]` on every line with a diagnostic, report nothing")
        check.add_argument("--baseline", type=Path, metavar="FILE",
                           help="report only diagnostics not in FILE (written with today's when it does not exist)")
        check.add_argument("--update-baseline", action="store_true",
                           help="with --baseline: rewrite FILE with today's diagnostics")
    check.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    check.add_argument("--cache-dir", type=Path, metavar="DIR",
                       help="where the result cache lives (default: .shapecheck_cache in the project root)")


def _add_rules(commands: _Commands) -> None:
    commands.add_parser("rules", help="list the diagnostic codes")


def _add_explain(commands: _Commands) -> None:
    explain = commands.add_parser("explain", help="print a rule's documentation")
    explain.add_argument("code", help="a code (SC201) or rule name (resource-cooccurrence)")


def _add_lsp(commands: _Commands) -> None:
    commands.add_parser("lsp", help="run the language server on stdio (needs the `lsp` extra)")


def _add_codemod(name: str) -> Callable[[_Commands], None]:
    def add(commands: _Commands) -> None:
        from shapecheck.codemods import commands as codemods

        help_, description = ((codemods.ANNOTATE_HELP, codemods.ANNOTATE_DESCRIPTION) if name == "annotate"
                              else (codemods.MIGRATE_HELP, codemods.MIGRATE_DESCRIPTION))
        codemods.add_arguments(commands.add_parser(name, help=help_, description=description,
                                                   formatter_class=argparse.RawDescriptionHelpFormatter))
    return add


def _add_run(commands: _Commands) -> None:
    run = commands.add_parser("run", help="check, then run a program written for xmap on current JAX",
                              add_help=False)
    run.add_argument("rest", nargs=argparse.REMAINDER)


COMMANDS: dict[str, Callable[[_Commands], None]] = {
    "check": _add_check, "fix": _add_fix, "rules": _add_rules, "explain": _add_explain, "lsp": _add_lsp,
    "annotate": _add_codemod("annotate"), "migrate": _add_codemod("migrate"), "run": _add_run,
}
