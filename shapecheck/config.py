"""Settings from `[tool.shapecheck]` in pyproject.toml, overridable from the command line."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from shapecheck.codes import Code
from shapecheck.diagnostic import INCOMPLETE
from shapecheck.dtypes import DTYPE_NAMES

DEFAULT_ANNOTATION_NAMES = frozenset((*DTYPE_NAMES, "Array"))

DEFAULT_MAX_FILE_SIZE = 5_000_000
"""Bytes of source one file may have; a larger one is not checked (SC005).

Parsing and analysing take about 200 bytes of memory and a few milliseconds per byte of
source: a 5 MB file peaks near 1 GB and finishes well within the time limit per file, a 20 MB
one needed 6 GB. Seven times the largest module of CPython's standard library, it refuses only
generated code (tables, protobuf), which `max-file-size` lets through.
"""


class ConfigError(Exception):
    """A setting that cannot be used: reported as a usage error (exit 2)."""


@dataclass(frozen=True, slots=True)
class Config:
    select: frozenset[str] | None = None  # None: every code
    ignore: frozenset[str] = frozenset()
    exclude: tuple[str, ...] = ()  # gitignore-style patterns
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    annotation_names: frozenset[str] = DEFAULT_ANNOTATION_NAMES
    jobs: int | None = None
    target_version: tuple[int, int] | None = None  # None: the running Python's grammar
    # jax_enable_x64 in the checked program: True on, False off, None not known (JAX's default
    # is off, but a program may turn it on where the checker cannot see): SC301 then reports
    # only what holds in both modes.
    x64: bool | None = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE  # bytes; a larger file is not checked (SC005)
    root: Path = field(default_factory=Path.cwd)

    def enabled(self, code: str) -> bool:
        if any(code.startswith(prefix) for prefix in self.ignore):
            return False
        if code in INCOMPLETE:
            return True  # "not fully checked" is shown whatever is selected, unless ignored
        return self.select is None or any(code.startswith(prefix) for prefix in self.select)

    def with_codes(self, select: Iterable[str] | None, ignore: Iterable[str] | None) -> Config:
        new = self
        if select is not None:
            new = replace(new, select=frozenset(_codes(select)))
        if ignore is not None:
            new = replace(new, ignore=new.ignore | frozenset(_codes(ignore)))
        return new


def _codes(values: Iterable[str]) -> list[str]:
    # A code or prefix that matches no rule would select nothing (or ignore nothing) without a
    # word: a typo like SC999 must stop the run, not turn every check off. The codes, not the
    # rules' modules: the settings are read by parts (the runtime, mypy reading our sources)
    # that do not have rules/ where they look (it installs as shapecheck.rules).
    known = [code.value for code in Code if code is not Code.NOT_CHECKED]  # each has a rule
    codes: list[str] = []
    for value in values:
        for part in value.split(","):
            part = part.strip().upper()
            if part:
                if not part.startswith("SC"):
                    raise ConfigError(f"{part!r} is not a shapecheck code (codes look like SC101, or SC1 for a group)")
                if not any(code.startswith(part) for code in known):
                    raise ConfigError(f"{part!r} matches no shapecheck code (known: {', '.join(known)}; "
                                      "`shapecheck rules` lists them)")
                codes.append(part)
    return codes


def find_pyproject(start: Path) -> Path | None:
    for folder in (start.resolve(), *start.resolve().parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path | None = None, start: Path | None = None) -> Config:
    """Read `[tool.shapecheck]` from `path`, or from the nearest pyproject.toml above `start`."""
    explicit = path is not None
    if path is None:
        path = find_pyproject(start or Path.cwd())
    if path is None:
        return Config(root=(start or Path.cwd()).resolve())
    import tomllib  # imported where a file is read: it costs more than a run with no config

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from error
    section = data.get("tool", {}).get("shapecheck")
    if section is None:
        section = data if explicit and path.name != "pyproject.toml" else {}
    return from_table(section, path.parent.resolve())


_KEYS = {"select", "ignore", "exclude", "extend-exclude", "respect-gitignore", "annotation-names",
         "extend-annotation-names", "jobs", "target-version", "x64", "max-file-size"}

_TARGET = re.compile(r"py3(\d{1,2})")



def config_for(path: str | Path, config_file: Path | None = None) -> Config:
    """The settings a file at `path` is checked with: `config_file`, else the nearest
    pyproject.toml above its folder (which need not exist yet: an unsaved buffer's)."""
    folder = Path(path).absolute().parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    return load_config(config_file, start=folder)

def from_table(table: dict[str, object], root: Path) -> Config:
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"unknown [tool.shapecheck] setting(s): {', '.join(unknown)} "
                          f"(known: {', '.join(sorted(_KEYS))})")
    config = Config(root=root)
    select = _strings(table, "select")
    ignore = _strings(table, "ignore")
    config = config.with_codes(select, ignore)
    names = _strings(table, "annotation-names")
    extra = _strings(table, "extend-annotation-names") or []
    annotation_names = frozenset(names) if names is not None else DEFAULT_ANNOTATION_NAMES
    jobs = table.get("jobs")
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise ConfigError("jobs must be a positive integer")
    gitignore = table.get("respect-gitignore", True)
    if not isinstance(gitignore, bool):
        raise ConfigError("respect-gitignore must be true or false")
    x64 = table.get("x64")
    if x64 is not None and not isinstance(x64, bool):
        raise ConfigError("x64 must be true or false")
    size = table.get("max-file-size", DEFAULT_MAX_FILE_SIZE)
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ConfigError(f"max-file-size must be a positive number of bytes, not {size!r}")
    return replace(
        config,
        target_version=_target_version(table.get("target-version")),
        exclude=tuple(_strings(table, "exclude") or ()),
        extend_exclude=tuple(_strings(table, "extend-exclude") or ()),
        respect_gitignore=gitignore,
        annotation_names=annotation_names | frozenset(extra),
        jobs=jobs,
        x64=x64,
        max_file_size=size,
    )


def _target_version(value: object) -> tuple[int, int] | None:
    """`target-version = "py310"`: files must parse with that version's grammar (as ruff's)."""
    if value is None:
        return None
    match = _TARGET.fullmatch(value) if isinstance(value, str) else None
    if match is None or not 7 <= int(match.group(1)) <= sys.version_info.minor:
        raise ConfigError(f"target-version must be py37 to py3{sys.version_info.minor} "
                          f"(the running Python), not {value!r}")
    return (3, int(match.group(1)))


def _strings(table: dict[str, object], key: str) -> list[str] | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [str(item) for item in value]
    if isinstance(value, str):
        # `select = "SC1"` reads as meant only by accident (`"SC1,SC2"` would not): as in ruff,
        # a list is asked for, and the fix is shown.
        raise ConfigError(f"{key} must be a list of strings: {key} = [{value!r}] rather than "
                          f"{key} = {value!r}".replace("'", '"'))
    raise ConfigError(f"{key} must be a list of strings, not {value!r}")
