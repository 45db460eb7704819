"""Where libcst's nodes stand in their module's text: the spans `PositionProvider` gives, cheaper.

`MetadataWrapper(module).resolve(PositionProvider)` costs about as much as the analysis that
needs it: a codegen of the whole tree that builds a context manager (a generator) and two frozen
dataclasses per node and hashes each node through a Python `__hash__`, and then, for the
providers it would batch (none here), an empty visit of the whole tree. The pass here is that
same codegen with the bookkeeping kept to plain tuples keyed by `id`, and nothing after it.
`tests/test_positions.py` holds it equal to `PositionProvider` on the fixtures and on jax's own
sources: libcst's codegen decides the spans, this module only records them.
"""

from __future__ import annotations

import re
from types import TracebackType

import libcst as cst
from libcst._nodes.internal import CodegenState

from shapecheck.diagnostic import Span

_NEWLINE = re.compile(r"\r\n?|\n")

Place = tuple[int, int, int, int]
"""(line, column, end line, end column): 1-based lines, 0-based columns, as in `Span`."""


def positions(module: cst.Module) -> dict[int, Place]:
    """The place of every node of `module` that codegen visits, by `id(node)`.

    The module must stay alive while the ids are read (the caller holds it).
    """
    state = _PositionState(module.default_indent, module.default_newline)
    module._codegen(state)
    return state.found


def span_of(found: dict[int, Place], node: cst.CSTNode) -> Span | None:
    place = found.get(id(node))
    return Span(*place) if place is not None else None


class _PositionState(CodegenState):
    """libcst's codegen state, tracking where the text it would print has got to."""

    __slots__ = ("column", "found", "line", "starts")

    def __init__(self, default_indent: str, default_newline: str) -> None:
        super().__init__(default_indent, default_newline)
        self.line = 1
        self.column = 0
        self.starts: list[tuple[int, int]] = []
        self.found: dict[int, Place] = {}

    def add_token(self, value: str) -> None:
        # Module's codegen reads `tokens` only to ask whether anything was printed.
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            segments = _NEWLINE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.starts.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        # Whitespace included, for the nodes that record no syntactic position of their own
        # (that one, recorded while the node printed, wins: as in PositionProvider).
        line, column = self.starts.pop()
        key = id(node)
        if key not in self.found:
            self.found[key] = (line, column, self.line, self.column)

    # libcst declares a generator-based context manager; any context manager does.
    def record_syntactic_position(  # type: ignore[override]
            self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
            end_node: cst.CSTNode | None = None) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


class _Syntactic:
    """The span of what a node prints inside this block, optionally from its first child's
    start (`start_node`) to its last child's end (`end_node`)."""

    __slots__ = ("column", "end_node", "line", "node", "start_node", "state")

    def __init__(self, state: _PositionState, node: cst.CSTNode, start_node: cst.CSTNode | None,
                 end_node: cst.CSTNode | None) -> None:
        self.state = state
        self.node = node
        self.start_node = start_node
        self.end_node = end_node
        self.line = state.line
        self.column = state.column

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        state = self.state
        found = state.found
        line, column = (found[id(self.start_node)][:2] if self.start_node is not None
                        else (self.line, self.column))
        end_line, end_column = (found[id(self.end_node)][2:] if self.end_node is not None
                                else (state.line, state.column))
        found[id(self.node)] = (line, column, end_line, end_column)
