"""No process the checker starts imports a module from the checked project or the working folder.

A pre-commit hook runs in the checked repository, so the working folder is the checked project;
a `python -c` child (multiprocessing's fork server and resource tracker) puts that folder first
on `sys.path`, where a project's `ast.py` would stand in for the standard library's and run.
Every name a process could import (the whole standard library, the checker's dependencies,
`sitecustomize`) is shadowed here, in the working folder and in the checked folder, by a module
that leaves a sentinel file when it runs; every front end, in every way it starts processes,
must leave none.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import pytest

from shapecheck.config import Config

SCRIPT = Path(sys.executable).parent / "shapecheck"
SHADOWED = sorted(set(sys.stdlib_module_names) | {
    "shapecheck", "libcst", "pathspec", "tqdm", "tomli", "typing_extensions", "yaml", "jax",
    "numpy", "mypy", "pygls", "lsprotocol", "cattrs", "attrs", "attr", "sitecustomize",
    "usercustomize",
})
FILES = 12  # more than the engine needs before it starts workers
PROGRAM = "import jax.numpy as jnp\n\nz = jnp.ones((3,)) + jnp.ones((4,))\n"


def _shadow(folder: Path) -> None:
    for name in SHADOWED:
        # Only builtins: a shadow of `os` or `pathlib` cannot use them to leave its mark.
        (folder / f"{name}.py").write_text(
            f"open({str(folder / ('sentinel-' + name))!r}, 'w').close()\n")


def _sentinels(*folders: Path) -> list[str]:
    return sorted(f"{path.parent.name}/{path.name}" for folder in folders
                  for path in folder.glob("sentinel-*"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A working folder full of shadows, holding a checked folder full of them too."""
    root = tmp_path
    checked = root / "src"
    checked.mkdir()
    _shadow(root)
    _shadow(checked)
    for index in range(FILES):
        (checked / f"model_{index}.py").write_text(PROGRAM)
    return root


def _check(project: Path, *command: str, jobs: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command, "check", "--no-cache", "--jobs", jobs, "--format", "json",
                           *(str(p) for p in sorted((project / "src").glob("model_*.py")))],
                          cwd=project, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(("how", "jobs"), [
    ("console-script", "1"),
    ("console-script", "2"),  # forkserver, resource tracker and workers
    ("python -P -m", "2"),
    ("python -I -m", "2"),
    ("python -E script", "2"),  # -E would undo PYTHONSAFEPATH: checked in one process instead
])
def test_no_process_imports_a_shadow(project: Path, how: str, jobs: str) -> None:
    command = {
        "console-script": [str(SCRIPT)],
        "python -P -m": [sys.executable, "-P", "-m", "shapecheck"],
        "python -I -m": [sys.executable, "-I", "-m", "shapecheck"],
        "python -E script": [sys.executable, "-E", str(SCRIPT)],
    }[how]
    result = _check(project, *command, jobs=jobs)
    assert _sentinels(project, project / "src") == []
    assert result.returncode == 1, result.stderr
    found = json.loads(result.stdout)
    # Every file was checked, and checked right, wherever it ran.
    assert sorted((Path(d["path"]).name, d["line"], d["code"]) for d in found) == sorted(
        (f"model_{index}.py", 3, "SC101") for index in range(FILES))


def test_the_workers_really_ran_in_other_processes(project: Path) -> None:
    # The forkserver case above proves something only if workers were used: a worker's pid in
    # the fault-injection hook of the engine would be intrusive, so count the processes the run
    # starts instead (the fork server is a child of the run).
    process = subprocess.Popen([str(SCRIPT), "check", "--no-cache", "--jobs", "2", "src"],
                               cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        seen: set[int] = set()
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            seen |= descendants(process.pid)
            time.sleep(0.01)
    finally:
        process.kill()
        process.wait()
    assert seen, "the run started no process"
    assert _sentinels(project, project / "src") == []


@pytest.mark.parametrize("how", ["console-script", "python -E script"])
def test_the_language_server_imports_no_shadow(project: Path, how: str) -> None:
    # Its analyses run in a process of their own; under -E, in the server itself.
    command = [str(SCRIPT)] if how == "console-script" else [sys.executable, "-E", str(SCRIPT)]
    document = (project / "src" / "model_0.py").as_uri()
    server = subprocess.Popen([*command, "lsp"], cwd=project, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    try:
        _send(server.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                             "params": {"processId": None, "rootUri": project.as_uri(),
                                        "capabilities": {}}})
        _send(server.stdin, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        _send(server.stdin, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": document, "languageId": "python", "version": 1,
                             "text": PROGRAM}}})
        while True:  # the diagnostics prove the document was analysed
            message = _receive(server.stdout)
            if message.get("method") == "textDocument/publishDiagnostics":
                assert [d["code"] for d in message["params"]["diagnostics"]] == ["SC101"]
                break
        _send(server.stdin, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        _send(server.stdin, {"jsonrpc": "2.0", "method": "exit"})
        server.wait(60)
    finally:
        server.kill()
        server.wait()
    assert _sentinels(project, project / "src") == []


def test_the_mypy_plugins_worker_imports_no_shadow(project: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from shapecheck.plugin import prefetch

    monkeypatch.chdir(project)
    monkeypatch.setattr(prefetch, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch, "_spare_cores", lambda: 1)
    checked = str(project / "src" / "model_0.py")
    worker = prefetch.Prefetch.start(Config(), {}, [checked])
    assert worker is not None
    worker.thread.join(120)
    assert _sentinels(project, project / "src") == []
    assert [d.code for d in worker.results[checked].diagnostics] == ["SC101"]


def descendants(pid: int) -> set[int]:
    """The processes below `pid` now, from /proc (Linux)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(parent, []).append(int(entry))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _send(stream: IO[bytes], message: dict[str, object]) -> None:
    body = json.dumps(message).encode()
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def _receive(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(stream.read(length))
    return message
