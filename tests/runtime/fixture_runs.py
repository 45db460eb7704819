"""What the differential tests share: a fixture's markers, its module-level assignments, and
whether a value computed at run time fits the type the analyzer inferred for it."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import numpy as np

from shapecheck.diagnostic import Span
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
