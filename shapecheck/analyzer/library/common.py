"""Reading call arguments as shapes, axes and dtypes, and reporting against the right nodes."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, Literal, overload

from shapecheck.algebra.outcome import Outcome, Problem, normalize_axis, out_of_range
from shapecheck.algebra.promotion import Typed, python_scalar
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.values import Const, DType, Qual, Seq, Value, as_dim, as_int, as_str
from shapecheck.analyzer.walk import code
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.dtypes import NUMPY_NAMES
from shapecheck.types import ArrayType, is_invented, scalar

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

DTYPE_ALIASES: Final = NUMPY_NAMES  # numpy's dtype names -> the annotation language's (one table, in dtypes)


def code_of(node: ast.AST | None) -> str:
    if node is None:
        return "?"
    if isinstance(node, ast.keyword):
        node = node.value  # an argument passed by keyword is quoted without its `name=`
    return code(node, 40)


def labels(call: CallArgs, count: int | None = None) -> Sequence[str]:
    """Operand names for messages: the source text of each argument, rendered when read."""
    nodes = call.arg_nodes if count is None else call.arg_nodes[:count]
    return _Labels(tuple(nodes))


class _Labels(Sequence[str]):
    """Rendered only when a message reads one: rendering an operand prints its whole subtree,
    so doing it eagerly at every level of `x + x + ... + x` made analysis quadratic."""

    def __init__(self, nodes: tuple[ast.AST | None, ...]) -> None:
        self._nodes = nodes

    def __len__(self) -> int:
        return len(self._nodes)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return _Labels(self._nodes[index])
        return f"`{code_of(self._nodes[index])}`"


def array(value: Value) -> ArrayType | None:
    """An array-valued argument, with Python numbers as weak scalars (a bool is a strong bool)."""
    if isinstance(value, ArrayType):
        return value
    if isinstance(value, Const) and isinstance(value.value, int | float | complex) and value.value is not None:
        typed = python_scalar(value.value)
        return scalar(typed.dtype, weak=typed.weak)
    return None


def shape(value: Value) -> tuple[Dim, ...] | None:
    """A shape argument: an int or a tuple/list of ints (unknown entries become None)."""
    size = as_dim(value)
    if size is not None:
        return (size,)
    if isinstance(value, Seq):
        return tuple(as_dim(item) for item in value.items)
    return None


def axes(value: Value) -> int | str | tuple[int | str, ...] | bool | None:
    """An axis argument: int, name, or tuple of them. False when it cannot be read."""
    if value is None:
        return False
    if isinstance(value, Const):
        if value.value is None:
            return None
        if isinstance(value.value, int | str) and not isinstance(value.value, bool):
            return value.value
        return False
    if isinstance(value, Seq):
        items: list[int | str] = []
        for item in value.items:
            single = as_int(item)
            name = as_str(item)
            if single is not None:
                items.append(single)
            elif name is not None:
                items.append(name)
            else:
                return False
        return tuple(items)
    return False


def axis_names(value: int | str | tuple[int | str, ...] | bool | None) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple):
        return [a for a in value if isinstance(a, str)]
    return []


def argnums(value: Value) -> tuple[int, ...] | None:
    """An argnums argument (`grad`'s, pmap's static ones): an int or a sequence of ints."""
    number = as_int(value)
    if number is not None:
        return (number,)
    if isinstance(value, Seq):
        numbers = [as_int(item) for item in value.items]
        return None if None in numbers else tuple(n for n in numbers if n is not None)
    return None


def dtype_arg(value: Value) -> str | None:
    if isinstance(value, DType):
        return value.name
    if isinstance(value, Qual):
        return DTYPE_ALIASES.get(value.name.rpartition(".")[2])
    if isinstance(value, Const) and isinstance(value.value, str):
        return DTYPE_ALIASES.get(value.value)
    return None


def requested_dtype(call: CallArgs, parameter: str = "dtype") -> str | Literal[False] | None:
    """A `dtype=` argument: a dtype name, None where it cannot be read (a user's dtype object),
    False when not given (or given as None)."""
    signature = call.signature
    assert signature is not None, f"{call.name} is registered without a signature"
    if not (signature.accepts(parameter) and call.given(parameter)):
        return False
    value = call.arg(parameter)
    if value == Const(None):
        return False
    return dtype_arg(value)  # None for a value the checker cannot read


def dtype_or(call: CallArgs, default: Typed, parameter: str = "dtype") -> str | None:
    """The dtype an API makes: as `dtype=` requests it, else `default` (JAX's; NumPy's differ)."""
    requested = requested_dtype(call, parameter)
    if requested is not False:
        return requested if isinstance(requested, str) else None
    return None if call.plain_numpy else default.dtype


def flag(value: Value, default: bool = False) -> bool | None:
    if value is None:
        return None
    if isinstance(value, Const) and isinstance(value.value, bool):
        return value.value
    if isinstance(value, Const) and value.value is None:
        return default
    return None


def finish(interp: Interpreter, outcome: Outcome, call: CallArgs, operand_nodes: Sequence[ast.AST] = ()) -> ArrayType:
    interp.reporter.problems(outcome.problems, call.node, operand_nodes or call.arg_nodes)
    return outcome.type


def finished(interp: Interpreter, call: CallArgs, outcome: Outcome, operand_nodes: Sequence[ast.AST] = ()) -> Value:
    """`finish`, then the result only where nothing was reported and its rank is known: what
    JAX refuses has no value to go on with (None, unknown)."""
    result = finish(interp, outcome, call, operand_nodes)
    return None if outcome.problems or result.ellipsis is not None else result


def element_nodes(call: CallArgs, name: str) -> list[ast.expr]:
    """The elements of the list or tuple literal written for parameter `name` (none where it is
    not one); a starred element is quoted and reported as what it unpacks (`xs` of `*xs`)."""
    written = call.arg_expr(name)
    if not isinstance(written, ast.Tuple | ast.List):
        return []
    return [element.value if isinstance(element, ast.Starred) else element for element in written.elts]


def element_labels(call: CallArgs, name: str) -> list[str]:
    """`element_nodes` as messages name operands."""
    return [f"`{code_of(node)}`" for node in element_nodes(call, name)]


def reported(interp: Interpreter, call: CallArgs, problem: Problem | None) -> bool:
    """Report `problem`, where there is one, at the call; whether there was."""
    if problem is None:
        return False
    interp.reporter.problems([problem], call.node, call.arg_nodes)
    return True


def refused(interp: Interpreter, call: CallArgs, problem: Problem) -> Value:
    """Report `problem` at the call: what JAX refuses has no value to go on with (None)."""
    reported(interp, call, problem)
    return None


def forwarded(call: CallArgs, args: Sequence[Value]) -> CallArgs:
    """The call's trailing arguments `args` and its `**kwargs`, as a call of the function they
    are for (`jax.grad(f)(x)`, `model.apply(variables, x)`, a layer of a Sequential)."""
    keywords = call.keywords()
    return CallArgs(call.node, list(args), list(call.arg_nodes[len(call.args) - len(args):]), keywords,
                    {name: node for name, node in call.kwarg_nodes.items() if name in keywords})


def passed(call: CallArgs, name: str) -> bool:
    """Whether the call gives parameter `name` a value other than None (`axis=None` is none)."""
    return call.given(name) and call.arg(name) != Const(None)


def axes_within(interp: Interpreter, call: CallArgs, value: ArrayType, what: str, *, unique: bool = False,
                name: str = "axis") -> bool:
    """Whether each axis the call's argument `name` names (an int or a tuple of ints) is one
    of `value`'s, and, where `unique`, names one no other does; SC106 for the first that is
    not. Axes not read, and a rank not known, pass."""
    if not call.given(name) or value.ellipsis is not None:
        return True
    given = axes(call.arg(name))
    seen: set[int] = set()
    for axis in (given,) if isinstance(given, int) and not isinstance(given, bool) else \
            given if isinstance(given, tuple) else ():
        if not isinstance(axis, int):
            continue
        place = normalize_axis(axis, len(value.dims))
        if place is None or (unique and place in seen):
            problem = out_of_range(axis, len(value.dims), f"the argument of {what}") if place is None else \
                Problem(Code.AXIS_OUT_OF_RANGE, f"{what}: axis {axis} names axis {place} again in {given}", axes=(axis,))
            interp.reporter.problems([problem], call.node, call.arg_nodes)
            return False
        seen.add(place)
    return True


def check_bound(interp: Interpreter, names: Sequence[str], call: CallArgs, ctx: Context,
                node: ast.AST, what: str) -> bool:
    """SC202: an axis name used where no enclosing map binds it (only when that is certain).

    Inside a map whose own surroundings are unknown (a function analysed on its own), a map
    further out could bind the name only if some map of the module names it: the name must
    appear in no map, mesh or axis-name constant of the module to be certainly unbound.
    True when something was reported: JAX raises there, and what the value varies over after
    it is unknown (no SC207 follows from it).
    """
    if ctx.bound is None or ctx.any_name:
        return False
    reported = False
    for name in names:
        if name in ctx.bound or (ctx.outer_unknown and name in interp.map_axis_names()):
            continue
        # Unnamed vmaps bind a name no user can write: never shown.
        bound = ", ".join(repr(b) for b in sorted(ctx.bound) if not is_invented(b)) or "none"
        interp.reporter.add(
            node, Code.UNBOUND_AXIS_NAME,
            f"{what} names axis {name!r}, which no enclosing map binds (bound here: {bound})",
            ctx.binders)
        reported = True
    return reported


DimensionNumbers = tuple[tuple[list[int], list[int]], tuple[list[int], list[int]]]
"""`((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`, as lax.dot_general takes them."""


def dimension_numbers(value: Value) -> DimensionNumbers | None:
    """`((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))` as lists of ints."""
    if not isinstance(value, Seq) or len(value.items) != 2:
        return None
    pairs: list[tuple[list[int], list[int]]] = []
    for pair in value.items:
        if not isinstance(pair, Seq) or len(pair.items) != 2:
            return None
        sides: list[list[int]] = []
        for side in pair.items:
            if not isinstance(side, Seq):
                return None
            read = [as_int(item) for item in side.items]
            if any(r is None for r in read):
                return None
            sides.append([r for r in read if r is not None])
        pairs.append((sides[0], sides[1]))
    return pairs[0], pairs[1]
