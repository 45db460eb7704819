"""The `annotate` and `migrate` subcommands: their options, and the calls into the codemods."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shapecheck.codemods.driver import Mode, Rewrite
    from shapecheck.config import Config

# Every `shapecheck` run builds these subcommands' options; the codemods' driver (difflib, the
# file walk) is imported only when one of them runs.

ANNOTATE_HELP = "write the fully known inferred types as annotations"
ANNOTATE_DESCRIPTION = """\
Write the types shapecheck infers, where every part of them is known, as annotations on
unannotated assignments, function returns and parameters, in the annotation language
(f32[(5, 7), {'batch': 20}]; jaxtyping's Float32[Array, "5 7"] in files that use jaxtyping),
and import the dtype names used. Only what holds for every caller is written: module-level
assignments; the returns and assignments of functions whose parameters all declare fully known
types; and the parameters of private (_name) or local functions whose every call is in view
and passes one fully known type. Formatting and comments are kept; a second run changes
nothing; a file whose annotated form would get a new diagnostic is left as it is.

Exit status: 0 done; 1 with --check when a file would change; 2 when a path does not exist or
a file cannot be read, decoded, parsed or analysed (the other files are still processed)."""

MIGRATE_HELP = "rewrite a program written for xmap to run on shapecheck.runtime under plain python"
MIGRATE_DESCRIPTION = """\
Rewrite programs written for the removed jax.experimental.maps.xmap so that plain `python`
runs them as `shapecheck run` does: xmap is imported from shapecheck.runtime (every import form
of jax.experimental.maps; its Mesh from jax.sharding), jax.numpy, jax.lax, jax.nn and
jax.scipy.special from shapecheck.runtime only where the program uses them with named axes
(axis names in reductions, einsum braces, pdot and the collectives, a named one_hot, logsumexp
or softmax), and a mesh entered with `with Mesh(...):` or `with mesh:` through
`with jax.set_mesh(...):`. Formatting and comments are kept; a second run changes nothing.
What cannot be migrated is left as written, with a message.

Exit status: 0 done; 1 with --check when a file would change, or when something was left with
a message; 2 when a path does not exist or a file cannot be read, decoded or parsed (the other
files are still processed)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options both codemods take."""
    parser.add_argument("paths", nargs="+", help="files or directories (directories recurse over *.py)")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--diff", action="store_true", help="print a unified diff instead of writing")
    shown.add_argument("--check", action="store_true",
                       help="write nothing; exit 1 when a file would change")
    parser.add_argument("--config", type=Path, help="a pyproject.toml (or TOML file) to read settings from")


def _config(args: argparse.Namespace, command: str) -> Config | None:
    """The settings a codemod runs with; None (said on stderr) when they cannot be used."""
    from shapecheck.config import ConfigError, load_config

    try:
        return load_config(args.config)
    except ConfigError as error:
        sys.stderr.write(f"shapecheck {command}: error: {error}\n")
        return None


def annotate(args: argparse.Namespace) -> int:
    from shapecheck.codemods.annotate import annotate_text
    from shapecheck.codemods.driver import run
    from shapecheck.engine import Engine, tune_gc
    from shapecheck.exits import EXIT_ERROR
    from shapecheck.project import ProjectIndex

    config = _config(args, "annotate")
    if config is None:
        return EXIT_ERROR
    tune_gc()
    # Every code counts when the annotated file is compared with the original: an ignored SC103
    # must not hide an annotation that contradicts the program.
    engine = Engine(replace(config, select=None, ignore=frozenset()))
    # Calls into the project's other modules are followed, as `shapecheck check` does.
    engine.use_modules(ProjectIndex.of(list(args.paths), [config.root]))

    def transform(path: str, text: str) -> Rewrite:
        return annotate_text(path, text, engine)

    return run(args.paths, transform, _mode(args), config, command="annotate")


def migrate(args: argparse.Namespace) -> int:
    from shapecheck.codemods.driver import run
    from shapecheck.codemods.migrate import migrate_text
    from shapecheck.exits import EXIT_ERROR

    config = _config(args, "migrate")
    if config is None:
        return EXIT_ERROR
    return run(args.paths, migrate_text, _mode(args), config, command="migrate")


def _mode(args: argparse.Namespace) -> Mode:
    from shapecheck.codemods.driver import Mode

    if args.diff:
        return Mode.DIFF
    if args.check:
        return Mode.CHECK
    return Mode.WRITE
