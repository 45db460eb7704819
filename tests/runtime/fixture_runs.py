"""What the differential tests share: a fixture's markers, its module-level assignments, and
whether a value computed at run time fits the type the analyzer inferred for it, in shape and
in dtype.

Each clean fixture runs on JAX in one test only, which holds the run to the analyzer's shapes and
dtypes both: the xmap fixtures in test_differential, the current-JAX ones in test_current_jax,
and the rest in test_dtype_differential."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import numpy as np

from shapecheck.algebra.promotion import as_shown
from shapecheck.diagnostic import Span
from shapecheck.dtypes import KINDS, NUMPY_NAMES
from shapecheck.types import ArrayType

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
MARKER = re.compile(r"#\s*expect:\s*((?:SC\d{3}\s*)+)")


def markers(text: str) -> set[str]:
    return {code for match in MARKER.finditer(text) for code in match.group(1).split()}


def marked_lines(text: str) -> list[int]:
    """The 1-based lines that carry an `# expect:` marker."""
    return [number for number, line in enumerate(text.splitlines(), start=1) if MARKER.search(line)]


def assignments(tree: ast.Module) -> list[tuple[str, Span]]:
    """Module-level `name = <call>` or `name = <call>[...]` (annotated or not) with the span of the value."""
    found = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if isinstance(target, ast.Name) and isinstance(value, ast.Call | ast.Subscript) and value.end_lineno is not None:
            span = Span(value.lineno, value.col_offset, value.end_lineno, value.end_col_offset or 0)
            found.append((target.id, span))
    return found


def agrees(inferred: ArrayType, value: Any) -> bool:
    """A run-time result fits what the analyzer inferred (unknown parts fit anything)."""
    shape = tuple(np.shape(value))
    if inferred.named and not inferred.named_open:
        return False  # at module level every named axis has been placed by out_axes
    if inferred.ellipsis is not None:
        return True
    return len(shape) == len(inferred.dims) and all(
        not isinstance(dim, int) or dim == size for dim, size in zip(inferred.dims, shape, strict=True))


def fully_known(inferred: ArrayType) -> bool:
    """Every positional dim is a known size and no named axis is left."""
    return inferred.ellipsis is None and not inferred.named and not inferred.named_open \
        and all(isinstance(dim, int) for dim in inferred.dims)


def dtypes_compared(types: dict[Span, ArrayType], values: dict[str, Any],
                    tree: ast.Module) -> list[tuple[str, str, str]]:
    """(name, inferred dtype, run-time dtype) for each module-level value of a fixture's run
    whose dtype the analyzer inferred (JAX's default, x64 off, on both sides)."""
    found = []
    for name, span in assignments(tree):
        inferred = types.get(span)
        value = values.get(name)
        if inferred is None or inferred.dtype not in KINDS or not hasattr(value, "dtype"):
            continue
        found.append((name, str(as_shown(inferred).dtype), NUMPY_NAMES.get(np.dtype(value.dtype).name, "?")))
    return found


def dtype_mismatches(types: dict[Span, ArrayType], values: dict[str, Any], tree: ast.Module) -> list[tuple[str, str, str]]:
    """Those of `dtypes_compared` where the analyzer and the run disagree."""
    return [(name, inferred, actual) for name, inferred, actual in dtypes_compared(types, values, tree)
            if inferred != actual]
