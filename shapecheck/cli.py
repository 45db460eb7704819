"""`shapecheck`: check, rules, explain, run.

Exit 0: clean. 1: diagnostics. 2: a usage error, an internal error, or a file that could not
be (fully) checked; the failure is in the output too, in every format.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from shapecheck.cache import ResultCache
    from shapecheck.config import Config

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"shapecheck: error: {message}\n")
        raise SystemExit(EXIT_ERROR)


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with `command`, only that subcommand's (the others are not
    built: argparse looks up translations for each parser, a tenth of a warm check's time)."""
    parser = _Parser(prog="shapecheck", description="Static checking of named-shape JAX programs.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    for name, add in _COMMANDS.items():
        if command is None or command == name:
            add(commands)
    return parser


_Commands: TypeAlias = "argparse._SubParsersAction[_Parser]"


def _add_check(commands: _Commands) -> None:
    from shapecheck.formats import FORMATS

    check = commands.add_parser("check", help="check files and directories (default: .)")
    check.add_argument("paths", nargs="*", default=[], help="files or directories")
    check.add_argument("--format", choices=sorted(FORMATS), default="text",
                       help="text (default), json, github (workflow annotations), "
                            "gitlab (Code Quality report), sarif (code scanning)")
    check.add_argument("--select", action="append", metavar="CODES",
                       help="only these codes or prefixes, comma-separated (SC1, SC201)")
    check.add_argument("--ignore", action="append", metavar="CODES", help="codes or prefixes to skip")
    check.add_argument("--config", type=Path, help="a pyproject.toml (or TOML file) to read settings from")
    check.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                       help="gitignore-style pattern to skip (adds to the configured ones)")
    check.add_argument("--jobs", "-j", type=int, help="worker processes (default: all cores)")
    check.add_argument("--no-respect-gitignore", action="store_true", help="check files .gitignore hides")
    check.add_argument("--stdin-filename", metavar="PATH",
                       help="check the text on stdin (path `-`) as if it were the file PATH")
    check.add_argument("--statistics", action="store_true",
                       help="print the number of diagnostics per code instead of each one (text or json)")
    check.add_argument("--exit-zero", action="store_true",
                       help="exit 0 even when there are diagnostics (2 still means a file was not checked)")
    check.add_argument("--output-file", "-o", type=Path, metavar="FILE",
                       help="write the output to FILE instead of stdout")
    check.add_argument("--no-progress", action="store_true",
                       help="never show the progress bar (shown on a terminal for many files, text format only)")
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


_COMMANDS: dict[str, Callable[[_Commands], None]] = {
    "check": _add_check, "rules": _add_rules, "explain": _add_explain, "lsp": _add_lsp,
    "annotate": _add_codemod("annotate"), "migrate": _add_codemod("migrate"), "run": _add_run,
}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _main(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()  # a full disk or closed pipe must fail here, not after the exit code
        return code
    except BrokenPipeError:
        # `shapecheck rules | head`: the reader left; that is not an error of ours.
        _discard_stdout()
        return EXIT_CLEAN
    except KeyboardInterrupt:
        return 130
    except SystemExit:
        raise
    except BaseException as error:  # anything unexpected is exit 2, never 1 ("findings")
        _discard_stdout()
        import traceback

        sys.stderr.write(f"shapecheck: internal error: {error!r}\n{traceback.format_exc()}")
        return EXIT_ERROR


def _discard_stdout() -> None:
    # What is left in the buffer would fail again at interpreter exit and turn the exit code
    # into 120: point stdout at /dev/null instead (the recipe of Python's signal docs).
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a real file (captured by a test harness): nothing will flush late


def _main(args_list: list[str]) -> int:
    if args_list[:1] == ["run"]:
        from shapecheck.runner import main as run_main

        return run_main(args_list[1:])
    parser = _parser(args_list[0] if args_list[:1] and args_list[0] in _COMMANDS else None)
    args = parser.parse_args(args_list)
    if args.version:
        from shapecheck import __version__

        print(f"shapecheck {__version__}")
        return EXIT_CLEAN
    if args.command == "check":
        return _check(args)
    if args.command == "rules":
        return _rules()
    if args.command == "explain":
        return _explain(args.code)
    if args.command == "lsp":
        from shapecheck.lsp import main as lsp_main

        return lsp_main()
    if args.command in ("annotate", "migrate"):
        from shapecheck.codemods import commands as codemods

        return codemods.annotate(args) if args.command == "annotate" else codemods.migrate(args)
    parser.print_help()
    return EXIT_ERROR


def _check(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from shapecheck.config import ConfigError, load_config
    from shapecheck.files import discover
    from shapecheck.reporting import OutputOptions
    from shapecheck.stdin import config_for, stdin_path

    try:
        stdin = stdin_path(args.paths, args.stdin_filename)
        config = load_config(args.config) if stdin is None else config_for(stdin, args.config)
        config = config.with_codes(args.select, args.ignore)
        if args.exclude:
            config = replace(config, extend_exclude=config.extend_exclude + tuple(args.exclude))
        if args.no_respect_gitignore:
            config = replace(config, respect_gitignore=False)
        if args.jobs is not None and args.jobs < 1:
            raise ConfigError("--jobs must be at least 1")
        output = OutputOptions(args.format, args.statistics, args.exit_zero, args.output_file)
        if output.problem():
            raise ConfigError(output.problem())
    except ConfigError as error:
        sys.stderr.write(f"shapecheck: error: {error}\n")
        return EXIT_ERROR
    missing = [p for p in args.paths if not Path(p).exists()] if stdin is None else []
    if missing:
        sys.stderr.write(f"shapecheck: error: no such file or directory: {', '.join(missing)}\n")
        return EXIT_ERROR
    from shapecheck.engine import Engine, tune_gc
    from shapecheck.formats import HUMAN_FORMATS
    from shapecheck.progress import no_progress, progress_bar, wanted
    from shapecheck.reporting import emit

    tune_gc()
    if stdin is not None:
        from shapecheck.stdin import check_stdin

        checked = check_stdin(stdin, config)
        if checked is None:
            return EXIT_CLEAN  # an excluded PATH prints nothing, as ruff does
        status = emit(checked.diagnostics, 1, len(checked.errors), config.root, output)
        for failed in checked.errors:
            sys.stderr.write(f"shapecheck: {failed.path}: {failed.error}\n")
        return status
    files = discover(args.paths or ["."], config)
    if not files:
        # As ruff: nothing to check is not an error, but it is rarely what was meant.
        sys.stderr.write(f"shapecheck: warning: no Python files found under "
                         f"{', '.join(args.paths or ['.'])}\n")
    show = not args.no_progress and wanted(len(files), args.format in HUMAN_FORMATS)
    with progress_bar(len(files)) if show else no_progress() as progress:
        report = Engine(config, cache=_cache(args, config)).check_files([str(f) for f in files], args.jobs,
                                                                       progress)
    status = emit(report.diagnostics, len(files), len(report.errors), config.root, output)
    for failed in report.errors:
        sys.stderr.write(f"shapecheck: {failed.path}: {failed.error}\n")
    return status


def _cache(args: argparse.Namespace, config: Config) -> ResultCache | None:
    if args.no_cache:
        return None
    from shapecheck.cache import ResultCache

    return ResultCache(args.cache_dir or ResultCache.default_folder(config), config)


def _rules() -> int:
    from shapecheck.rules import RULES

    width = max((len(rule.name) for rule in RULES.values()), default=0)
    for rule in RULES.values():
        first = rule.summary.split(". ")[0].rstrip(".")
        print(f"{rule.code}  {rule.name:<{width}}  {first}")
    return EXIT_CLEAN


def _explain(code: str) -> int:
    from shapecheck.rules import RULES, get_rule

    rule = get_rule(code)
    if rule is None:
        sys.stderr.write(f"shapecheck: error: unknown rule {code!r}; known: {', '.join(RULES)}\n")
        return EXIT_ERROR
    print(rule.explain())
    return EXIT_CLEAN


if __name__ == "__main__":
    raise SystemExit(main())
