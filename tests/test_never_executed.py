"""The checker never imports, executes or evaluates the code it checks.

Every place a careless checker might run user code (annotations, defaults, decorators, axis
specs, einsum strings, module tops, package `__init__.py`, modules named like the checker's own
dependencies beside the checked file) holds a payload that would create a sentinel file. The
command line runs in a subprocess with the checked folder as its working directory, as a
pre-commit hook does, and no sentinel may appear.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _payload(tag: str) -> str:
    """An expression that creates the file `sentinel-<tag>` when evaluated."""
    return f"__import__('pathlib').Path('sentinel-{tag}').touch()"


def _program() -> str:
    return textwrap.dedent(f"""\
        import jax
        import jax.numpy as jnp
        from jax.experimental.maps import xmap
        from shapecheck import f32
        import helpers
        from helpers import tools
        {_payload("module-top")}

        def deco(f):
            {_payload("decorator-body")}
            return f

        @deco
        @({_payload("decorator")} or deco)
        def f(x: {_payload("annotation")}, y: f32[({_payload("dim")},)] = {_payload("default")},
              z: "{_payload("string-annotation")}" = None) -> f32["{_payload("dims-string")}"]:
            return jnp.einsum("{_payload("einsum")}", x)

        g = xmap(f, in_axes=[{_payload("in-axes")}, ...], out_axes=["{_payload("out-axes")}", ...],
                 axis_sizes={{"k": {_payload("axis-size")}}}, axis_resources={{"k": "{_payload("res")}"}})
        v = jax.vmap(f, in_axes=({_payload("vmap-axes")},))
        w: f32[(3,), {{"{_payload("named")}": 3}}] = jnp.ones(({_payload("shape")},))
        s = jnp.ones((3,)).reshape({_payload("reshape")})
        t = jnp.sum(jnp.ones((3,)), axis="{_payload("axis-name")}")
        class C({_payload("base")} or object, metaclass={_payload("metaclass")} or type):
            a: {_payload("class-annotation")} = {_payload("class-attr")}
        """)


@pytest.fixture
def checked(tmp_path: Path) -> Path:
    (tmp_path / "main.py").write_text(_program())
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text(_payload("package-init") + "\nimport jax\n")
    (tmp_path / "helpers" / "tools.py").write_text(_payload("submodule") + "\nimport jax\n")
    # Modules named like the checker's own imports, where `python -m` would find them first.
    for name in ("jax", "libcst", "pathspec", "tomllib", "shapecheck_plugin", "sitecustomize"):
        (tmp_path / f"{name}.py").write_text(_payload(f"shadow-{name}") + "\n")
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text(_payload("shadow-numpy") + "\n")
    return tmp_path


@pytest.mark.parametrize("how", ["console-script", "python-m"])
def test_checked_code_is_never_executed(checked: Path, how: str) -> None:
    script = Path(sys.executable).parent / "shapecheck"
    command = [str(script)] if how == "console-script" else [sys.executable, "-m", "shapecheck"]
    for jobs in ("1", "2"):
        result = subprocess.run([*command, "check", "--jobs", jobs, "--format", "json", "."],
                                cwd=checked, capture_output=True, text=True, timeout=300)
        assert result.returncode in (0, 1), result.stderr
        assert sorted(p.name for p in checked.glob("sentinel-*")) == []
