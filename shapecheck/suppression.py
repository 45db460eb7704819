"""`# shapecheck: ignore[SC101]` comments: which codes each line silences."""

from __future__ import annotations

import io
import re
import tokenize

_PATTERN = re.compile(r"#\s*shapecheck:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)

ALL = frozenset({"*"})


def suppressions(text: str) -> dict[int, frozenset[str]]:
    """Line -> codes silenced there (`ALL` for a bare ignore). Only real comments count."""
    if "shapecheck:" not in text:
        return {}
    found: dict[int, frozenset[str]] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return found
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        match = _PATTERN.search(token.string)
        if not match:
            continue
        codes = match.group("codes")
        line = token.start[0]
        if codes is None or not codes.strip():
            found[line] = ALL
        else:
            found[line] = frozenset(code.strip().upper() for code in codes.split(",") if code.strip())
    return found


def is_suppressed(table: dict[int, frozenset[str]], line: int, code: str) -> bool:
    codes = table.get(line)
    return codes is not None and (codes is ALL or "*" in codes or code in codes)
