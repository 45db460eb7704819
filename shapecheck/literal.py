"""A neutral tree of literal syntax: what front ends hand to the annotation and spec parsers.

Front ends (the analyzer over CPython's tree, mypy, run-time subscripts) translate their own
syntax into `Lit` nodes, so one parser serves all of them and nothing is ever evaluated:
anything that is not a plain literal becomes an `OTHER` node carrying only its source text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from types import EllipsisType


class Kind(Enum):
    INT = "int"
    FLOAT = "float"
    STR = "str"
    NONE = "None"
    BOOL = "bool"
    ELLIPSIS = "..."
    TUPLE = "tuple"
    LIST = "list"
    DICT = "dict"
    NAME = "name"  # a bare or dotted name: `jnp.float32`, `P`
    OTHER = "other"  # calls, operators, comprehensions: never evaluated (see `Lit.callee`)


@dataclass(frozen=True, slots=True)
class Lit:
    """One literal node; `origin` is the front end's handle (a syntax node) for spans."""

    kind: Kind
    value: object = None  # int/float/str/bool for scalars, the dotted name for NAME and a call's callee
    items: tuple[Lit, ...] = ()  # elements of TUPLE/LIST, a call's arguments; alternating key, value for DICT
    text: str = ""
    origin: object = field(default=None, compare=False, hash=False, repr=False)

    @property
    def pairs(self) -> list[tuple[Lit, Lit]]:
        """The (key, value) pairs of a DICT node, duplicates kept."""
        return list(zip(self.items[::2], self.items[1::2], strict=True))

    @property
    def callee(self) -> str | None:
        """The dotted name a call such as `P('X', None)` calls, its positional arguments in
        `items`; None for anything else (a call with keywords or `*args` among them).

        A call stays an OTHER node, unknown to every reader but the one of annotation
        shardings, which reads `P(...)` as data: nothing is called."""
        return self.value if self.kind is Kind.OTHER and isinstance(self.value, str) else None

    def describe(self) -> str:
        """The node as the user wrote it, for messages."""
        return self.text or repr(self.value)


def from_value(value: object) -> Lit:
    """The literal tree of a run-time Python value (the `f32[...]` path at run time)."""
    if isinstance(value, bool):
        return Lit(Kind.BOOL, value, text=repr(value))
    if isinstance(value, int):
        return Lit(Kind.INT, value, text=repr(value))
    if isinstance(value, float):
        return Lit(Kind.FLOAT, value, text=repr(value))
    if isinstance(value, str):
        return Lit(Kind.STR, value, text=repr(value))
    if value is None:
        return Lit(Kind.NONE, None, text="None")
    if isinstance(value, EllipsisType):
        return Lit(Kind.ELLIPSIS, text="...")
    # Containers get their text from their items' texts, so messages show `...` as written
    # rather than repr's `Ellipsis`.
    if isinstance(value, tuple | list):
        kind = Kind.TUPLE if isinstance(value, tuple) else Kind.LIST
        items = tuple(from_value(item) for item in value)
        inner = ", ".join(item.text for item in items)
        if kind is Kind.LIST:
            return Lit(kind, items=items, text=f"[{inner}]")
        return Lit(kind, items=items, text=f"({inner},)" if len(items) == 1 else f"({inner})")
    if isinstance(value, dict):
        flat: list[Lit] = []
        for key, item in value.items():
            flat += [from_value(key), from_value(item)]
        pairs = zip(flat[::2], flat[1::2], strict=True)
        return Lit(Kind.DICT, items=tuple(flat),
                   text="{" + ", ".join(f"{k.text}: {v.text}" for k, v in pairs) + "}")
    if _is_partition_spec(value):
        # `jax.sharding.PartitionSpec` (a tuple subclass in older JAX, a class of its own in
        # 0.10) reads as the call that built it, so `f32[(8,), P('X')]` parses the same at run
        # time as in the source; nothing of jax is imported to tell.
        entries = tuple(from_value(entry) for entry in value)  # type: ignore[attr-defined]
        return Lit(Kind.OTHER, "P", items=entries, text=repr(value))
    # Anything else is described, never taken apart: a short repr names it best in a message
    # (`{Ellipsis}` for the set `{..., ...}`), the type name when the repr is long or generic.
    text = repr(value)
    if len(text) > 40 or text.startswith("<"):
        text = type(value).__name__
    return Lit(Kind.OTHER, text=text)


def _is_partition_spec(value: object) -> bool:
    kind = type(value)
    return kind.__name__ in ("PartitionSpec", "P") and kind.__module__.split(".")[0] == "jax"
