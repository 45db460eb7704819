"""The run memo: `shapecheck check [PATH...]` answered at start-up while nothing it read has changed.

A pre-commit hook, an editor or a developer's loop runs the same command on the same unchanged
files again and again. The result cache answers each file, but only once the machinery that
reads it has been imported and the folders have been walked, which is most of such a run. So a
run also keeps a memo of its whole output, with the `os.stat` signature of every path that
output depended on (`memo_record.py` says which: for a run over folders, every folder its walk
listed and every file it found, so a replay is the walk's answer without its matching). A later
run with the same command line, from the same folder, under the same Python and shapecheck,
stats those paths before importing anything else; when every one is as it was, it writes the
memo's output and exits with its status.
Anything else (no memo, another command line, a changed path, a corrupt or foreign memo) falls
through to the usual run, which writes a new memo.

Why a stale answer cannot come out:
- every path is stated before the run reads what the signature vouches for, so a change while
  the run reads shows as a changed signature next time;
- a signature holds the inode and the ctime as well as the size and mtime: `touch -d` can put
  an mtime back, nothing puts a ctime back;
- a path recorded as absent is not stated again where the folder it would be in was stated
  before it (memo_record.py): nothing appears in a folder without changing its signature;
- a path whose ctime is not older than the memo may have changed again within the file
  system's clock tick (git's "racily clean" entries): such a memo is not trusted;
- the memo holds data only, keyed by the Python version among the rest; writes are atomic.

A memo is read as untrusted, like a result cache entry: anything in its place that is not a
memo this code wrote is a miss, never a hang, a crash or a runaway read. It is read only if it
is a regular file of at most `LIMIT` bytes (safe_read.py: no FIFO, device or link is opened
for reading); then its CRC-32 must match (a damaged memo: a flipped bit, a truncated write)
before anything in it is decoded; then every field is checked as it is decoded. The layout is
our own, of lengths and strings (`_encode`), rather than marshal's: marshal trusts the sizes
its data claims (five bytes claiming a tuple of 2**31 items took 16 GiB and almost two
minutes to load).

What a memo that passes all that says is replayed: the memo folder is the user's own (the
result cache's), written by shapecheck, and a memo forged there with a valid checksum is
trusted as the cache entries beside it are. A key could not do better: it would be kept where
the forger writes. A signature that matches is not forged: it is compared with what `os.stat`
says now.

Imports nothing that Python has not already imported at start-up, but zlib (for the CRC) and
safe_read.py.
"""

from __future__ import annotations

import os
import sys

from shapecheck.safe_read import read_bounded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

FORMAT = 3
FOLDER = "runs"  # inside the result cache's folder
SUFFIX = ".memo"
KEEP = 64  # memos kept per cache folder: one per command line, pre-commit's vary commit by commit
REGULAR = 0o100000  # a signature's file type bits for a regular file
FOLDER_TYPE = 0o040000  # and for a folder
LIMIT = 64 << 20
"""Bytes a memo may hold: its run's whole output (every diagnostic of every named file, with
the source lines the text format quotes) and the signatures, about 100 bytes each, of a few
hundred paths; a memo that would be larger is not written."""
MAGIC = b"shapecheck-memo\0"
STATUSES = (0, 1)  # the exit statuses of a run whose output is final (memo_record.py)

Signature = tuple[int, int, int, int, int]
Memo = tuple[tuple[str, ...], tuple[tuple[str, str], ...], str, str, int]
"""(key, inputs, stdout, stderr, status); each input a path and its signature's text."""
Previous = tuple[tuple[tuple[str, str], ...], bytes, int]
"""(inputs, table, when written): see `previous`."""


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
    found = read_bounded(memo_path, LIMIT)
    if found is None:
        return None
    data, opened = found
    memo = _decode(data)
    if memo is None or memo[0] != memo_key:
        return None
    _, inputs, stdout, stderr, status = memo
    written = opened.st_mtime_ns
    for name, recorded in inputs:
        now = signature(name)
        if signature_text(now) != recorded:
            return None
        if now is not None and racy(now, written):
            return None  # changed in the memo's own clock tick: it may have changed since
    return stdout, stderr, status


def previous(memo_folder: str, memo_key: tuple[str, ...]) -> Previous | None:
    """The last memo of this command line, whether it still holds or not: the signatures it
    recorded, its table (memo_record.py: what each file's result was, for a run after a few
    files changed) and when it was written; None where there is none, or not one of ours."""
    found = read_bounded(path(memo_folder, memo_key), LIMIT)
    if found is None:
        return None
    data, opened = found
    memo = _decode(data)
    table = _parts(data)
    if memo is None or table is None or memo[0] != memo_key:
        return None
    return memo[1], table[3], opened.st_mtime_ns


def racy(now: Signature, written: int) -> bool:
    """Whether a path may have changed again after `now` within the clock tick of a memo
    written at `written`: then its signature does not vouch for it."""
    return max(now[3], now[4]) >= written


def _encode(memo_key: Sequence[str], inputs: Mapping[str, Signature | None],
            stdout: str, stderr: str, status: int, table: bytes = b"") -> bytes:
    """MAGIC, the CRC-32 of the rest, then four lengths of 8 bytes each and what they measure:
    the head (status, key length, key, then each input path and its signature's text, joined
    by NUL, which no path, argument or version holds), stdout and stderr in UTF-8, and the
    table (bytes that memo_record.py reads; a replay never decodes them)."""
    head = [str(status), str(len(memo_key)), *memo_key]
    for name, recorded in sorted(inputs.items()):
        head += (name, signature_text(recorded))
    parts = ["\0".join(head).encode("utf-8", "surrogatepass"), stdout.encode("utf-8", "surrogatepass"),
             stderr.encode("utf-8", "surrogatepass"), table]
    payload = b"".join([*(len(part).to_bytes(8, "little") for part in parts), *parts])
    return MAGIC + _checksum(payload).to_bytes(4, "little") + payload


_SIZES = 32  # four lengths of 8 bytes


def _parts(data: bytes) -> list[bytes] | None:
    """The four parts `_encode` wrote, if the checksum matches and the lengths add up."""
    start = len(MAGIC) + 4
    if not data.startswith(MAGIC) or len(data) < start + _SIZES:
        return None
    payload = data[start:]
    if int.from_bytes(data[len(MAGIC):start], "little") != _checksum(payload):
        return None
    sizes = [int.from_bytes(payload[at:at + 8], "little") for at in range(0, _SIZES, 8)]
    if sum(sizes) != len(payload) - _SIZES:
        return None
    parts = []
    at = _SIZES
    for size in sizes:
        parts.append(payload[at:at + size])
        at += size
    return parts


def _decode(data: bytes) -> Memo | None:
    """What `_encode` wrote (but the table); None for anything else."""
    parts = _parts(data)
    if parts is None:
        return None
    try:
        text, stdout, stderr = (part.decode("utf-8", "surrogatepass") for part in parts[:3])
    except UnicodeDecodeError:
        return None
    head = text.split("\0")
    if len(head) < 2 or head[0] not in {str(status) for status in STATUSES}:
        return None
    if not (head[1].isascii() and head[1].isdigit() and len(head[1]) <= 9):
        return None
    keys = 2 + int(head[1])
    rest = head[keys:]
    if len(head) < keys or len(rest) % 2:
        return None
    return tuple(head[2:keys]), tuple(zip(rest[::2], rest[1::2], strict=True)), stdout, stderr, int(head[0])


def signature_text(found: Signature | None) -> str:
    # Compared as text: a forged signature is never parsed, only found unequal.
    return "" if found is None else ",".join(map(str, found))


def _checksum(payload: bytes) -> int:
    # A damaged memo (a flipped bit, a foreign writer) must not reach the output.
    import zlib

    return zlib.crc32(payload)


def write(memo_folder: str, memo_key: tuple[str, ...], inputs: Mapping[str, Signature | None],
          stdout: str, stderr: str, status: int, table: bytes = b"") -> None:
    """Keep a run's output for `replay`; a disk that refuses costs the next run its speed only."""
    from shapecheck.atomic import write_atomically

    if status not in STATUSES:
        return
    data = _encode(memo_key, inputs, stdout, stderr, status, table)
    if len(data) > LIMIT:
        return  # never read back: the run is answered in full each time
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
