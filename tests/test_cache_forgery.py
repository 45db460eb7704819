"""Cache entries and run memos are read as untrusted: whatever stands in their place, the
run's output is the output of a run without the cache (DESIGN.md section 7).

The cases of issue 29: a FIFO, a symbolic link to /dev/zero, JSON nested 100,000 deep, and
well-formed entries that no run writes (a diagnostic past the file's end, a negative span, a
malformed note). A hang or a runaway read fails a test here rather than the suite: each such
run is a subprocess with a time limit and a memory limit.
"""

from __future__ import annotations

import json
import marshal
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from shapecheck import memo
from shapecheck.cache import _BODY_AT, ResultCache, _frame, _unframe
from shapecheck.cli import main
from shapecheck.config import Config
from shapecheck.safe_read import read_bounded
from tests.test_cache import BROKEN, LAYERS, MAIN

MEMORY_LIMIT = 3 << 30  # address space of a subprocess run: a runaway read fails, not the machine
TIMEOUT_S = 60  # a run here takes a second or two; a hang is a failure
COMMAND = ("check", "--format", "json", "--jobs", "1")
NAMED = ("broken.py", "main.py", "layers.py")  # its runs are answered by their memo


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "broken.py").write_text(BROKEN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(project: Path, *args: str) -> tuple[int, str]:
    """A `check` run in a fresh process: (exit status, stdout); a hang fails the test."""
    _forget_folder_memo(project, args)
    command = [sys.executable, "-m", "shapecheck", *COMMAND, *args]
    try:
        done = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=TIMEOUT_S,
                              preexec_fn=_limit_memory, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`{' '.join(args)}` hung (killed after {TIMEOUT_S} s)")
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """A `check` run in this process: (exit status, stdout)."""
    _forget_folder_memo(Path.cwd(), args)
    code = main([*COMMAND, *args])
    captured = capsys.readouterr()
    assert "internal error" not in captured.err, captured.err
    return code, captured.out


def entry_of(project: Path, name: str) -> Path:
    return ResultCache(project / ".shapecheck_cache", Config(root=project))._entry(str(project / name))


def memo_of(project: Path, args: tuple[str, ...] = NAMED) -> Path:
    """The memo of the run of `args`."""
    found = _memo_path(project, args)
    assert found is not None and found.is_file()
    return found


def _memo_path(project: Path, args: tuple[str, ...]) -> Path | None:
    argv, cwd = [*COMMAND, *args], os.path.realpath(project)
    folder = memo.folder(argv, cwd)
    return None if folder is None else Path(memo.path(folder, memo.key(argv, cwd)))


def read_entry(path: Path) -> dict[str, object]:
    body = _unframe(path.read_bytes())
    assert body is not None
    loaded = json.loads(body)
    assert isinstance(loaded, dict)
    return loaded


def write_entry(path: Path, entry: dict[str, object]) -> None:
    """Write `entry` with a valid checksum: only what it says can make it a miss."""
    path.write_bytes(_frame(json.dumps(entry).encode()))




def _forget_folder_memo(project: Path, args: tuple[str, ...]) -> None:
    # A run of "." is how these tests read the entries: its memo, which would answer before
    # any entry is read, is forgotten first. The memos are tried with NAMED (the same code).
    found = _memo_path(project, args) if args[-1:] == (".",) else None
    if found is not None:
        found.unlink(missing_ok=True)


# --- what stands in place of an entry or a memo is not a regular file -------------------------

def test_only_a_regular_file_within_the_bound_is_read(tmp_path: Path) -> None:
    file = tmp_path / "entry"
    file.write_bytes(b"0123456789")
    found = read_bounded(file, 10)
    assert found is not None and found[0] == b"0123456789" and found[1].st_size == 10
    assert read_bounded(file, 9) is None
    (tmp_path / "link").symlink_to(file)
    os.mkfifo(tmp_path / "fifo")
    for other in ("link", "fifo", "missing", "."):
        assert read_bounded(tmp_path / other, 1 << 20) is None, other
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    found = read_bounded(empty, 0)
    assert found is not None and found[0] == b""


def test_a_fifo_in_place_of_an_entry_is_a_miss(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = check(capsys, "--no-cache", ".")
    assert run(project, ".") == expected
    target = entry_of(project, "broken.py")
    target.unlink()
    os.mkfifo(target)
    assert run(project, ".") == expected
    assert run(project, ".") == expected  # and a regular entry replaced it


def test_a_fifo_in_place_of_a_memo_is_a_miss(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = check(capsys, "--no-cache", *NAMED)
    assert run(project, *NAMED) == expected
    target = memo_of(project)
    target.unlink()
    os.mkfifo(target)
    assert run(project, *NAMED) == expected


def test_a_link_to_dev_zero_in_place_of_an_entry_is_not_read(project: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    expected = check(capsys, "--no-cache", ".")
    assert run(project, ".") == expected
    target = entry_of(project, "broken.py")
    target.unlink()
    target.symlink_to("/dev/zero")
    assert run(project, ".") == expected


def test_a_link_to_dev_zero_in_place_of_a_memo_is_not_read(project: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    expected = check(capsys, "--no-cache", *NAMED)
    assert run(project, *NAMED) == expected
    target = memo_of(project)
    target.unlink()
    target.symlink_to("/dev/zero")
    assert run(project, *NAMED) == expected


def test_a_memo_that_claims_a_huge_container_is_a_miss(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Five bytes in marshal's format: a tuple of 2**31 - 1 items. Loading it allocated 16 GiB
    # and took a hundred seconds.
    expected = check(capsys, "--no-cache", *NAMED)
    assert run(project, *NAMED) == expected
    memo_of(project).write_bytes(b"(" + (2**31 - 1).to_bytes(4, "little"))
    assert run(project, *NAMED) == expected


# --- entries no run writes ----------------------------------------------------------------------

def test_json_nested_deeply_is_a_miss(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = check(capsys, "--no-cache", ".")
    assert check(capsys, ".") == expected
    entry_of(project, "broken.py").write_text("[" * 100_000 + "]" * 100_000)
    assert check(capsys, ".") == expected


def test_json_nested_deeply_with_a_valid_checksum_is_a_miss(project: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    expected = check(capsys, "--no-cache", ".")
    assert check(capsys, ".") == expected
    entry_of(project, "broken.py").write_bytes(_frame(b"[" * 100_000 + b"]" * 100_000))
    assert check(capsys, ".") == expected


def _forged(mutate: Callable[[list[object]], None]) -> Callable[[dict[str, object]], None]:
    """Apply `mutate` to the first diagnostic of an entry."""
    def forge(entry: dict[str, object]) -> None:
        diagnostics = entry["diagnostics"]
        assert isinstance(diagnostics, list) and diagnostics
        mutate(diagnostics[0])
    return forge


def _set(index: int, value: object) -> Callable[[list[object]], None]:
    def mutate(diagnostic: list[object]) -> None:
        diagnostic[index] = value
    return mutate


def _add_note(note: list[object]) -> Callable[[list[object]], None]:
    def mutate(diagnostic: list[object]) -> None:
        notes = diagnostic[-1]
        assert isinstance(notes, list)
        notes.append(note)
    return mutate


def _set_entry(key: str, value: object) -> Callable[[dict[str, object]], None]:
    def forge(entry: dict[str, object]) -> None:
        entry[key] = value
    return forge


# A diagnostic's fields in an entry: line, column, end line, end column, code, message,
# severity, notes; a note's: message, line, column, end line, end column.
LINE, COLUMN, END_LINE, END_COLUMN, CODE, MESSAGE, SEVERITY = range(7)
FORGERIES = {
    "line past the end": _forged(_set(LINE, 10**9)),
    "end line past the end": _forged(_set(END_LINE, 10**9)),
    "line zero": _forged(_set(LINE, 0)),
    "negative column": _forged(_set(COLUMN, -5)),
    "end before start": _forged(_set(END_COLUMN, 0)),
    "column past the line": _forged(_set(COLUMN, 400)),
    "a column that is not an integer": _forged(_set(COLUMN, 4.0)),
    "a column that is a boolean": _forged(_set(COLUMN, True)),
    "unknown code": _forged(_set(CODE, "SC999")),
    "a code never kept": _forged(_set(CODE, "SC005")),
    "a code this configuration ignores": _forged(_set(CODE, "SC001")),  # under IGNORING
    "unknown severity": _forged(_set(SEVERITY, "fatal")),
    "a message that is not a string": _forged(_set(MESSAGE, ["x"])),
    "a field too many": _forged(lambda diagnostic: diagnostic.append(None)),
    "note past the end": _forged(_add_note(["see here", 10**9, 0, 10**9, 1])),
    "note with a negative span": _forged(_add_note(["see here", 1, -3, 1, -1])),
    "note in another file": _forged(_add_note(["see here", "/etc/passwd", 1, 0, 1, 1])),
    "note without a message": _forged(_add_note([None, 1, 0, 1, 1])),
}
ENTRY_FORGERIES = {
    "another line count": _set_entry("lines", 20),
    "an unknown key": _set_entry("extra", 1),
    "diagnostics not a list": _set_entry("diagnostics", {"0": 1}),
}
FORGERIES.update(ENTRY_FORGERIES)


IGNORING = "[tool.shapecheck]\nignore = ['SC001']\n"


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_forged_entry_is_a_miss(project: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    (project / "pyproject.toml").write_text(IGNORING)
    expected = check(capsys, "--no-cache", ".")
    assert check(capsys, ".") == expected
    target = entry_of(project, "broken.py")
    entry = read_entry(target)
    FORGERIES[name](entry)
    write_entry(target, entry)
    assert check(capsys, ".") == expected


def test_an_entry_with_a_stale_checksum_is_a_miss(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A plausible edit (another message) that did not update the checksum.
    expected = check(capsys, "--no-cache", ".")
    assert check(capsys, ".") == expected
    target = entry_of(project, "broken.py")
    target.write_bytes(target.read_bytes().replace(b"cannot broadcast", b"can broadcast"))
    assert check(capsys, ".") == expected


def test_a_true_entry_passes_every_check(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The checks refuse no entry a run writes: written again as read, it is still a hit.
    check(capsys, ".")
    target = entry_of(project, "broken.py")
    write_entry(target, read_entry(target))
    before = target.stat().st_mtime_ns
    check(capsys, ".")
    assert target.stat().st_mtime_ns == before  # not rewritten: it was reused


# --- anything at all in their place -------------------------------------------------------------

NOTES = (Path(__file__).resolve().parent.parent / "fixtures" / "cooccurrence_outer_product.py").read_text()
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)


def _nodes(value: object, at: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """The place of every value inside `value` (keys and indices from the top)."""
    found = [at] if at else []
    if isinstance(value, dict):
        for name, item in value.items():
            found += _nodes(item, (*at, name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _nodes(item, (*at, index))
    return found


def _get(value: object, at: tuple[object, ...]) -> object:
    for step in at:
        value = value[step]  # type: ignore[index]
    return value


def _replace(value: object, at: tuple[object, ...], new: object) -> None:
    _get(value, at[:-1])[at[-1]] = new  # type: ignore[index]


def _forge_entry(data: st.DataObject, entry: dict[str, object]) -> bytes:
    """Bytes in place of `entry` that are not an entry that fits its file (no check could tell
    a forged message or a moved span that still fits from a true one)."""
    spans = [at for at in _nodes(entry) if at[0] == "diagnostics" and isinstance(at[-1], int)
             and ((len(at) == 3 and at[-1] < 4) or (len(at) == 5 and 1 <= at[-1] <= 4))]
    listed = sorted(name for name in FORGERIES if spans or name in ENTRY_FORGERIES)
    strings = [at for at in _nodes(entry) if isinstance(_get(entry, at), str) and _get(entry, at)]
    kind = data.draw(st.sampled_from(["bytes", "json", "framed json", "listed", "retyped", "flipped", "stale",
                                      *(["far span"] if spans else [])]))
    if kind == "bytes":
        return data.draw(st.binary(max_size=300))
    if kind in ("json", "framed json"):
        body = json.dumps(data.draw(JSON)).encode()
        return _frame(body) if kind == "framed json" else body
    if kind == "listed":
        FORGERIES[data.draw(st.sampled_from(listed))](entry)
    elif kind == "retyped":  # any value in it, of another type
        at = data.draw(st.sampled_from(_nodes(entry)))
        old = _get(entry, at)
        _replace(entry, at, data.draw(JSON.filter(lambda new: type(new) is not type(old))))
    elif kind == "far span":  # a line, column, end line or end column of a diagnostic or a note
        _replace(entry, data.draw(st.sampled_from(spans)),
                 data.draw(st.integers(max_value=-1) | st.integers(min_value=10**6)))
    framed = _frame(json.dumps(entry).encode())
    if kind == "flipped":  # a byte of the body changed, the checksum not
        at = data.draw(st.integers(min_value=_BODY_AT, max_value=len(framed) - 2))
        return framed[:at] + bytes([framed[at] ^ data.draw(st.integers(1, 255))]) + framed[at + 1:]
    if kind == "stale":  # a plausible edit (a letter of a message, a module or a hash), the checksum not
        at = data.draw(st.sampled_from(strings))
        old_text = _get(entry, at)
        assert isinstance(old_text, str)
        index = data.draw(st.integers(0, len(old_text) - 1))
        letter = data.draw(st.sampled_from("abcdef0123").filter(lambda new: new != old_text[index]))
        _replace(entry, at, old_text[:index] + letter + old_text[index + 1:])
        return framed[:_BODY_AT] + json.dumps(entry).encode() + b"}"
    return framed


def _memo_payload(head: list[str], out: bytes, err: bytes) -> bytes:
    parts = ["\0".join(head).encode("utf-8", "surrogatepass"), out, err]
    return b"".join([*(len(part).to_bytes(8, "little") for part in parts), *parts])


def _with_crc(payload: bytes) -> bytes:
    return memo.MAGIC + memo._checksum(payload).to_bytes(4, "little") + payload


def _forge_memo(data: st.DataObject, true: bytes) -> bytes:
    """Bytes in place of a memo that are not a memo of this run's true output: its status and
    output are never replaced by others that are valid (a forgery no check could tell)."""
    decoded = memo._decode(true)
    assert decoded is not None
    key, inputs, out, err, status = decoded
    head = [str(status), str(len(key)), *key, *(part for pair in inputs for part in pair)]
    kind = data.draw(st.sampled_from(["bytes", "crc", "stale", "status", "count", "dropped", "paths", "output",
                                      "lengths", "marshal"]))
    if kind == "bytes":
        return data.draw(st.binary(max_size=300))
    if kind == "stale":  # a plausible edit (a letter of the output), the checksum not
        at = data.draw(st.integers(len(true) - len(out.encode()) - len(err.encode()), len(true) - 1))
        return true[:at] + data.draw(st.sampled_from([b"a", b"0"]).filter(lambda new: new != true[at:at + 1])) \
            + true[at + 1:]
    if kind == "crc":
        return _with_crc(data.draw(st.binary(max_size=300)))
    if kind == "marshal":  # the old layout, and its tuple that claims 2**31 items
        return data.draw(st.sampled_from([b"(\xff\xff\xff\x7f", b"[\xff\xff\xff\x7f", marshal.dumps((0, true))]))
    if kind == "status":
        head[0] = data.draw(st.sampled_from(["2", "", "-1", "01", " 1", "1\n", "\uff11"])
                            | st.text(max_size=4).filter(lambda text: text not in ("0", "1")))
    elif kind == "count":
        head[1] = data.draw(st.text(max_size=12))
    elif kind == "dropped":
        del head[data.draw(st.integers(0, len(head) - 1))]
    elif kind == "paths":  # other inputs: never met, or met by a memo that replays the true output
        pairs = data.draw(st.lists(st.tuples(st.text(max_size=12), st.sampled_from(["", "1,2,3,4,5"])
                                             | st.text(max_size=12)), max_size=3))
        head = head[:2 + len(key)] + [part for pair in pairs for part in pair]
    elif kind == "output":  # an output that is not UTF-8
        out = b"\xff" + data.draw(st.binary(max_size=20))
        return _with_crc(_memo_payload(head, out, err.encode()))
    payload = _memo_payload(head, out.encode(), err.encode())
    if kind == "lengths":  # three lengths that do not measure what follows them
        lengths = data.draw(st.tuples(*[st.integers(0, len(payload)) for _ in range(3)]))
        assume(lengths != tuple(int.from_bytes(payload[at:at + 8], "little") for at in (0, 8, 16)))
        payload = b"".join(length.to_bytes(8, "little") for length in lengths) + payload[24:]
    return _with_crc(payload)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_whatever_stands_in_the_cache_the_output_is_a_run_without_it(
        project: Path, capsys: pytest.CaptureFixture[str], data: st.DataObject) -> None:
    # One project for every example (hence the fixture), each starting from what a cold run
    # wrote (so what is drawn from it is the same every time the example runs).
    named = (*NAMED, "notes.py")
    pristine = _PRISTINE.get(project)
    if pristine is None:
        (project / "notes.py").write_text(NOTES)
        (project / "pyproject.toml").write_text(IGNORING)
        expected = {args: check(capsys, "--no-cache", *args) for args in (named, (".",))}
        for args in (named, (".",)):
            assert check(capsys, *args) == expected[args]
        files = [entry_of(project, name) for name in named] + [memo_of(project, named)]
        pristine = _PRISTINE[project] = (expected, {file: file.read_bytes() for file in files})
    expected, files = pristine
    for file, content in files.items():
        file.write_bytes(content)
    for name in data.draw(st.sets(st.sampled_from(named))):
        target = entry_of(project, name)
        target.write_bytes(_forge_entry(data, read_entry(target)))
    if data.draw(st.booleans()):
        target = memo_of(project, named)
        target.write_bytes(_forge_memo(data, target.read_bytes()))
    for args in (named, (".",)):
        assert check(capsys, *args) == expected[args]


_PRISTINE: dict[Path, tuple[dict[tuple[str, ...], tuple[int, str]], dict[Path, bytes]]] = {}
