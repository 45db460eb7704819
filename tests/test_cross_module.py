"""Calls, specs and annotations followed across the files of one run (the project index)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from shapecheck.api import check_files
from shapecheck.project import ProjectIndex, module_names

LAYERS = textwrap.dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32

    IN_AXES = (['batch', ...], ['batch', ...])

    def dense(x: f32[('b', 784)], w: f32[(784, 512)]) -> f32[('b', 512)]:
        return jnp.dot(x, w)

    def add(x, y):
        return x + y
    """)

MAIN = textwrap.dedent("""\
    import jax.numpy as jnp
    from jax.experimental.maps import xmap
    from layers import IN_AXES, dense, add
    import layers

    x = jnp.ones((128, 784))
    h = dense(x, jnp.ones((700, 512)))
    r = xmap(add, in_axes=IN_AXES, out_axes=['batch', ...])(jnp.ones((5, 2)), jnp.ones((6, 2)))
    h2 = layers.dense(x, jnp.ones((784, 512)))
    z = h2 + jnp.ones((3,))
    ok = dense(x, jnp.ones((784, 512))) + jnp.ones((512,))
    """)


def _check(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    report = check_files([str(tmp_path / name) for name in files], jobs=1)
    assert not report.errors
    return [(Path(d.path).name, d.span.line, d.code) for d in report.diagnostics]


def test_imported_annotations_specs_and_returns(tmp_path: Path) -> None:
    found = _check(tmp_path, {"layers.py": LAYERS, "main.py": MAIN})
    assert found == [("main.py", 7, "SC103"), ("main.py", 8, "SC102"), ("main.py", 10, "SC101")]


def test_relative_imports_inside_a_package(tmp_path: Path) -> None:
    main = "from .layers import dense\nimport jax.numpy as jnp\n\ny = dense(jnp.ones((2, 784)), jnp.ones((3, 512)))\n"
    found = _check(tmp_path, {"pkg/__init__.py": "", "pkg/layers.py": LAYERS, "pkg/main.py": main})
    assert found == [("main.py", 4, "SC103")]


def test_import_cycles_read_as_unknown(tmp_path: Path) -> None:
    a = "import jax.numpy as jnp\nfrom b import g\n\ndef f(x):\n    return g(x)\n\ny = f(jnp.ones((3,))) + jnp.ones((4,))\n"
    b = "from a import f\n\ndef g(x):\n    return f(x)\n"
    assert _check(tmp_path, {"a.py": a, "b.py": b}) == []


def test_module_names(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for init in ("pkg/__init__.py", "pkg/sub/__init__.py"):
        (tmp_path / init).write_text("")
    (tmp_path / "pkg" / "sub" / "mod.py").write_text("")
    assert module_names(tmp_path / "pkg" / "sub" / "mod.py") == ["pkg.sub.mod", "mod"]
    assert module_names(tmp_path / "pkg" / "sub" / "__init__.py") == ["pkg.sub"]
    index = ProjectIndex.of([tmp_path / "pkg" / "sub" / "mod.py"])
    assert index.find("pkg.sub.mod") is not None and index.find("jax") is None


def test_imports_are_found_on_disk_when_only_one_file_is_checked(tmp_path: Path) -> None:
    # pre-commit passes only the changed files; their imports still resolve beside them.
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "main.py").write_text(MAIN)
    report = check_files([str(tmp_path / "main.py")], jobs=1)
    assert [(d.span.line, d.code) for d in report.diagnostics] == [(7, "SC103"), (8, "SC102"), (10, "SC101")]


def test_an_error_inside_an_imported_function_is_reported_at_the_call(tmp_path: Path) -> None:
    main = "import jax.numpy as jnp\nfrom layers import add\n\nok = add(jnp.ones((3,)), 2.0)\nbad = add(jnp.ones((3,)), jnp.ones((4,)))\n"
    found = _check(tmp_path, {"layers.py": LAYERS, "main.py": main})
    assert found == [("main.py", 5, "SC101")]


def test_specs_built_from_imported_names(tmp_path: Path) -> None:
    specs = "BATCH = ['batch', ...]\nPAIR = (BATCH, BATCH)\n"
    main = textwrap.dedent("""\
        import jax.numpy as jnp
        from jax.experimental.maps import xmap
        from specs import BATCH, PAIR
        import specs

        a = xmap(lambda x, y: x + y, in_axes=(BATCH, BATCH), out_axes=BATCH)(jnp.ones((5, 2)), jnp.ones((6, 2)))
        b = xmap(lambda x, y: x + y, in_axes=PAIR, out_axes=BATCH)(jnp.ones((5, 2)), jnp.ones((6, 2)))
        c = xmap(lambda x, y: x + y, in_axes=specs.PAIR, out_axes=['batch', ...])(jnp.ones((5, 2)), jnp.ones((6, 2)))
        """)
    found = _check(tmp_path, {"specs.py": specs, "main.py": main})
    assert found == [("main.py", 6, "SC102"), ("main.py", 7, "SC102"), ("main.py", 8, "SC102")]


def test_annotation_names_imported_from_project_modules(tmp_path: Path) -> None:
    # An `Array` class of another module is not the annotation language (typeshed's _ctypes);
    # a dtype name a project module defines in the tutorial style still is.
    found = _check(tmp_path, {
        "_ct.py": "class Array: ...\n",
        "user.py": "from _ct import Array\n\ndef f() -> Array[int]: ...\n",
        "dt.py": "class ArrayType:\n    def __getitem__(self, idx): ...\n\nf32 = ArrayType()\n",
        "use_dt.py": "from dt import f32\nimport jax.numpy as jnp\n\nx: f32[(3,)] = jnp.ones((4,))\n",
    })
    assert found == [("use_dt.py", 4, "SC103")]


def test_annotation_names_follow_star_imports_and_re_exports(tmp_path: Path) -> None:
    # A star import binds exactly what the module defines (its __all__ when it has one); a star
    # import of a module the analyzer cannot read may bind any name; a name a project module
    # takes from another library is that library's.
    found = _check(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/axis_names.py": "import jax\n\nclass Array: ...\nBATCH = 'batch'\n",
        "pkg/typing.py": "import jaxtyping\n\nclass AliasMeta(type): ...\n\nArray = AliasMeta('Array', jaxtyping.Shaped)\n",
        "kd.py": "from pkg.typing import Array\n\ndef f(x: Array['*b h w c']) -> Array['...']: ...\n",
        "pkg/dtypes.py": "from shapecheck import f32, i32\n",
        "pkg/lib_dtypes.py": textwrap.dedent("""\
            from typing import TYPE_CHECKING
            from haliax.haxtyping import f32

            if TYPE_CHECKING:
                from jaxtyping import Int32 as i32
            else:
                def _wrapper(dtype):
                    class _Wrapper: ...
                    return _Wrapper
                i32 = _wrapper('int32')
            """),
        "pkg/hidden.py": "from shapecheck import f32\n__all__ = ['g']\n\ndef g(): ...\n",
        "main.py": textwrap.dedent("""\
            import jax.numpy as jnp
            from unreadable.names import *
            from pkg.axis_names import *
            from pkg.dtypes import *

            def f(x: Array["x", "y"], y: bf16["batch embed"]) -> None: ...
            bad: f32[(3,)] = jnp.ones((4,))
            """),
        "lib.py": textwrap.dedent("""\
            from pkg.lib_dtypes import f32, i32
            from pkg.hidden import *

            def f(x: f32["batch embed"], y: i32["batch"]) -> None: ...
            """),
    })
    assert found == [("main.py", 7, "SC103")]


def test_a_star_import_binds_only_what_all_exports(tmp_path: Path) -> None:
    # `i32` is not in exp's __all__: the unreadable star import before it may bind it.
    found = _check(tmp_path, {
        "exp.py": "from shapecheck import f32, i32\n__all__ = ['f32']\n",
        "main.py": textwrap.dedent("""\
            import jax.numpy as jnp
            from unreadable import *
            from exp import *

            x: f32[(3,)] = jnp.ones((4,))
            y: i32["n"] = 0
            """),
    })
    assert found == [("main.py", 5, "SC103")]


def test_a_fault_in_an_imported_xmap_spec_is_reported_at_the_call(tmp_path: Path) -> None:
    # The literal lives in specs.py; this file's path with specs.py's position pointed at
    # this file's line 1.
    found = _check(tmp_path, {
        "specs.py": "IN_AXES = ({-1: 'batch'},)\n",
        "main.py": textwrap.dedent("""\
            import jax.numpy as jnp
            from jax.experimental.maps import xmap
            from specs import IN_AXES

            def f(x):
                return x

            y = xmap(f, in_axes=IN_AXES, out_axes=['batch', ...])(jnp.ones(()))
            """),
    })
    assert found == [("main.py", 8, "SC002")]


LIB_WITH_A_BUG = textwrap.dedent("""\
    import jax.numpy as jnp

    def f(x):
        bad = jnp.ones((3,)) + jnp.ones((4,))
        return x + jnp.ones((5,))
    """)


def test_a_bug_in_another_modules_body_is_its_own_not_each_callers(tmp_path: Path) -> None:
    # Line 4 of lib fails whatever the arguments: lib's own check reports it, once. The call
    # reports what fails there for its own argument (6 against 5), which that bug must not hide.
    main = "import jax.numpy as jnp\nfrom lib import f\n\nz = f(jnp.ones((6,)))\nw = f(jnp.ones((5,)))\n"
    found = _check(tmp_path, {"lib.py": LIB_WITH_A_BUG, "main.py": main})
    assert found == [("lib.py", 4, "SC101"), ("main.py", 4, "SC101")]
    report = check_files([str(tmp_path / "main.py")], jobs=1)
    [alone] = report.diagnostics
    assert (alone.span.line, "sizes 6 and 5" in alone.message) == (4, True)


# Installed run-time checkers are in mypy's module graph (and on the checked tree's path):
# their source must not stand in for what the library knows of them.
_CHECKER_SOURCES = {
    "beartype/__init__.py": "from beartype._decor import beartype\n",
    "beartype/_decor.py": "def beartype(obj=None, *, conf=None):\n    return _wrap(obj, conf)\n",
    "jaxtyping/__init__.py": "from typing import Any as Array, Any as Float\n"
                             "def jaxtyped(fn=None, *, typechecker=None):\n    return _wrap(fn)\n",
    "typeguard/__init__.py": "def typechecked(target=None):\n    return _wrap(target)\n",
}


@pytest.mark.parametrize("decorator", ["@jaxtyped(typechecker=beartype)", "@beartype", "@typechecked"])
def test_a_run_time_checker_in_the_project_tree_keeps_the_function_checked(tmp_path: Path, decorator: str) -> None:
    model = textwrap.dedent(f"""\
        import jax.numpy as jnp
        from beartype import beartype
        from jaxtyping import Array, Float, jaxtyped
        from typeguard import typechecked

        {decorator}
        def dense(x: Float[Array, "batch 128"], w: Float[Array, "128 10"]) -> Float[Array, "batch 10"]:
            return x @ w

        y = dense(jnp.ones((4, 128)), jnp.ones((64, 10)))
        """)
    found = _check(tmp_path, {**_CHECKER_SOURCES, "model.py": model})
    assert found == [("model.py", 10, "SC103")]
