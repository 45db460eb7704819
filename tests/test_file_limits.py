"""A file the checker cannot afford is reported, not attempted: SC005 for a file over the size
bound (refused before it is read), and SC005 where memory ran out, never a misleading SC004."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from shapecheck.api import analyze_source, check_file
from shapecheck.cli import main
from shapecheck.config import DEFAULT_MAX_FILE_SIZE, Config, ConfigError, from_table

MISMATCH = "import jax.numpy as jnp\nx = jnp.ones((3,)) + jnp.ones((4,))\n"
FLAT = "import jax.numpy as jnp\n" + "".join(f"x{i} = jnp.ones((3,)) + {i}\n" for i in range(2_000))


def _codes(result_diagnostics: object) -> set[tuple[int, str]]:
    return {(d.span.line, d.code) for d in result_diagnostics}  # type: ignore[attr-defined]


def _parsed_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The lengths of the checked texts CPython's parser is given from now on."""
    real = ast.parse
    sizes: list[int] = []

    def parse(source: str | bytes, filename: str = "<unknown>", *args: object, **kwargs: object) -> ast.AST:
        if str(filename).endswith(".py"):
            sizes.append(len(source))
        return real(source, filename, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ast, "parse", parse)
    return sizes


def _fail_parsing(monkeypatch: pytest.MonkeyPatch, name: str, error: BaseException) -> None:
    real = ast.parse

    def parse(source: str | bytes, filename: str = "<unknown>", *args: object, **kwargs: object) -> ast.AST:
        if str(filename).endswith(name):
            raise error
        return real(source, filename, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ast, "parse", parse)


def test_a_file_over_the_default_bound_is_sc005_and_not_parsed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "generated.py"
    line = "x = 1\n"
    big.write_text(line * (DEFAULT_MAX_FILE_SIZE // len(line) + 1))
    (tmp_path / "small.py").write_text(MISMATCH)
    monkeypatch.chdir(tmp_path)
    parsed = _parsed_sizes(monkeypatch)
    status = main(["check", "--no-cache", "--format", "json", "."])
    found = json.loads(capsys.readouterr().out)
    assert {(Path(d["path"]).name, d["line"], d["code"]) for d in found} == {
        ("generated.py", 1, "SC005"), ("small.py", 2, "SC101")}
    message = next(d["message"] for d in found if d["code"] == "SC005")
    # It says what happened, with the figures, and how to change it.
    assert "not checked" in message and f"{DEFAULT_MAX_FILE_SIZE:,}" in message
    assert f"{big.stat().st_size:,}" in message and "max-file-size" in message
    assert status == 2  # a file not checked
    assert parsed and max(parsed) < DEFAULT_MAX_FILE_SIZE  # the large one was never parsed


def test_the_bound_is_a_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.shapecheck]\nmax-file-size = 1000\n")
    (tmp_path / "m.py").write_text(MISMATCH + "# padding\n" * 200)
    monkeypatch.chdir(tmp_path)
    parsed = _parsed_sizes(monkeypatch)
    assert main(["check", "--no-cache", "--format", "json", "m.py"]) == 2
    assert [(d["line"], d["code"]) for d in json.loads(capsys.readouterr().out)] == [(1, "SC005")]
    assert parsed == []
    (tmp_path / "pyproject.toml").write_text("[tool.shapecheck]\nmax-file-size = 100_000\n")
    assert main(["check", "--no-cache", "--format", "json", "m.py"]) == 1
    assert [(d["line"], d["code"]) for d in json.loads(capsys.readouterr().out)] == [(2, "SC101")]


@pytest.mark.parametrize("value", [0, -1, "10MB", 1.5, True])
def test_a_bad_bound_is_a_usage_error(value: object) -> None:
    with pytest.raises(ConfigError, match="max-file-size"):
        from_table({"max-file-size": value}, Path.cwd())


def test_the_bound_holds_for_every_front_end(tmp_path: Path) -> None:
    # A text handed over directly (the language server's buffer, stdin, the API) is measured
    # in UTF-8 bytes, as a file on disk is.
    config = Config(max_file_size=200)
    text = MISMATCH + "#é\n" * 45  # 195 characters, 240 bytes
    assert len(text) <= 200 < len(text.encode())
    assert _codes(analyze_source("m.py", text, config).diagnostics) == {(1, "SC005")}
    (tmp_path / "m.py").write_text(text)
    assert _codes(check_file(tmp_path / "m.py", config).diagnostics) == {(1, "SC005")}
    assert _codes(analyze_source("m.py", MISMATCH, config).diagnostics) == {(2, "SC101")}
    # Like every SC005, it can be accepted as unchecked.
    assert analyze_source("m.py", text, config.with_codes(None, ["SC005"])).diagnostics == ()


def test_running_out_of_memory_while_parsing_is_sc005_not_a_syntax_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # What a flat file gave under an address-space limit: CPython's parser raises MemoryError,
    # as it does (without a word, on 3.11) when its stack overflows on deep nesting.
    _fail_parsing(monkeypatch, "flat.py", MemoryError())
    result = analyze_source("flat.py", FLAT)
    assert result.error is None
    assert _codes(result.diagnostics) == {(1, "SC005")}
    assert "memory" in result.diagnostics[0].message


def test_running_out_of_memory_while_analysing_is_sc005_not_an_internal_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import shapecheck.analyzer.interpreter as interpreter

    def out_of_memory(self: object, *args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(interpreter.Interpreter, "run", out_of_memory)
    result = analyze_source("flat.py", FLAT)
    assert result.error is None
    assert _codes(result.diagnostics) == {(1, "SC005")}
    assert "memory" in result.diagnostics[0].message


@pytest.mark.parametrize("source", ["y = " + "not " * 20_000 + "x\n", "y = " + "-" * 20_000 + "1\n"])
def test_nesting_that_overflows_cpythons_parser_stays_sc004(source: str) -> None:
    # CPython refuses these (compile() raises MemoryError, or a SyntaxError "too complex"):
    # the file cannot run, whatever memory there is.
    try:
        compile(source, "deep.py", "exec")
    except (MemoryError, SyntaxError, RecursionError):
        pass
    else:
        pytest.skip("this CPython compiles it")
    found = analyze_source("deep.py", "import jax\n" + source).diagnostics
    assert {d.code for d in found} == {"SC004"}


def test_memory_bound_figures_are_documented() -> None:
    # The README states the bound the code applies.
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    assert f"{DEFAULT_MAX_FILE_SIZE // 1_000_000} MB" in readme
    assert "max-file-size" in readme


_OVERFLOWING = {
    "unary": lambda n: "-" * n + "1",
    "not": lambda n: "not " * n + "x",
    "power": lambda n: "a ** " * n + "a",
    "lambda": lambda n: "lambda a, b=-1: " * n + "x",
    "conditional": lambda n: "x if c else " * n + "x",
    "brackets": lambda n: "f(a=[{k: (" * 40 + "-" * n + "1" + ")}])" * 40,
    "blocks": lambda n: "".join(" " * i + "if x:\n" for i in range(99)) + " " * 99 + "-" * n + "1\n",
    "f-string": lambda n: 'f"{' + "-" * n + '1}"',
}


@pytest.mark.parametrize("kind", sorted(_OVERFLOWING))
def test_the_depth_bound_covers_what_overflows_cpythons_parser(kind: str) -> None:
    from shapecheck.nesting import could_overflow_parser

    # CPython decides: the smallest size of each construct that its parser refuses.
    make = _OVERFLOWING[kind]
    low, high = 1, 8_000
    assert _overflows(make(high))
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if _overflows(make(middle)) else (middle + 1, high)
    assert could_overflow_parser(make(low))


def _overflows(source: str) -> bool:
    try:
        ast.parse(source)
    except MemoryError:
        return True
    except (SyntaxError, RecursionError):  # RecursionError: building the tree, after parsing
        return False
    return False


def test_ordinary_code_is_far_below_the_depth_bound() -> None:
    from shapecheck import nesting

    for module in (ast, json, pytest, nesting):
        assert not nesting.could_overflow_parser(Path(str(module.__file__)).read_text(encoding="utf-8"))
    table = "TABLE = [\n" + "".join(f"    (-{i}, {i} ** 2, not {i}, -{i} * -{i}),\n" for i in range(20_000)) + "]\n"
    assert not nesting.could_overflow_parser(table)
    assert not nesting.could_overflow_parser(FLAT)


def test_the_text_report_of_a_file_over_the_bound_does_not_read_it_through(tmp_path: Path) -> None:
    import tracemalloc

    from shapecheck.formats import text

    big = tmp_path / "generated.py"
    big.write_text("x = 1\n" * (DEFAULT_MAX_FILE_SIZE // 6 + 1))
    (finding,) = check_file(big).diagnostics
    tracemalloc.start()
    try:
        out = text.render([finding], 1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "1 | x = 1" in out  # the excerpt of its first line
    assert peak < DEFAULT_MAX_FILE_SIZE // 10
