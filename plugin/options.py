"""The plugin's settings: `[shapecheck]` in mypy.ini/setup.cfg or `[tool.shapecheck]` in pyproject.toml.

They are read from the file mypy itself was configured from, and parsed by the same
`shapecheck.config.from_table` as the CLI's, so both front ends accept the same keys.
"""

from __future__ import annotations

import configparser
import os
import sys
import tomllib
from pathlib import Path
from typing import Final

from mypy.options import Options

from shapecheck.config import Config, ConfigError, from_table

# Bumped whenever the plugin's output for an unchanged file could change: it is part of
# `report_config_data`, so mypy's cache never replays diagnostics of an older plugin.
PLUGIN_VERSION: Final = "3"

_LIST_KEYS: Final = frozenset({"select", "ignore", "exclude", "extend-exclude", "annotation-names",
                               "extend-annotation-names"})


def load_config(options: Options) -> Config:
    """The Config for this mypy run; a bad setting stops mypy with a usage error, as mypy's own do."""
    path = Path(options.config_file) if options.config_file else None
    if path is None or not path.is_file():
        return Config(root=Path.cwd())
    try:
        table = _toml_table(path) if path.suffix == ".toml" else _ini_table(path)
        return from_table(table, path.parent.resolve())
    except (ConfigError, OSError, tomllib.TOMLDecodeError, configparser.Error) as error:
        sys.stderr.write(f"{path}: [shapecheck]: {error}\n")
        raise SystemExit(2) from error


def _toml_table(path: Path) -> dict[str, object]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    section = data.get("tool", {}).get("shapecheck", {})
    return dict(section) if isinstance(section, dict) else {}


def _ini_table(path: Path) -> dict[str, object]:
    parser = configparser.ConfigParser()
    parser.read(path, encoding="utf-8")
    if not parser.has_section("shapecheck"):
        return {}
    table: dict[str, object] = {}
    for key, raw in parser.items("shapecheck"):
        # ini files spell lists with commas or newlines and keys with either - or _ (as mypy does).
        key = key.replace("_", "-")
        value = raw.strip()
        if key in _LIST_KEYS:
            table[key] = [item.strip() for item in value.replace("\n", ",").split(",") if item.strip()]
        elif value.lower() in ("true", "false"):
            table[key] = value.lower() == "true"
        elif value.isdigit():
            table[key] = int(value)
        else:
            table[key] = value
    return table


def config_data(config: Config) -> dict[str, object]:
    """What mypy stores with each cached module of the project: a change here invalidates the
    cache."""
    return {
        "version": PLUGIN_VERSION,
        "select": sorted(config.select) if config.select is not None else None,
        "ignore": sorted(config.ignore),
        "annotation_names": sorted(config.annotation_names),
        "x64": config.x64,
    }


INSTALLED_DATA: Final[dict[str, object]] = {"version": PLUGIN_VERSION}
"""What mypy stores with each cached module of an installed package (jax's own): mypy reports
no error in one, so the settings cannot change what it shows, and a change of them does not
make mypy analyse the package again."""


class InstalledPackages:
    """Whether a module mypy reads lies in the site-packages of the Python it checks for, or is
    shapecheck's own: a checkout on mypy_path, as the README sets one up, is the checker, no
    more the project than the installed package is. Its cached analysis is not made stale by
    the project's settings, nor, through it, that of jax's modules that import it (`jax.lax`,
    for its restored names)."""

    def __init__(self, options: Options) -> None:
        self._options = options
        self._roots: tuple[str, ...] | None = None

    def __contains__(self, path: str) -> bool:
        if self._roots is None:
            self._roots = self._find() + _own_folders()
        return bool(path) and os.path.abspath(path).startswith(self._roots)

    def _find(self) -> tuple[str, ...]:
        from mypy.modulefinder import get_search_dirs

        try:
            _, site_packages = get_search_dirs(self._options.python_executable)
        except Exception:  # an executable mypy cannot ask: every module counts as the project's
            return ()
        return tuple(os.path.join(os.path.abspath(root), "") for root in site_packages)


def _own_folders() -> tuple[str, ...]:
    """The folders shapecheck runs from: its package, and the plugin's and rules' folders,
    which a checkout keeps beside it (found without importing anything more)."""
    import importlib.util

    import shapecheck.config

    rules = importlib.util.find_spec("shapecheck.rules")
    folders = [os.path.dirname(__file__), os.path.dirname(shapecheck.config.__file__),
               *(rules.submodule_search_locations or [] if rules is not None else [])]
    return tuple(dict.fromkeys(os.path.join(os.path.abspath(folder), "") for folder in folders))
