"""The light path never imports jax or numpy: the linter core runs where neither is installed."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Imports every module of the annotation language and the algebra in a fresh interpreter and
# reports which heavy modules were loaded on the way.
CHILD = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys

    import shapecheck
    import shapecheck.algebra
    import shapecheck.annotation

    modules = ["shapecheck.dims", "shapecheck.types", "shapecheck.dtypes", "shapecheck.literal",
               "shapecheck.dtype_objects", "shapecheck.diagnostic"]
    modules += [info.name for info in pkgutil.iter_modules(shapecheck.algebra.__path__,
                                                           "shapecheck.algebra.")]
    for name in modules:
        importlib.import_module(name)
    # Building a type at run time is part of the light path too.
    shapecheck.f32[(5, 7), {"batch": 20}]
    heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("jax", "jaxlib", "numpy"))
    print(json.dumps({"imported": modules, "heavy": heavy}))
    """
)


def test_light_path_imports_neither_jax_nor_numpy() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    # The check is only worth something if it really covered the algebra.
    assert "shapecheck.algebra.einsum" in report["imported"]
    assert "shapecheck.algebra.axis_mapping" in report["imported"]
    assert report["heavy"] == []


def test_the_check_would_notice_a_heavy_import() -> None:
    # Guard against a child that cannot see numpy at all: then the test above proves nothing.
    probe = "import sys, numpy; print('numpy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert result.stdout.strip() == "True"


# Runs `shapecheck check` in this interpreter and reports what it imported.
CHECK = textwrap.dedent(
    """
    import json, sys
    from shapecheck.cli import main

    code = main(sys.argv[1:])
    print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
    """
)


def _imported_by_check(*args: str, cwd: Path) -> set[str]:
    result = subprocess.run([sys.executable, "-c", CHECK, "check", "--format", "json", *args],
                            cwd=cwd, capture_output=True, text=True, check=False)
    report = json.loads(result.stderr.strip().splitlines()[-1])
    assert report["code"] == 1, result.stderr  # the diagnostic below was found
    return set(report["modules"])


def test_check_never_imports_libcst_and_a_warm_run_no_analyzer(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import jax.numpy as jnp\nx = jnp.ones((3,)) + jnp.ones((4,))\n")
    # The analyzer reads CPython's tree; libcst is the codemods' alone.
    cold = _imported_by_check("m.py", cwd=tmp_path)
    assert "shapecheck.analyzer.interpreter" in cold
    assert not {m for m in cold if m.split(".")[0] == "libcst"}
    # Answered from the cache: nothing that analyses, and no TOML reader without a config.
    warm = _imported_by_check("m.py", cwd=tmp_path)
    assert not {m for m in warm if m.startswith("shapecheck.analyzer")}
    assert "tomllib" not in warm
