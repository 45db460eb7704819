"""mypy error codes for shapecheck's diagnostics: one namespaced `ErrorCode` per rule.

The codes come from the rule table (`shapecheck.rules`), so a new rule gets its mypy code
without touching the plugin, and `# type: ignore[shape-broadcast-mismatch]` or mypy's
`disable_error_code` work as they do for mypy's own codes.
"""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ErrorCode

from shapecheck.codes import Code
from shapecheck.rules import RULES

NAMESPACE: Final = "shapecheck"

ERROR_CODES: Final[dict[Code, ErrorCode]] = {
    code: ErrorCode(rule.error_code, rule.summary, NAMESPACE) for code, rule in RULES.items()
}
"""SC code -> mypy error code (`SC101` -> `shape-broadcast-mismatch`)."""

INTERNAL_ERROR: Final = ErrorCode(
    "shape-internal-error", "shapecheck could not analyse the file", NAMESPACE)

SC_CODES: Final[dict[str, Code]] = {error.code: code for code, error in ERROR_CODES.items()}
"""mypy error code name -> SC code, to map mypy's output back (`shape-broadcast-mismatch` -> `SC101`)."""


def error_code(code: Code) -> ErrorCode:
    """The mypy error code of an SC code; codes without a rule share the internal one."""
    return ERROR_CODES.get(code, INTERNAL_ERROR)
