"""`shapecheck`: check (and fix, which is check --fix), rules, explain, run.

Exit 0: clean. 1: diagnostics. 2: a usage error, an internal error, or a file that could not
be (fully) checked; the failure is in the output too, in every format.
"""

from __future__ import annotations

import os
import sys

from shapecheck.exits import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS  # imports nothing

# Nothing beyond what Python imports at start-up is imported before a run answered by its memo
# (memo.py) has exited: typing included.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from pathlib import Path

    from shapecheck.cache import ResultCache
    from shapecheck.config import Config
    from shapecheck.diagnostic import Diagnostic
    from shapecheck.engine import Engine
    from shapecheck.memo_record import Record
    from shapecheck.results import Report


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
    if args_list[:1] == ["check"]:
        from shapecheck.memo import replay

        replayed = replay(args_list)
        if replayed is not None:
            return replayed
    from shapecheck.arguments import COMMANDS
    from shapecheck.arguments import parser as command_line

    parser = command_line(args_list[0] if args_list[:1] and args_list[0] in COMMANDS else None)
    args = parser.parse_args(args_list)
    if args.version:
        from shapecheck import __version__

        print(f"shapecheck {__version__}")
        return EXIT_CLEAN
    if args.command in ("check", "fix"):  # `fix` is `check --fix`: one run, one set of options
        return _check(args, args_list)
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


def _check(args: argparse.Namespace, argv: list[str]) -> int:
    from dataclasses import replace

    from shapecheck.config import ConfigError, config_for, load_config
    from shapecheck.files import discover
    from shapecheck.reporting import OutputOptions
    from shapecheck.stdin import stdin_path

    record = None
    try:
        stdin = stdin_path(args.paths, args.stdin_filename)
        if stdin is None:
            record = _record(args, argv)  # before the configuration is read
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
        _adoption_problem(args, stdin is not None)
    except ConfigError as error:
        sys.stderr.write(f"shapecheck: error: {error}\n")
        return EXIT_ERROR
    # A broken link is there (a pre-commit hook passes it): checking it says it is unreadable.
    missing = [p for p in args.paths if not os.path.lexists(p)] if stdin is None else []
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

        stdin_run = check_stdin(stdin, config)
        if stdin_run is None:
            return EXIT_CLEAN  # an excluded PATH prints nothing, as ruff does
        checked, text = stdin_run
        output = replace(output, texts={str(stdin): text})
        found = (checked.diagnostics if args.baseline is None
                 else _baselined(args, checked.diagnostics, [str(stdin)], config))
        if isinstance(found, int):
            return found
        status, _ = emit(found, 1, len(checked.errors), config.root, output)
        for failed in checked.errors:
            sys.stderr.write(f"shapecheck: {failed.path}: {failed.error}\n")
        return status
    if args.watch:
        from shapecheck.watch import watch

        def check(files: list[str]) -> Report:
            return Engine(config, cache=_cache(args, config)).check_files(files, args.jobs)

        return watch(lambda: [str(path) for path in discover(args.paths or ["."], config)], check, config.root)
    cache = _cache(args, config)
    if record is not None and cache is not None:
        record.prepare(cache)
    # After an edit, the files the last run found, with the results that still hold.
    files = record.reuse(config) if record is not None and cache is not None else None
    if files is not None and cache is not None and record is not None:
        cache.known = record.reused
    else:
        files = [str(path) for path in discover(args.paths or ["."], config, None if record is None else record.stat)]
    warning = ""
    if not files:
        # As ruff: nothing to check is not an error, but it is rarely what was meant.
        warning = f"shapecheck: warning: no Python files found under {', '.join(args.paths or ['.'])}\n"
        sys.stderr.write(warning)
    modules = record.files(files, config) if record is not None else None
    show = not args.no_progress and wanted(len(files), args.format in HUMAN_FORMATS)
    with progress_bar(len(files)) if show else no_progress() as progress:
        engine = Engine(config, modules, cache=cache)
        report = engine.check_files(files, args.jobs, progress)
    shown: Sequence[Diagnostic] | int = report.diagnostics
    if args.fix or args.diff:
        shown = _fix(args, engine, report)
    if args.add_noqa:
        from shapecheck import noqa

        added = noqa.add_noqa(report.diagnostics)
        noqa.report(added)
        shown = EXIT_ERROR if added.failed else EXIT_CLEAN
    elif args.baseline is not None and not isinstance(shown, int):
        shown = _baselined(args, shown, files, config)
    if isinstance(shown, int):  # nothing to report: files or the baseline were written
        for failed in report.errors:
            sys.stderr.write(f"shapecheck: {failed.path}: {failed.error}\n")
        return EXIT_ERROR if report.errors else shown
    status, text = emit(shown, len(files), len(report.errors), config.root, output)
    if record is not None and cache is not None:
        record.finish(report, cache, text, warning, status)
    for failed in report.errors:
        sys.stderr.write(f"shapecheck: {failed.path}: {failed.error}\n")
    return status


def _fix(args: argparse.Namespace, engine: Engine, report: Report) -> Sequence[Diagnostic] | int:
    """Apply the fixes (`--fix`): the diagnostics left; or print them (`--diff`): the status."""
    from shapecheck import fixes

    run = fixes.fix_files(report, engine.analyze, args.unsafe_fixes)
    changed = len(run.texts)
    where = f"{run.fixed} diagnostic{'s' if run.fixed != 1 else ''} in {changed} file{'s' if changed != 1 else ''}"
    left = (f" ({run.unsafe_left} more with --unsafe-fixes)" if run.unsafe_left else "")
    if args.diff:
        sys.stdout.write(fixes.diff(run))
        sys.stderr.write(f"Would fix {where}{left}.\n")
        return EXIT_FINDINGS if changed else EXIT_CLEAN
    failed = fixes.write(run)
    for failure in failed:
        sys.stderr.write(f"shapecheck: {failure}\n")
    sys.stderr.write(f"Fixed {where}{left}.\n")
    if failed:
        return EXIT_ERROR
    kept = [d for d in report.diagnostics if d.path not in run.results]
    kept.extend(d for result in run.results.values() for d in result.diagnostics)
    return sorted(kept, key=lambda d: d.sort_key())


def _adoption_problem(args: argparse.Namespace, stdin: bool) -> None:
    """Raise ConfigError where the options that adopt the checker on a codebase clash."""
    from shapecheck.config import ConfigError

    if args.update_baseline and args.baseline is None:
        raise ConfigError("--update-baseline needs --baseline FILE")
    fixing = args.fix or args.diff
    if args.watch and (stdin or fixing or args.add_noqa or args.baseline is not None or args.output_file
                       or args.statistics):
        raise ConfigError("--watch prints the changes of each run: it cannot be used with --stdin-filename, "
                          "--fix, --diff, --add-noqa, --baseline, --output-file or --statistics")
    if args.unsafe_fixes and not fixing:
        raise ConfigError("--unsafe-fixes goes with --fix or --diff")
    if fixing and (stdin or args.add_noqa):
        raise ConfigError(f"--fix and --diff rewrite the checked files: they cannot be used with "
                          f"{'--stdin-filename' if stdin else '--add-noqa'}")
    if args.add_noqa and (stdin or args.baseline is not None):
        raise ConfigError(f"--add-noqa writes into the checked files: it cannot be used with "
                          f"{'--stdin-filename' if stdin else '--baseline'}")
    if args.update_baseline and stdin:
        raise ConfigError("--update-baseline needs the whole run, not one file from stdin")


def _baselined(args: argparse.Namespace, diagnostics: Sequence[Diagnostic], files: Sequence[str],
               config: Config) -> Sequence[Diagnostic] | int:
    """The diagnostics that `--baseline FILE` does not hold; or the exit status, where the
    baseline was written instead (it did not exist, or `--update-baseline`) or is unreadable."""
    from shapecheck import baseline
    from shapecheck.config import ConfigError

    file: Path = args.baseline
    try:
        if args.update_baseline or not file.exists():
            try:
                count = baseline.write(file, diagnostics, config.root)
            except OSError as error:
                raise ConfigError(f"cannot write {file}: {error.strerror or error}") from error
            sys.stderr.write(f"shapecheck: wrote {count} diagnostic{'s' if count != 1 else ''} to the "
                             f"baseline {file}; later runs with --baseline report only new ones\n")
            return EXIT_CLEAN
        filtered = baseline.apply(baseline.read(file), diagnostics, config.root, files)
    except ConfigError as error:
        sys.stderr.write(f"shapecheck: error: {error}\n")
        return EXIT_ERROR
    if filtered.fixed:
        sys.stderr.write(f"shapecheck: {filtered.fixed} entr{'ies' if filtered.fixed != 1 else 'y'} of the "
                         f"baseline {file} no longer occur; --update-baseline drops them\n")
    return filtered.diagnostics


def _record(args: argparse.Namespace, argv: list[str]) -> Record | None:
    """The record of a run that can keep a memo (memo.py): with the result cache on and the
    output on stdout; never one that writes files or reads a baseline."""
    if args.no_cache or args.output_file is not None:
        return None
    if args.add_noqa or args.baseline is not None or args.fix or args.diff or args.watch:
        return None
    from shapecheck.memo_record import Record

    return Record.start(argv, args.config)


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
