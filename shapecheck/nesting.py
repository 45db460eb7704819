"""How deep CPython's parser can nest on a text: what tells its stack overflowing from memory
running out, which both raise a bare MemoryError on Python 3.11.

The parser gives up past a fixed number of nested rule calls (6,000 on 3.11 and 3.12), whatever
memory there is: such a file is one the interpreter cannot run (SC004). A flat file that merely
exhausts memory is valid Python that was not checked (SC005). Telling them apart takes an upper
bound of the parser's depth, from tokens: each construct that nests costs at most what it was
measured to cost on CPython 3.11 (a bracket 31 rule calls, an indented block 8, a prefix
operator, `**`, `lambda` or a conditional expression 2), while it is open; the rest (names,
commas, binary operators, which the grammar loops over) costs nothing.
"""

from __future__ import annotations

import io
import keyword
import tokenize
from collections.abc import Iterator
from typing import Final

PARSER_LIMIT: Final = 6_000
"""Nested rule calls CPython's parser makes before it gives up (MAXSTACK in Parser/parser.c)."""

_BASE: Final = 40  # a statement's own rules, from `file` to the first expression
_BRACKET: Final = 32
_BLOCK: Final = 8
_NESTING: Final = 2
_OPENING: Final = frozenset("([{")
_CLOSING: Final = frozenset(")]}")
# What ends the element being parsed at its bracket level (outside a lambda's parameters).
_SEPARATORS: Final = frozenset({",", "=", ":", ";"})
# Each nesting operator stays open until an operator of lower precedence follows an operand:
# a prefix `-` or `**` until any binary operator, `not` until `and`/`or`, a lambda or a
# conditional expression until the element ends.
_TIGHT, _NOT, _LOOSE = 0, 1, 2
_TIGHT_PREFIX: Final = frozenset({"-", "+", "~", "await", "**"})
_BOOLEAN: Final = frozenset({"and", "or"})


def could_overflow_parser(text: str) -> bool:
    """Whether some statement of `text` may nest past what CPython's parser accepts (with a
    wide margin: ordinary code, even generated tables, stays far below)."""
    return parser_depth_bound(text) >= PARSER_LIMIT // 3


def parser_depth_bound(text: str) -> int:
    """At least the depth CPython's parser reaches on `text` (in nested rule calls), as far as
    the text tokenizes; 0 when measuring it runs out of memory too."""
    deepest = 0
    blocks = 0
    # Per open bracket (and one for the statement): the nesting operators open in the element
    # being parsed, by precedence, and the lambdas whose parameters are being read.
    levels = [[0, 0, 0]]
    lambdas = [0]
    total = 0
    after_operand = False
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            kind, string = token.type, token.string
            operand = False
            level = levels[-1]
            if kind == tokenize.INDENT:
                blocks += 1
            elif kind == tokenize.DEDENT:
                blocks -= 1
            elif kind == tokenize.NEWLINE:
                levels, lambdas, total = [[0, 0, 0]], [0], 0
            elif kind == tokenize.OP and string in _OPENING:
                levels.append([0, 0, 0])
                lambdas.append(0)
            elif kind == tokenize.OP and string in _CLOSING:
                if len(levels) > 1:
                    total -= sum(levels.pop())
                    lambdas.pop()
                operand = True
            elif string == ":" and lambdas[-1]:
                lambdas[-1] -= 1
            elif kind == tokenize.OP and string in _SEPARATORS:
                if not lambdas[-1]:
                    total -= sum(level)
                    level[:] = [0, 0, 0]
            elif kind == tokenize.OP or (kind == tokenize.NAME and keyword.iskeyword(string)):
                if string == "lambda":
                    lambdas[-1] += 1
                if string == "**" or not after_operand:
                    tier = _TIGHT if string in _TIGHT_PREFIX else _NOT if string == "not" else _LOOSE
                    level[tier] += 1
                    total += 1
                elif string in ("if", "else"):
                    level[_LOOSE] += 1
                    total += 1
                else:  # a binary operator closes what binds tighter
                    closed = level[_TIGHT] + (level[_NOT] if string in _BOOLEAN else 0)
                    level[_TIGHT] = 0
                    if string in _BOOLEAN:
                        level[_NOT] = 0
                    total -= closed
            else:
                operand = kind in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING)
            depth = _BASE + _BLOCK * blocks + _BRACKET * (len(levels) - 1) + _NESTING * total
            if kind == tokenize.STRING and string.lstrip("rRbBuU")[:1] in ("f", "F"):
                # Python 3.11 reads an f-string as one token and parses its fields on their own.
                depth += max(map(parser_depth_bound, _fields(string)), default=0)
            deepest = max(deepest, depth)
            after_operand = operand
    except (tokenize.TokenError, SyntaxError):
        pass  # CPython's own tokenizer stops there as well: what came before is measured
    except MemoryError:
        return 0
    return deepest


def _fields(string: str) -> Iterator[str]:
    """The replacement fields of an f-string token (`{x + 1:>3}`: `x + 1:>3`), nested braces
    (a dict, a nested f-string) kept inside their field."""
    depth = 0
    start = 0
    index = 0
    while index < len(string):
        char = string[index]
        if depth == 0 and string.startswith(("{{", "}}"), index):
            index += 2
            continue
        if char == "{":
            if depth == 0:
                start = index + 1
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                yield string[start:index]
        index += 1
