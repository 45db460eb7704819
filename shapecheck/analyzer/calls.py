"""What a library handler receives: a call's evaluated arguments, and the handler's type.

Its own module, apart from the interpreter, so that the library modules that implement the
handlers need the interpreter only as a type: the interpreter calls into the library (map
calls), and the library would otherwise import the interpreter back, closing a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shapecheck.analyzer.context import Context
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Value
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.algebra.indexing import IndexItem
    from shapecheck.analyzer.interpreter import Interpreter


@dataclass(frozen=True, slots=True)
class Signature:
    """An API's declared parameters, as its documentation writes them: `"a, axis=None, *, keepdims=False"`.

    Handlers name arguments by parameter and the signature says where each may be passed, so
    a position is written once, where the API is registered, and a keyword-only parameter is
    never read from a position (`jnp.max(x, 0, None, True)`: index 3 is keepdims for max, out
    for sum). Defaults are documentation only: an absent argument reads as unknown.
    """

    positional: tuple[str, ...] = ()  # in order; the first `positional_only` of them by position only
    keyword_only: tuple[str, ...] = ()
    positional_only: int = 0
    variadic: str | None = None  # `*arrays`: every position after `positional`
    var_keyword: str | None = None  # `**keywords`: every keyword no other parameter takes
    places: dict[str, tuple[int | None, bool]] = field(default_factory=dict, compare=False, hash=False, repr=False)
    """Each parameter's position (None: none) and whether it may be passed by keyword, read
    once: handlers ask it for every argument of every call."""

    def __post_init__(self) -> None:
        places: dict[str, tuple[int | None, bool]] = {name: (None, True) for name in self.keyword_only}
        places.update({name: (None, False) for name in (self.variadic, self.var_keyword) if name is not None})
        places.update({name: (index, index >= self.positional_only) for index, name in enumerate(self.positional)})
        object.__setattr__(self, "places", places)

    @classmethod
    def parse(cls, text: str) -> Signature:
        positional: list[str] = []
        keyword_only: list[str] = []
        positional_only = 0
        variadic: str | None = None
        var_keyword: str | None = None
        star = False
        for part in _parameters(text):
            name = part.partition("=")[0].strip()
            if not name:
                continue
            if name == "/":
                positional_only = len(positional)
            elif name == "*":
                star = True
            elif name.startswith("**"):
                var_keyword = name[2:]
            elif name.startswith("*"):
                variadic, star = name[1:], True
            elif star:
                keyword_only.append(name)
            else:
                positional.append(name)
        return cls(tuple(positional), tuple(keyword_only), positional_only, variadic, var_keyword)

    def position(self, name: str) -> int | None:
        return self.places.get(name, (None, False))[0]

    def by_keyword(self, name: str) -> bool:
        return self.places.get(name, (None, False))[1]

    def accepts(self, name: str) -> bool:
        return name in self.places


def _parameters(text: str) -> list[str]:
    """`text` split at its top-level commas: a default may be a tuple (`pos_contract=((), ())`)."""
    if "(" not in text and "[" not in text and "{" not in text:  # most: read at every start-up
        return [part.strip() for part in text.split(",")]
    parts: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part.strip() for part in parts]


@dataclass(slots=True, init=False)
class CallArgs:
    """A call's evaluated arguments with the nodes they came from.

    A library handler reads them by parameter name, through the signature its registration
    declares (`call.arg("axis")`); only the calls of the program's own functions, and of the
    functions a map wraps, are bound by position (`invocation`). `arg_nodes` holds one node
    per positional argument (the whole call where a transform built the call without one).
    """

    node: ast.AST
    args: list[Value] = field(default_factory=list)
    arg_nodes: list[ast.AST] = field(default_factory=list)
    kwargs: dict[str, Value] = field(default_factory=dict)
    kwarg_nodes: dict[str, ast.AST] = field(default_factory=dict)
    raw_args: list[ast.expr] = field(default_factory=list)
    raw_kwargs: dict[str, ast.expr] = field(default_factory=dict)
    opaque: bool = False  # *args or **kwargs the interpreter could not expand
    name: str = ""  # the canonical name of the API called (`jax.numpy.sum`, `method:sum`)
    written: str = ""  # the name as imported, before canonicalisation (`numpy.sum`)
    signature: Signature | None = None  # the called API's, set by its registration
    indexed: ArrayType | None = None  # `x.at[idx].set(v)`: the type of `x[idx]`, where known
    index: tuple[IndexItem, ...] | None = field(default=None, init=False)  # `idx` of `x[idx]`, `x.at[idx]`

    def __init__(self, node: ast.AST, args: list[Value] | None = None, arg_nodes: list[ast.AST] | None = None,
                 kwargs: dict[str, Value] | None = None, kwarg_nodes: dict[str, ast.AST] | None = None,
                 raw_args: list[ast.expr] | None = None, raw_kwargs: dict[str, ast.expr] | None = None,
                 opaque: bool = False, name: str = "", written: str = "", signature: Signature | None = None,
                 indexed: ArrayType | None = None) -> None:
        # Written out rather than generated with a __post_init__: one is built for every call
        # the interpreter evaluates.
        self.node = node
        self.args = [] if args is None else args
        arg_nodes = [] if arg_nodes is None else arg_nodes
        missing = len(self.args) - len(arg_nodes)
        self.arg_nodes = [*arg_nodes, *[node] * missing] if missing > 0 else arg_nodes
        self.kwargs = {} if kwargs is None else kwargs
        self.kwarg_nodes = {} if kwarg_nodes is None else kwarg_nodes
        self.raw_args = [] if raw_args is None else raw_args
        self.raw_kwargs = {} if raw_kwargs is None else raw_kwargs
        self.opaque = opaque
        self.name = name
        self.written = written
        self.signature = signature
        self.indexed = indexed
        self.index = None

    # -- arguments by parameter name, through the API's declared signature

    def _where(self, name: str) -> int | str | None:
        """Where the argument for parameter `name` was passed: a position, a keyword, or nowhere."""
        signature = self.signature
        assert signature is not None, f"{self.name} is registered without a signature"
        place = signature.places.get(name)
        assert place is not None, f"{self.name} has no parameter {name!r}"
        index, keyword = place
        if index is not None and index < len(self.args):
            return index
        if keyword and name in self.kwargs:
            return name
        return None

    def arg(self, name: str) -> Value:
        """The argument bound to parameter `name`; None (unknown) when it was not passed."""
        where = self._where(name)
        if isinstance(where, int):
            return self.args[where]
        return self.kwargs[where] if where is not None else None

    def given(self, name: str) -> bool:
        return self._where(name) is not None

    def arg_node(self, name: str) -> ast.AST:
        """Where the argument for `name` was written (the whole call when it was not)."""
        where = self._where(name)
        if isinstance(where, int):
            return self.arg_nodes[where] if where < len(self.arg_nodes) else self.node
        return self.kwarg_nodes.get(where, self.node) if where is not None else self.node

    def arg_expr(self, name: str) -> ast.expr | None:
        where = self._where(name)
        if isinstance(where, int):
            return self.raw_args[where] if where < len(self.raw_args) else None
        return self.raw_kwargs.get(where) if where is not None else None

    def rest(self) -> list[Value]:
        """The arguments a `*variadic` parameter collects."""
        assert self.signature is not None and self.signature.variadic is not None
        return self.args[len(self.signature.positional):]

    def keywords(self) -> dict[str, Value]:
        """The arguments a `**keywords` parameter collects: every keyword no other parameter takes."""
        signature = self.signature
        assert signature is not None and signature.var_keyword is not None
        return {name: value for name, value in self.kwargs.items() if not signature.by_keyword(name)}

    # -- what was called

    @property
    def plain_numpy(self) -> bool:
        """NumPy itself, not jax.numpy: it accepts a few things JAX refuses (axis 0 of a 0-d array)."""
        return self.written == "numpy" or self.written.startswith("numpy.")

    @property
    def short_name(self) -> str:
        return self.name.rpartition(":")[2].rpartition(".")[2]


Handler = Callable[["Interpreter", CallArgs, Context, Scope], Value]
