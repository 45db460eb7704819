"""The plugin through real mypy: types, suppression, cross-module checks, options and the cache."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from mypy import api

from shapecheck.engine import Engine, FileResult
from shapecheck.plugin import prefetch

from .support import cache_for, run_mypy, write_config

ANNOTATIONS = '''\
{future}from collections.abc import Callable

import jax
import jax.numpy as jnp

from shapecheck import Array, f32, i32


def layer(x: f32[(5, 7), {{'batch': 20}}], w: f32[(7, None)]) -> f32[(5, None), {{'batch': 20}}]:
    return jnp.dot(x, w)


def scalar(x: f32[()], n: f32[(None, 'n')], anything: f32[...], i: i32[('n',)]) -> Array[...]:
    total: f32[()] = jnp.sum(x)
    return total + n.sum() + anything.mean() + i.sum()


apply: Callable[[f32[(3, 3)]], f32[(3, 3)]] = lambda m: m @ m
square: f32[(3, 3)] = apply(jnp.eye(3))
plain: jax.Array = square
reveal_type(square)
'''


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


@pytest.mark.parametrize("future", ["", "from __future__ import annotations\n\n"])
def test_the_annotation_language_is_jax_array_to_mypy(tmp_path: Path, plugin_cache: Path,
                                                     future: str) -> None:
    path = write(tmp_path, "forms.py", ANNOTATIONS.format(future=future))
    run = run_mypy([path], write_config(tmp_path), plugin_cache, ["--strict"])
    assert run.errors() == [], run.stdout
    revealed = [m.message for m in run.messages if m.severity == "note"]
    assert revealed == ['Revealed type is "jax._src.basearray.Array"']


def test_values_stay_as_strictly_checked_as_jax_arrays(tmp_path: Path, plugin_cache: Path) -> None:
    path = write(tmp_path, "strict.py", """\
        from shapecheck import f32

        def f(x: f32[(3,)]) -> f32[(3,)]:
            return "not an array"
        """)
    run = run_mypy([path], write_config(tmp_path), plugin_cache)
    assert run.mypy_errors("strict.py") == {(4, "return-value")}


def test_tutorial_style_local_annotation_names(tmp_path: Path, plugin_cache: Path) -> None:
    path = write(tmp_path, "tutorial.py", """\
        import jax.numpy as jnp

        class ArrayType:
            def __getitem__(self, idx: object) -> object:
                return idx

        f32 = ArrayType()

        def f(x: f32[(3,)]) -> f32[(4,)]:
            return x + 1
        """)
    run = run_mypy([path], write_config(tmp_path), plugin_cache)
    assert run.mypy_errors("tutorial.py") == set()
    assert run.shape_pairs("tutorial.py") == {(10, "SC103"): 1}


BROADCAST = """\
    import jax.numpy as jnp

    def add(x, y):
        return x + y

    a = jnp.ones((3, 4))
    b = jnp.ones((5,))
    c = a + b
    d = a + b  # type: ignore[shape-broadcast-mismatch]
    e = a + b  # type: ignore[shape-named-size-mismatch]
    """


def test_errors_at_line_and_column_with_codes_and_ignores(tmp_path: Path, plugin_cache: Path) -> None:
    path = write(tmp_path, "ignores.py", BROADCAST)
    # Set for this module, as a project sets it: mypy's cached analysis of jax, made with the
    # default flags, stays valid (a global --warn-unused-ignores would analyse jax again).
    config = write_config(tmp_path)
    config.write_text(config.read_text() + "[mypy-ignores]\nwarn_unused_ignores = True\n")
    run = run_mypy([path], config, plugin_cache)
    found = {(m.line, m.column, m.code) for m in run.errors("ignores.py")
             if m.code != "unused-ignore"}
    # line 9 is silenced (its ignore is used, so not reported as unused); line 10's ignore names
    # another code, so the error stays and the ignore is unused.
    assert found == {(8, 5, "shape-broadcast-mismatch"), (10, 5, "shape-broadcast-mismatch")}
    assert {m.line for m in run.errors("ignores.py") if m.code == "unused-ignore"} == {10}


def test_findings_only_in_unannotated_functions_are_reported(tmp_path: Path,
                                                             plugin_cache: Path) -> None:
    # mypy never type-checks these bodies: the file is reported from semantic analysis.
    path = write(tmp_path, "untyped.py", """\
        import jax.numpy as jnp

        def main():
            x = jnp.ones((3, 4))
            y = jnp.ones((5,))
            return x + y
        """)
    run = run_mypy([path], write_config(tmp_path), plugin_cache)
    assert run.shape_pairs("untyped.py") == {(6, "SC101"): 1}


def test_notes_follow_their_error(tmp_path: Path, plugin_cache: Path) -> None:
    path = write(tmp_path, "notes.py", """\
        import jax.numpy as jnp
        from jax.experimental.maps import xmap

        x = jnp.ones((32, 16))
        h = jnp.ones((16, 16))
        y = xmap(jnp.add, in_axes=(['b', ...], ['b', ...]), out_axes=['b', ...])(x, h)
        """)
    run = run_mypy([path], write_config(tmp_path), plugin_cache)
    at_call = [m for m in run.messages if m.line == 6]
    assert [(m.severity, m.code) for m in at_call] == [("error", "shape-named-size-mismatch"),
                                                       ("note", None)]
    assert at_call[1].message.endswith("(line 6, column 74)")  # the first argument


def test_cross_module_call_and_imported_in_axes(tmp_path: Path, plugin_cache: Path) -> None:
    write(tmp_path, "xm_layers.py", """\
        import jax.numpy as jnp
        from shapecheck import f32

        IN_AXES = (['batch', ...], ['batch', ...])

        def project(x: f32[(8, 16)]) -> f32[(8, 4)]:
            return x[:, :4]
        """)
    user = write(tmp_path, "xm_model.py", """\
        import jax.numpy as jnp
        from jax.experimental.maps import xmap
        from xm_layers import IN_AXES, project

        good = project(jnp.ones((8, 16)))
        bad = project(jnp.ones((8, 15)))
        pair = xmap(jnp.add, in_axes=IN_AXES, out_axes=['batch', ...])
        z = pair(jnp.ones((32, 2)), jnp.ones((16, 2)))
        """)
    run = run_mypy([user, tmp_path / "xm_layers.py"], write_config(tmp_path), plugin_cache)
    assert run.shape_pairs("xm_model.py") == {(6, "SC103"): 1, (8, "SC102"): 1}
    assert run.shape_pairs("xm_layers.py") == {}


CLEAN = """\
    from collections.abc import Sequence

    def mean(values: Sequence[float]) -> float:
        return sum(values) / len(values)

    total: float = mean([1.0, 2.0])
    """

MYPY_ERROR = """\
    import jax.numpy as jnp

    def half(x: int) -> int:
        return x // 2

    y = half("four")
    z = jnp.ones((3,)) + 1
    """


def test_no_regression_on_ordinary_code(tmp_path: Path, plugin_cache: Path,
                                        plain_cache: Path) -> None:
    clean = write(tmp_path, "clean_module.py", CLEAN)
    wrong = write(tmp_path, "wrong_module.py", MYPY_ERROR)
    plugin_dir, plain_dir = tmp_path / "with", tmp_path / "without"
    plugin_dir.mkdir()
    plain_dir.mkdir()
    with_plugin = run_mypy([clean, wrong], write_config(plugin_dir), plugin_cache, ["--strict"])
    without = run_mypy([clean, wrong], write_config(plain_dir, plugin=False), plain_cache,
                       ["--strict"])
    assert with_plugin.errors("clean_module.py") == without.errors("clean_module.py") == []
    assert without.mypy_errors("wrong_module.py") == {(6, "arg-type")}
    assert [(m.line, m.column, m.message, m.code) for m in with_plugin.errors("wrong_module.py")] == \
        [(m.line, m.column, m.message, m.code) for m in without.errors("wrong_module.py")]


def test_options_from_mypy_ini(tmp_path: Path, plugin_cache: Path) -> None:
    path = write(tmp_path, "options_ini.py", textwrap.dedent(BROADCAST) + "\nFloat32 = 0\n"
                 "f: Float32[(3,)] = jnp.ones((4,))\n")
    config = write_config(tmp_path, shapecheck="ignore = SC101\nextend_annotation_names = Float32")
    run = run_mypy([path], config, plugin_cache)
    assert run.shape_pairs("options_ini.py") == {(13, "SC103"): 1}


def test_changed_settings_check_the_project_again_but_not_jax(tmp_path: Path, plugin_cache: Path) -> None:
    # mypy reports nothing in an installed package, so the settings cannot change what it shows
    # there: its cached analysis of jax (and shapecheck) stays valid, that of the project's
    # module does not.
    path = write(tmp_path, "settings_changed.py", BROADCAST)
    first = run_mypy([path], write_config(tmp_path), plugin_cache)
    assert set(first.shape_pairs("settings_changed.py")) == {(8, "SC101"), (10, "SC101")}
    changed = write_config(tmp_path, shapecheck="ignore = SC101")
    # As run_mypy runs it, over the same cache, and verbose: mypy logs which modules it reuses.
    stdout, log, status = api.run(["--config-file", str(changed), "--cache-dir", str(cache_for(plugin_cache)),
                                   "--show-error-codes", "--no-error-summary", "-v", str(path)])
    assert status == 0 and "SC101" not in stdout and "broadcast" not in stdout, stdout
    assert "Metadata fresh for jax.numpy:" in log
    # shapecheck's own modules are no more the project than jax is, in a checkout on mypy_path
    # too; jax.lax, which imports the stub of its restored names, stays cached with it.
    assert "Metadata fresh for shapecheck.restored_jax_lax:" in log
    assert "Metadata fresh for jax.lax:" in log
    # The stub declares the restored names without importing their runtime, which would have
    # mypy analyse much of shapecheck in every project that imports jax.lax.
    assert "shapecheck.runtime" not in log
    assert "Metadata fresh for settings_changed:" not in log


def test_options_from_pyproject(tmp_path: Path, plugin_cache: Path) -> None:
    path = write(tmp_path, "options_toml.py", BROADCAST)
    ini = write_config(tmp_path).read_text().splitlines()
    config = tmp_path / "pyproject.toml"
    config.write_text(f'[tool.mypy]\nmypy_path = "{ini[1].split(" = ")[1]}"\n'
                      'plugins = ["shapecheck.plugin"]\n'
                      '[tool.shapecheck]\nselect = ["SC2"]\n')
    run = run_mypy([path], config, plugin_cache)
    assert run.status == 0, run.stdout + run.stderr
    assert run.shape_pairs("options_toml.py") == {}


def test_a_cached_unchanged_module_replays_its_diagnostics(tmp_path: Path, plugin_cache: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "cached_module.py", BROADCAST)
    config = write_config(tmp_path)
    analysed: list[str] = []
    analyze = Engine.analyze

    def counting(self: Engine, path: str, *args: object, **kwargs: object) -> FileResult:
        analysed.append(Path(path).name)
        return analyze(self, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Engine, "analyze", counting)
    # Analyses counted here are those of mypy's process: with a cold cache of jax, the first
    # run parses enough text to start the prefetch worker, whose analysis this would not see.
    monkeypatch.setattr(prefetch, "_spare_cores", lambda: 0)
    first = run_mypy([path], config, plugin_cache)
    second = run_mypy([path], config, plugin_cache)
    assert analysed == ["cached_module.py"]  # the second run never re-analysed the file
    assert second.messages == first.messages
    assert first.shape_pairs("cached_module.py") == {(8, "SC101"): 1, (10, "SC101"): 1}

