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
