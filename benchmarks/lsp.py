"""Latency of `shapecheck lsp` on a 1,000-line file: didChange to publishDiagnostics, and hover.

Starts the server as an editor would (stdio), opens a file of about 1,000 lines built from the
fixtures, then types one character at a time (waiting for each version's diagnostics) and
hovers over an array expression. The keystrokes go into a comment on the first line
(`--where comment`, the default) or into a number in the body of a function the module calls
(`--where code`: each changes the code, which is then analysed in full). Prints the median and worst of each; a debounce is part of
the didChange figure (`--debounce`, default the server's own). The first hover after the edits
is shown apart: it waits for the types of the version published last, which the server infers
on the first request that needs them.

With `--baseline PATH` (another shapecheck, `pip install --no-deps -t PATH`), a server of that
one is measured too, `--runs` times each, alternating run by run so that the drift of a shared
machine touches both alike; the servers start in the file's scratch folder, where no checkout
shadows the baseline.

    python benchmarks/lsp.py [--edits 15] [--hovers 50] [--debounce SECONDS] [--lines 1000]
                             [--where comment|code] [--runs 1] [--baseline PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def program(lines: int) -> str:
    """A file of about `lines` lines: a wide program, then copies of a model with a mesh."""
    text = "# typed here: \n" + (FIXTURES / "wide_program_ok.py").read_text()
    body = (FIXTURES / "toy_network_ok.py").read_text().split('"""', 2)[2]
    while text.count("\n") < lines:
        text += "\n" + body
    return text


async def measure(args: argparse.Namespace, python_path: Path | None = None) -> dict[str, list[float]]:
    published: dict[int, float] = {}
    arrived = asyncio.Event()
    client = LanguageClient("benchmark", "1")

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            published[params.version] = time.perf_counter()
            arrived.set()

    async def version(number: int) -> float:
        while number not in published:
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), 120)
        return published[number]

    folder = Path(tempfile.mkdtemp(prefix="shapecheck-lsp-bench-"))
    path = folder / "model.py"
    text = program(args.lines)
    if args.where == "code":
        text = text.replace("    hidden = relu(", "    t = 1\n    hidden = relu(", 1)
    path.write_text(text)
    env = dict(os.environ)
    if args.debounce is not None:
        env["SHAPECHECK_LSP_DEBOUNCE"] = str(args.debounce)
    if python_path is not None:
        env["PYTHONPATH"] = str(python_path)
    await client.start_io(sys.executable, "-m", "shapecheck", "lsp", env=env, cwd=folder)
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=folder.as_uri()))
    client.initialized(types.InitializedParams())
    uri = path.as_uri()
    document = types.TextDocumentIdentifier(uri=uri)
    start = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    times: dict[str, list[float]] = {"open": [await version(1) - start], "change": [], "hover 1": [],
                                     "hover": []}
    # One keystroke at the end of the line (the text still parses), then the next, and so on.
    line = 0 if args.where == "comment" else text.count("\n", 0, text.index("    t = 1\n"))
    end = len(text.split("\n")[line])
    for number in range(2, args.edits + 2):
        sent = time.perf_counter()
        column = end + number - 2
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=number),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line, column), end=types.Position(line, column)),
                text="x" if args.where == "comment" else "1")]))
        times["change"].append(await version(number) - sent)
    where = types.Position(text.count("\n", 0, text.index("jnp.ones")), 12)
    for number in range(args.hovers + 1):
        sent = time.perf_counter()
        answer = await client.text_document_hover_async(types.HoverParams(text_document=document, position=where))
        times["hover 1" if number == 0 else "hover"].append(time.perf_counter() - sent)
        assert answer is not None, "the hover position must be on an array expression"
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=15)
    parser.add_argument("--hovers", type=int, default=50)
    parser.add_argument("--debounce", type=float, default=None)
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--where", choices=("comment", "code"), default="comment")
    parser.add_argument("--runs", type=int, default=1, help="servers started per side, alternating")
    parser.add_argument("--baseline", type=Path, metavar="PATH",
                        help="PYTHONPATH of another shapecheck to measure beside this one")
    args = parser.parse_args()
    sides: dict[str, Path | None] = {"": None}
    if args.baseline is not None:
        sides["baseline "] = args.baseline.resolve()
    times: dict[str, dict[str, list[float]]] = {side: {} for side in sides}
    for index in range(args.runs):
        for side in (sides if index % 2 == 0 else reversed(sides)):
            for name, values in asyncio.run(measure(args, sides[side])).items():
                times[side].setdefault(name, []).extend(values)
    debounce = "the server's default" if args.debounce is None else f"{args.debounce:g} s"
    print(f"{args.lines} lines, debounce {debounce}, typing in {args.where}, {args.runs} server(s) each")
    for side, found in times.items():
        for name, values in found.items():
            print(f"{side}{name:>7}: median {statistics.median(values) * 1000:8.1f} ms, "
                  f"worst {max(values) * 1000:8.1f} ms over {len(values)}")
    if args.baseline is not None:
        ratio = statistics.median(times[""]["change"]) / statistics.median(times["baseline "]["change"])
        print(f"change, this one / baseline: {ratio:.2f} (medians)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
