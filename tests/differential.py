"""A differential oracle: one program, checked by shapecheck and traced by JAX.

The program's last statement assigns `out`. JAX traces the whole program under
`jax.eval_shape` (the shape checks run, nothing is compiled); the checker analyses the same
text. `agree` demands that the checker reports nothing on a program JAX accepts and infers its
shape (and dtype, where it claims one), and reports something on one JAX refuses.
"""

from __future__ import annotations

import textwrap
import traceback
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, settings

from shapecheck.api import analyze_source
from shapecheck.dtypes import NUMPY_NAMES, narrowed
from shapecheck.types import ArrayType


def cases(count: int) -> settings:
    """A differential suite's hypothesis settings: `count` examples, fixed (derandomized) so
    the suite is reproducible, with no deadline (JAX traces each program)."""
    return settings(max_examples=count, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def shape_literal(dims: list[int]) -> str:
    """A shape as a program writes it: `(2, 3, )`, `(4, )`, `()`."""
    return "(" + "".join(f"{d}, " for d in dims) + ")"


@dataclass(frozen=True)
class Checked:
    codes: tuple[str, ...]
    type: ArrayType | None  # the inferred type of the last statement's value


def check(program: str) -> Checked:
    source = textwrap.dedent(program).strip() + "\n"
    result = analyze_source("t.py", source, keep_types=True)
    assert result.error is None, result.error
    lines = source.splitlines()
    last = len(lines)
    column = lines[-1].index("=") + 2
    found = [t.type for t in result.types
             if t.span.line == last and t.span.column == column and t.span.end_line == last
             and t.span.end_column == len(lines[-1])]
    return Checked(tuple(d.code for d in result.diagnostics), found[0] if found else None)


def trace(program: str) -> Any:
    """What JAX makes of the program: the abstract value of `out`, or the exception raised."""
    import jax  # the oracle's own import: callers skip without jax

    body = "def program():\n" + textwrap.indent(textwrap.dedent(program).strip(), "    ") + "\n    return out\n"
    namespace: dict[str, Any] = {}
    exec(compile(body, "t.py", "exec"), namespace)
    try:
        return jax.eval_shape(namespace["program"])
    except Exception as error:  # the program's own failure is the oracle's answer
        traceback.clear_frames(error.__traceback__)
        return error


def agree(program: str, codes: frozenset[str] | None = None) -> None:
    """JAX and the checker agree on `program` (`codes`: those a refusal may be reported as)."""
    checked = check(program)
    traced = trace(program)
    if isinstance(traced, BaseException):
        assert checked.codes, f"JAX refuses ({type(traced).__name__}: {traced}), the checker reports nothing:\n{program}"
        if codes is not None:
            assert set(checked.codes) <= codes, (checked.codes, program)
        return
    assert not checked.codes, f"JAX accepts (out: {traced.shape}), the checker reports {checked.codes}:\n{program}"
    inferred = checked.type
    assert inferred is not None and inferred.rank is not None, f"no shape inferred for out {traced.shape}:\n{program}"
    assert inferred.dims == tuple(traced.shape), f"inferred {inferred}, JAX {traced.shape}:\n{program}"
    if inferred.dtype is not None:
        # The checker infers what JAX computes with x64 on; the oracle runs with it off.
        assert narrowed(inferred.dtype) == NUMPY_NAMES[str(traced.dtype)], \
            f"inferred {inferred}, JAX {traced.dtype}:\n{program}"
