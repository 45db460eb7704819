"""`shapecheck annotate` and `shapecheck migrate` from the command line: writing, --diff,
--check, exit statuses, files that cannot be processed among ones that can, encodings."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapecheck.cli import main

XMAP_PROGRAM = "import jax.numpy as jnp\nfrom jax.experimental.maps import xmap  # old\n\nf = xmap\n"
MIGRATED = "import jax.numpy as jnp\nfrom shapecheck.runtime import xmap  # old\n\nf = xmap\n"
TYPED_PROGRAM = "import jax.numpy as jnp\n\nx = jnp.zeros((2,), dtype=jnp.int32)  # keep me\n"
ANNOTATED = ("import jax.numpy as jnp\nfrom shapecheck import i32\n\n"
             "x: i32[(2,)] = jnp.zeros((2,), dtype=jnp.int32)  # keep me\n")


def test_migrate_writes_and_a_second_run_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "prog.py"
    program.write_text(XMAP_PROGRAM)
    assert main(["migrate", str(program)]) == 0
    assert program.read_text() == MIGRATED
    assert main(["migrate", "--check", str(program)]) == 0
    assert program.read_text() == MIGRATED
    assert "rewrote 1 file(s)" in capsys.readouterr().err


def test_diff_shows_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "prog.py"
    program.write_text(XMAP_PROGRAM)
    assert main(["migrate", "--diff", str(program)]) == 0
    out = capsys.readouterr().out
    assert f"--- {program}\n+++ {program}\n" in out
    assert "-from jax.experimental.maps import xmap  # old\n+from shapecheck.runtime import xmap  # old\n" in out
    assert program.read_text() == XMAP_PROGRAM


def test_check_exits_1_when_a_file_would_change(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text(TYPED_PROGRAM)
    assert main(["annotate", "--check", str(tmp_path)]) == 1
    assert program.read_text() == TYPED_PROGRAM
    assert main(["annotate", str(tmp_path)]) == 0
    assert program.read_text() == ANNOTATED
    assert main(["annotate", "--check", str(tmp_path)]) == 0


def test_bad_files_are_reported_and_the_others_still_processed(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a_broken.py").write_text("from jax.experimental.maps import xmap\nx = (\n")
    (tmp_path / "b_undecodable.py").write_bytes(b"x = '\xff\xfe'\n")
    good = tmp_path / "c_good.py"
    good.write_text(XMAP_PROGRAM)
    assert main(["migrate", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "a_broken.py: not rewritten: the file does not parse (line 2" in err
    assert "b_undecodable.py: cannot decode file" in err
    assert good.read_text() == MIGRATED
    assert (tmp_path / "a_broken.py").read_text() == "from jax.experimental.maps import xmap\nx = (\n"


def test_a_missing_path_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", str(tmp_path / "nope.py")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["annotate"])
    assert exit_.value.code == 2


def test_what_migrate_leaves_alone_is_said_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "prog.py"
    program.write_text("from jax.experimental import maps\nloop = maps.SerialLoop(2)\n")
    assert main(["migrate", str(program)]) == 1
    assert f"{program}: line 2: `maps.SerialLoop` has no counterpart" in capsys.readouterr().err
    assert program.read_text() == "from shapecheck import runtime as maps\nloop = maps.SerialLoop(2)\n"


def test_the_file_keeps_its_encoding_and_line_endings(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    source = "# -*- coding: latin-1 -*-\r\n# caf\xe9\r\nfrom jax.experimental.maps import xmap\r\n"
    program.write_bytes(source.encode("latin-1"))
    assert main(["migrate", str(program)]) == 0
    assert program.read_bytes() == source.replace("jax.experimental.maps", "shapecheck.runtime").encode("latin-1")


def test_annotate_keeps_crlf_line_endings(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_bytes(TYPED_PROGRAM.replace("\n", "\r\n").encode())
    assert main(["annotate", str(program)]) == 0
    assert program.read_bytes() == ANNOTATED.replace("\n", "\r\n").encode()


def test_help_texts_name_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("annotate", "migrate"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "--diff" in out and "--check" in out and "Exit status" in out
