"""The run memo: `shapecheck check FILE...` answered at start-up while nothing it read has changed.

A pre-commit hook or an editor runs the same command on the same unchanged files again and
again. The result cache answers each file, but only once the machinery that reads it has been
imported, which is most of such a run. So a run that checked named files (no folder to walk)
also keeps a memo of its whole output, with the `os.stat` signature of every path that output
depended on (`memo_record.py` says which). A later run with the same command line, from the
same folder, under the same Python and shapecheck, stats those paths before importing anything
else; when every one is as it was, it writes the memo's output and exits with its status.
Anything else (no memo, another command line, a changed path, a corrupt or foreign memo) falls
through to the usual run, which writes a new memo.

Why a stale answer cannot come out:
- every path is stated before the run reads what the signature vouches for, so a change while
  the run reads shows as a changed signature next time;
- a signature holds the inode and the ctime as well as the size and mtime: `touch -d` can put
  an mtime back, nothing puts a ctime back;
- a path whose ctime is not older than the memo may have changed again within the file
  system's clock tick (git's "racily clean" entries): such a memo is not trusted;
- the memo holds data only (strings, integers, tuples in Python's marshal format, checked
  field by field when read, under a CRC-32 of the whole), keyed by the Python version among
  the rest; writes are atomic.

Imports nothing that Python has not already imported at start-up, but zlib (for the CRC).
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

FORMAT = 1
FOLDER = "runs"  # inside the result cache's folder
SUFFIX = ".memo"
KEEP = 64  # memos kept per cache folder: one per command line, pre-commit's vary commit by commit
REGULAR = 0o100000  # a signature's file type bits for a regular file

Signature = tuple[int, int, int, int, int]


def signature(path: str) -> Signature | None:
    """(file type bits, inode, size, mtime_ns, ctime_ns); None: not there, or not stat-able
    (what `is_file()` and `exists()` answer False for)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return (found.st_mode & 0o170000, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def key(argv: Sequence[str], cwd: str) -> tuple[str, ...]:
    """What a memo answers for: the command line, where it ran and what ran it."""
    return (str(FORMAT), sys.version, sys.executable, os.path.dirname(os.path.abspath(__file__)), cwd, *argv)


def folder(argv: Sequence[str], cwd: str) -> str | None:
    """Where the memos of this command line live: the result cache's folder (`--cache-dir`, or
    `.shapecheck_cache` in the project root) plus `runs`; None when the run uses no cache.

    Reads the options the way the full command line parser does for plain spellings only; an
    abbreviation it does not know points elsewhere, where no memo for this command line is
    ever written, so it costs a miss, never a wrong answer.
    """
    cache_dir = config = None
    index = 1
    while index < len(argv):
        name, equals, value = argv[index].partition("=")
        if name == "--":
            break
        if name == "--no-cache":
            return None
        if name in ("--cache-dir", "--config"):
            if not equals:
                index += 1
                if index == len(argv):
                    return None
                value = argv[index]
            if name == "--cache-dir":
                cache_dir = value
            else:
                config = value
        index += 1
    if cache_dir is not None:
        return os.path.join(cwd, cache_dir, FOLDER)
    return os.path.join(_project_root(cwd, config), ".shapecheck_cache", FOLDER)


def _project_root(cwd: str, config: str | None) -> str:
    # As config.load_config: the folder of --config's file, or of the nearest pyproject.toml.
    if config is not None:
        return os.path.dirname(os.path.realpath(os.path.join(cwd, config)))
    for candidate in pyprojects(cwd):
        if os.path.isfile(candidate):
            return os.path.dirname(candidate)
    return os.path.realpath(cwd)


def pyprojects(cwd: str) -> Iterator[str]:
    """Where config.find_pyproject looks, nearest first: pyproject.toml in the working folder
    (resolved) and in each folder above it."""
    here = os.path.realpath(cwd)
    while True:
        yield os.path.join(here, "pyproject.toml")
        parent = os.path.dirname(here)
        if parent == here:
            return
        here = parent


def path(memo_folder: str, memo_key: Sequence[str]) -> str:
    # FNV-1a: a stable name with no import; the full key inside the memo decides a match.
    value = 0xCBF29CE484222325
    for byte in "\0".join(memo_key).encode("utf-8", "surrogatepass"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return os.path.join(memo_folder, f"{value:016x}{SUFFIX}")


def replay(argv: Sequence[str]) -> int | None:
    """Answer `argv` (`check ...`) from its memo: write the output, return the exit status.

    None, having written nothing, when there is no memo that still holds.
    """
    try:
        cwd = os.getcwd()
        memo_folder = folder(argv, cwd)
        if memo_folder is None:
            return None
        memo_key = key(argv, cwd)
        found = _read(path(memo_folder, memo_key), memo_key)
    except (OSError, ValueError):
        return None
    if found is None:
        return None
    stdout, stderr, status = found
    sys.stdout.write(stdout)
    if stderr:
        sys.stderr.write(stderr)
    return status


def _read(memo_path: str, memo_key: tuple[str, ...]) -> tuple[str, str, int] | None:
    with open(memo_path, "rb") as file:
        written = os.fstat(file.fileno()).st_mtime_ns
        data = file.read()
    try:
        framed = marshal.loads(data)
        if not (type(framed) is tuple and len(framed) == 2 and type(framed[1]) is bytes
                and framed[0] == _checksum(framed[1])):
            return None
        memo = marshal.loads(framed[1])
    except (EOFError, ValueError, TypeError):
        return None
    if not (type(memo) is tuple and len(memo) == 5 and memo[0] == memo_key):
        return None
    _, inputs, stdout, stderr, status = memo
    if not (type(inputs) is tuple and type(stdout) is str and type(stderr) is str and type(status) is int):
        return None
    for entry in inputs:
        if not (type(entry) is tuple and len(entry) == 2 and type(entry[0]) is str):
            return None
        recorded = entry[1]
        if recorded is not None and not (type(recorded) is tuple and len(recorded) == 5
                                         and all(type(part) is int for part in recorded)):
            return None
        if signature(entry[0]) != recorded:
            return None
        if recorded is not None and max(recorded[3], recorded[4]) >= written:
            return None  # changed in the memo's own clock tick: it may have changed since
    return stdout, stderr, status


def _checksum(payload: bytes) -> int:
    # A damaged memo (a flipped bit, a foreign writer) must not reach the output.
    import zlib

    return zlib.crc32(payload)


def write(memo_folder: str, memo_key: tuple[str, ...], inputs: Mapping[str, Signature | None],
          stdout: str, stderr: str, status: int) -> None:
    """Keep a run's output for `replay`; a disk that refuses costs the next run its speed only."""
    from shapecheck.atomic import write_atomically

    payload = marshal.dumps((memo_key, tuple(sorted(inputs.items())), stdout, stderr, status))
    data = marshal.dumps((_checksum(payload), payload))
    try:
        os.makedirs(memo_folder, exist_ok=True)
        write_atomically(path(memo_folder, memo_key), data, suffix=".tmp")  # not SUFFIX: _prune skips it
    except OSError:
        return
    _prune(memo_folder)


def _prune(memo_folder: str) -> None:
    """Keep the `KEEP` most recently written memos."""
    import contextlib

    try:
        with os.scandir(memo_folder) as entries:
            memos = [(entry.stat().st_mtime_ns, entry.path) for entry in entries if entry.name.endswith(SUFFIX)]
    except OSError:
        return
    if len(memos) <= KEEP:
        return
    for _, stale in sorted(memos)[:-KEEP]:
        with contextlib.suppress(OSError):
            os.unlink(stale)
