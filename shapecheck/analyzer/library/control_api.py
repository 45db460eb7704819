"""Control flow (DESIGN.md section 3c): `lax.scan`, `lax.map`, `fori_loop`, `while_loop`, `cond`,
`switch` and `associative_scan`.

Each body or branch is analysed for the values JAX traces it with: the carry (Python numbers as
the weak scalars JAX makes of them, never constants to fold), one slice of a scan's `xs`, the
operands of a branch. A carry the body returns with another structure, shape or dtype is SC103
at the body's `return` (JAX raises a TypeError at the call); branches that return different
types are SC103 at the `cond`/`switch` call. What is unknown is never reported.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from shapecheck.algebra import control_flow, recurrent, replication
from shapecheck.algebra.control_flow import BOOL_KIND, INDEX_KINDS, PRED_KINDS, Node, Tree
from shapecheck.algebra.outcome import Problem, normalize_axis, out_of_range
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import code_of, passed, refused
from shapecheck.analyzer.library.pytrees import leaf, map_leaves, rebuild, tree
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import LAX
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Dict,
    Function,
    Jitted,
    Partial,
    Seq,
    Value,
    as_dim,
    as_int,
)
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.types import ArrayType, scalar

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_Arguments: TypeAlias = Callable[[Value], list[Value]]
"""A body's arguments for a carry: `[carry, x]` for scan, `[i, carry]` for fori_loop."""
_CarryOf: TypeAlias = Callable[[Value], Value]
"""The carry in what a body returns: all of it, or scan's first of a pair."""


# ---------------------------------------------------------------- loops

@REGISTRY.handles(f"{LAX}.scan", takes_functions=True,
                  signature="f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False")
def scan(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`(carry, ys)`: the carry keeps its type, each y is stacked along a new leading dim."""
    if call.opaque:
        return None
    given = passed(call, "length")
    x, length = _sliced(interp, call, call.arg("xs") if call.given("xs") else Const(None),
                        as_dim(call.arg("length")) if given else None, given)
    body = _Body(call.arg("f"), carry_at=0)
    carry, out = _loop(interp, call, ctx, scope, "lax.scan", body, call.arg("init"), lambda c: [c, x], _first)
    if isinstance(out, Seq) and len(out.items) == 2:
        return Seq((carry, map_leaves(out.items[1], lambda y: control_flow.stacked(y, length))))
    returned = tree(out)
    if returned is not None:
        _report_at_return(interp, call, body, [Problem(
            Code.ANNOTATION_MISMATCH,
            f"lax.scan's body must return a pair (carry, y), but returns {control_flow.describe(returned)}")])
    return Seq((carry, None))


def _first(out: Value) -> Value:
    return out.items[0] if isinstance(out, Seq) and len(out.items) == 2 else None


def _second(out: Value) -> Value:
    return out.items[1] if isinstance(out, Seq) and len(out.items) == 2 else None


@REGISTRY.handles(f"{LAX}.map", takes_functions=True, signature="f, xs, *, batch_size=None")
def lax_map(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`f` over the slices of `xs`, its results stacked."""
    if call.opaque or not call.given("xs"):
        return None
    x, length = _sliced(interp, call, call.arg("xs"), None, False)
    result = interp.call(call.arg("f"), CallArgs(call.node, [x], [call.arg_node("xs")]), ctx, scope)
    return map_leaves(result, lambda y: control_flow.stacked(y, length))


@REGISTRY.handles(f"{LAX}.fori_loop", takes_functions=True, signature="lower, upper, body_fun, init_val, *, unroll=None")
def fori_loop(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The carry, with its type: `body_fun(i, val)` must return `val`'s."""
    if call.opaque:
        return None
    bounds = [leaf(call.arg(name)) for name in ("lower", "upper")]
    # Python ints make a weak int32 counter (int64 with x64); other bounds, their own dtype.
    weak = all(bound is not None and bound.weak and bound.dtype == "i64" for bound in bounds)
    index = scalar("i64") if weak else ArrayType(None, ())
    body = _Body(call.arg("body_fun"), carry_at=1)
    carry, _ = _loop(interp, call, ctx, scope, "lax.fori_loop", body, call.arg("init_val"), lambda c: [index, c])
    return carry


@REGISTRY.handles(f"{LAX}.while_loop", takes_functions=True, signature="cond_fun, body_fun, init_val")
def while_loop(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The carry, with its type; `cond_fun(val)` must return a bool scalar."""
    if call.opaque:
        return None
    init = call.arg("init_val")
    condition = _Body(call.arg("cond_fun"), carry_at=0)
    predicate = interp.call(condition.fun, CallArgs(call.node, [_traced(init)], [call.arg_node("init_val")]),
                            ctx, scope)
    problem = _scalar_problem("the value lax.while_loop's cond_fun returns", predicate, BOOL_KIND, interp.x64)
    if problem is not None:
        _report_at_return(interp, call, condition, [problem])
    body = _Body(call.arg("body_fun"), carry_at=0)
    carry, _ = _loop(interp, call, ctx, scope, "lax.while_loop", body, init, lambda c: [c])
    return carry


def _loop(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope, api: str, body: _Body,
          init: Value, arguments: _Arguments, carry_of: _CarryOf = lambda out: out) -> tuple[Value, Value]:
    """Analyse a loop's body for the carry `init` as JAX traces it, report a carry that leaves it
    changed (SC103), and return the carry after the loop and what the body returned."""
    carry, out, _ = _checked_loop(interp, call, ctx, scope, api, body, init, arguments, carry_of,
                                  call.arg_node("init" if api == "lax.scan" else "init_val"))
    return carry, out


def scan_cell(interp: Interpreter, call: CallArgs, ctx: Context, api: str, cell: Value, init: Value,
              steps: list[Value], init_node: ast.AST | None, *, input_first: bool = False,
              advice: str | None = None) -> tuple[Value, Value] | None:
    """A layer's scan (flax's `RNN` and `nn.scan`, haiku's `dynamic_unroll`): `cell(carry, *xs)`
    over the steps, one of which is `steps`, its carry from `init` (written at `init_node`, the
    call where None); where `input_first` (haiku's cores), `cell(*xs, carry)` giving `(output,
    carry)`. The carry after the scan and one step's output; None where the cell changes its
    carry (SC103, as `lax.scan` reports it, with `advice` on what to do) or does not return a pair."""
    body = _Body(cell, carry_at=len(steps) if input_first else 0)
    arguments: _Arguments = (lambda c: [*steps, c]) if input_first else (lambda c: [c, *steps])
    carry, out, held = _checked_loop(interp, call, ctx, interp.scope, api, body, init, arguments,
                                     _second if input_first else _first, init_node, advice)
    if not held or not (isinstance(out, Seq) and len(out.items) == 2):
        return None
    return carry, out.items[0 if input_first else 1]


def carried_loop(interp: Interpreter, call: CallArgs, ctx: Context, api: str, fun: Value, init: Value,
                 arguments: _Arguments, carry_at: int, carry_of: _CarryOf,
                 init_node: ast.AST | None) -> tuple[Value, Value] | None:
    """A library's loop whose carry may be any argument of `fun` and any part of what it returns
    (flax.nnx's scan): `arguments(carry)` holds the carry at `carry_at`, `carry_of(out)` finds
    it in what `fun` returns. The carry after the loop and what `fun` returned; None where `fun`
    changes its carry (SC103, reported as `lax.scan` reports it)."""
    carry, out, held = _checked_loop(interp, call, ctx, interp.scope, api, _Body(fun, carry_at), init, arguments,
                                     carry_of, init_node)
    return (carry, out) if held else None


def report_at_return(interp: Interpreter, call: CallArgs, fun: Value, problems: list[Problem]) -> None:
    """Report what is wrong with the value `fun` returns at its `return` (at the call where that
    is another module's, or unknown)."""
    _report_at_return(interp, call, _Body(fun, carry_at=0), problems)


def sliced_steps(interp: Interpreter, call: CallArgs, xs: Value, axis: int, what: str, expected: str,
                 lengths: list[Dim]) -> tuple[Value, bool]:
    """One step of `xs` for a layer's scan: each leaf without `axis` (its size appended to
    `lengths`); None stays None. False where a leaf has no such axis (SC106, reported: `what`
    scans, `expected` is what it wants)."""
    problems: list[Problem] = []

    def step(value: ArrayType) -> Value:
        if value.rank is None or value.ellipsis is not None:
            return None
        sliced = recurrent.without_time(value, axis + value.rank if axis < 0 else axis, what, expected)
        if isinstance(sliced, Problem):
            problems.append(sliced)
            return None
        lengths.append(sliced[1])
        return sliced[0]

    if xs == Const(None):
        return xs, True
    result = map_leaves(xs, step)
    if problems:
        refused(interp, call, problems[0])
        return None, False
    return result, True


def _checked_loop(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope, api: str, body: _Body,
                  init: Value, arguments: _Arguments, carry_of: _CarryOf,
                  init_node: ast.AST | None, advice: str | None = None) -> tuple[Value, Value, bool]:
    """`_loop`, and whether the carry held its type (False where that was reported)."""
    entered = tree(init)
    carry = rebuild(init, entered)
    promotable = True
    # Each pass is a trace of JAX's: a weak initial carry the body changes in dtype is promoted
    # and traced again, once; a carry the body returns with more named axes (a map's body
    # batches it) goes round once more, as JAX's batching does, so that what the body makes of
    # it is the batched carry's.
    for _ in range(3):
        out = interp.call(body.fun, CallArgs(call.node, arguments(carry), [init_node or call.node]), ctx, scope)
        after = tree(carry_of(out))
        retraced = control_flow.promoted(entered, after, interp.x64) if promotable else entered
        promotable = False
        if retraced != entered:
            entered, carry = retraced, rebuild(carry, retraced)
            continue
        problems = control_flow.carry_problems(api, entered, after, body.carry_name(), interp.x64,
                                               *([advice] if advice is not None else []))
        if problems:
            _report_at_return(interp, call, body, problems)
            return carry, out, False
        if ctx.checked and _report_varying(interp, call, api, body, init_node, entered, after, ctx.checked,
                                           scan_pair=carry_of is _first):
            return rebuild(carry, control_flow.settled(entered, after)), out, False
        settled = control_flow.settled(entered, after)
        carry = rebuild(carry, settled)
        if _named_axes(settled) == _named_axes(entered):
            break
        entered = settled
    return carry, out, True


def _report_varying(interp: Interpreter, call: CallArgs, api: str, body: _Body, init_node: ast.AST | None,
                    entered: Tree, after: Tree, checked: tuple[str, ...], *, scan_pair: bool) -> bool:
    """SC210 for each carry leaf whose varying manual axes the body changes (check_vma): at the
    initial carry's leaf when the body adds axes, at the returned leaf when it removes some.
    True when one was reported."""
    found = replication.varying_mismatches(entered, after, body.carry_name(), checked)
    for mismatch in found:
        if mismatch.gained:
            node, exact = _member(init_node, mismatch.keys)
        else:
            site = body.return_site() if body.single_return() else None
            node, exact = _member(site, ((0,) if scan_pair else ()) + mismatch.keys)
        problem = replication.carry_problem(api, mismatch, checked, exact=exact)
        interp.reporter.problems([problem], node if node is not None else call.node, fallback=call.node)
    return bool(found)


def _member(node: ast.AST | None, keys: tuple[str | int, ...]) -> tuple[ast.AST | None, bool]:
    """The literal that writes the pytree member at `keys` inside `node`, and whether it was found
    (else `node`, or None when there is none)."""
    for key in keys:
        if isinstance(node, ast.Tuple | ast.List) and isinstance(key, int) and key < len(node.elts) \
                and not any(isinstance(item, ast.Starred) for item in node.elts):
            node = node.elts[key]
        elif isinstance(node, ast.Dict) and None not in node.keys and key in [
                k.value for k in node.keys if isinstance(k, ast.Constant)]:
            node = node.values[[k.value if isinstance(k, ast.Constant) else None for k in node.keys].index(key)]
        else:
            return node, False
    return node, node is not None


def _sliced(interp: Interpreter, call: CallArgs, xs: Value, length: Dim, length_given: bool) -> tuple[Value, Dim]:
    """One slice of `xs` (each leaf without its leading axis) and the number of slices, checked
    across the leaves and against `length=` (SC102), and each leaf for a leading axis (SC106)."""
    api = f"lax.{call.short_name}"
    leading: list[tuple[str, Dim]] = []
    for path, item in control_flow.leaves(tree(xs), "xs"):
        if isinstance(item, ArrayType):
            problem = control_flow.leading_problem(api, path, item)
            if problem is not None:
                interp.reporter.add(call.arg_node("xs"), problem.code, problem.message)
            leading.append((path, control_flow.sliced(item)[1]))
    size, problems = control_flow.scan_length(api, leading, length, length_given)
    for problem in problems:
        where = call.arg_node("length") if problem.operands == (1,) else call.arg_node("xs")
        interp.reporter.add(where, problem.code, problem.message)
    return map_leaves(xs, lambda value: control_flow.sliced(value)[0]), size


# ---------------------------------------------------------------- branches

@REGISTRY.handles(f"{LAX}.cond", takes_functions=True,
                  signature="pred, true_fun, false_fun, *operands, operand=_no_operand_sentinel")
def cond(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """What both branches return; they must agree (and `pred` be a scalar)."""
    if call.opaque:
        return None
    operands = [call.arg("operand")] if call.given("operand") else call.rest()
    nodes = [call.arg_node("operand")] if call.given("operand") else call.arg_nodes[3:]
    true_fun, false_fun = call.arg("true_fun"), call.arg("false_fun")
    branches = [(true_fun, operands, nodes), (false_fun, operands, nodes)]
    if _not_callable(true_fun) and len(operands) == 2 and not _not_callable(false_fun):
        # The deprecated form `cond(pred, true_operand, true_fun, false_operand, false_fun)`.
        branches = [(false_fun, [true_fun], [call.arg_node("true_fun")]), (operands[1], [operands[0]], nodes[:1])]
    elif _not_callable(true_fun) or _not_callable(false_fun):
        return None  # JAX refuses it before any branch runs
    _check_scalar(interp, call, "pred", "lax.cond's pred", PRED_KINDS)
    return _branches(interp, call, ctx, scope, "lax.cond", ("true_fun", "false_fun"), branches)


@REGISTRY.handles(f"{LAX}.switch", takes_functions=True,
                  signature="index, branches, *operands, operand=_no_operand_sentinel")
def switch(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """What every branch returns; they must agree (and `index` be an integer scalar)."""
    if call.opaque:
        return None
    _check_scalar(interp, call, "index", "lax.switch's index", INDEX_KINDS)
    functions = call.arg("branches")
    if not isinstance(functions, Seq) or not functions.items:
        return None
    operands = [call.arg("operand")] if call.given("operand") else call.rest()
    nodes = [call.arg_node("operand")] if call.given("operand") else call.arg_nodes[2:]
    if len(functions.items) == 1:  # JAX calls a lone branch as it is
        return interp.call(functions.items[0], CallArgs(call.node, list(operands), list(nodes)), ctx, scope)
    names = tuple(f"branch {index}" for index in range(len(functions.items)))
    return _branches(interp, call, ctx, scope, "lax.switch", names,
                     [(function, operands, nodes) for function in functions.items])


def _branches(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope, api: str, names: tuple[str, ...],
              branches: list[tuple[Value, list[Value], list[ast.AST]]]) -> Value:
    """Analyse each branch for its operands (as JAX traces them); report the first branch whose
    output differs from the first's (JAX compares each with branch 0), and return what is known
    of the output."""
    results = [interp.call(function, CallArgs(call.node, [_traced(v) for v in operands], list(nodes)), ctx, scope)
               for function, operands, nodes in branches]
    first = tree(results[0])
    common: Tree = first
    for name, result in zip(names[1:], results[1:], strict=True):
        problems = control_flow.branch_problems(api, (names[0], name), first, tree(result), interp.x64)
        if problems:
            interp.reporter.problems(problems, call.node)
            return rebuild(results[0], first)
        common = control_flow.settled(common, tree(result))
    if ctx.checked:
        _report_branch_varying(interp, call, api, names, [function for function, _, _ in branches],
                               [tree(result) for result in results], ctx.checked)
    return rebuild(results[0], common)


def _report_branch_varying(interp: Interpreter, call: CallArgs, api: str, names: tuple[str, ...],
                           functions: list[Value], outputs: list[Tree], checked: tuple[str, ...]) -> None:
    """SC210 at each branch whose output varies over fewer manual axes than another's (check_vma),
    with the axes that make it agree with every branch."""
    for index, output in enumerate(outputs):
        missing: dict[tuple[str | int, ...], tuple[list[str], replication.VaryingMismatch, str]] = {}
        for other, other_output in enumerate(outputs):
            if other == index:
                continue
            for mismatch in replication.varying_mismatches(other_output, output, "output", checked):
                axes, _, _ = missing.setdefault(mismatch.keys, ([], mismatch, names[other]))
                axes.extend(axis for axis in mismatch.lost if axis not in axes)
        body = _Body(functions[index], carry_at=0)
        site = body.return_site() if body.single_return() else None
        for keys, (axes, mismatch, partner) in missing.items():
            if not axes:
                continue
            node, exact = _member(site, keys)
            problem = replication.branch_problem(api, (partner, names[index]), mismatch,
                                                 replication.ordered(axes, checked), checked, exact=exact)
            interp.reporter.problems([problem], node if node is not None else call.node, fallback=call.node)


def _check_scalar(interp: Interpreter, call: CallArgs, parameter: str, what: str, kinds: frozenset[str]) -> None:
    problem = _scalar_problem(f"{what} `{code_of(call.arg_node(parameter))}`", call.arg(parameter), kinds, interp.x64)
    if problem is not None:
        interp.reporter.add(call.arg_node(parameter), problem.code, problem.message)


def _scalar_problem(what: str, value: Value, kinds: frozenset[str], x64: bool | None) -> Problem | None:
    shape = tree(value)
    if isinstance(shape, Node):
        return Problem(Code.ANNOTATION_MISMATCH, f"{what} must be a scalar, but is {shape.describe()}")
    return control_flow.scalar_problem(what, shape, kinds, x64) if shape is not None else None


# ---------------------------------------------------------------- bodies

class _Body:
    """A function a loop calls, and what messages and reports need of it: the name of its carry
    parameter, and the `return` whose value JAX checks."""

    __slots__ = ("carry_at", "fun")

    def __init__(self, fun: Value, carry_at: int) -> None:
        self.fun = fun
        self.carry_at = carry_at  # the carry's position among the call's arguments

    def function(self) -> tuple[Function | None, int]:
        """The program's function the call runs, and how many arguments `partial` bound first."""
        fun, bound = self.fun, 0
        while isinstance(fun, Partial | Jitted):
            if isinstance(fun, Partial):
                bound += len(fun.args)
            fun = fun.func if isinstance(fun, Partial) else fun.fun
        return (fun, bound) if isinstance(fun, Function) else (None, 0)

    def carry_name(self) -> str:
        """The carry parameter's name, as JAX's message names it (`carry` where unknown)."""
        function, bound = self.function()
        if function is None:
            return "carry"
        params = [*function.node.args.posonlyargs, *function.node.args.args]
        index = bound + self.carry_at
        return params[index].arg if index < len(params) else "carry"

    def single_return(self) -> bool:
        """Whether the function returns one value in one place (a lambda, or a def with one
        `return`): casting that value casts everything it returns."""
        function, _ = self.function()
        if function is None:
            return False
        if isinstance(function.node, ast.Lambda):
            return True
        returns = [node for node in _own_nodes(function.node) if isinstance(node, ast.Return)]
        return len(returns) == 1

    def return_site(self) -> ast.AST | None:
        """The value the body returns: a lambda's body, a def's last `return` with a value."""
        function, _ = self.function()
        if function is None:
            return None
        if isinstance(function.node, ast.Lambda):
            return function.node.body
        last: ast.Return | None = None
        pending: list[ast.AST] = list(function.node.body)
        while pending:
            node = pending.pop()
            if isinstance(node, ast.Return) and node.value is not None:
                if last is None or (node.lineno, node.col_offset) > (last.lineno, last.col_offset):
                    last = node
            elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                pending.extend(ast.iter_child_nodes(node))
        return last.value if last is not None else None


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body, not those of functions or classes defined inside it."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = list(getattr(function, "body", []))
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            pending.extend(ast.iter_child_nodes(node))
    return found


def _report_at_return(interp: Interpreter, call: CallArgs, body: _Body, problems: list[Problem]) -> None:
    """Report at the body's return (at the call when that is another module's, or unknown)."""
    site = body.return_site()
    interp.reporter.problems(problems, site if site is not None else call.node, fallback=call.node)


def _traced(value: Value) -> Value:
    """`value` as JAX hands it to a body: Python numbers become weak scalars (a traced value, not
    a constant the checker could fold into a branch taken)."""
    return rebuild(value, tree(value))


def _not_callable(value: Value) -> bool:
    return isinstance(value, ArrayType | Const | Seq | Dict)


def _named_axes(shape: Tree) -> tuple[frozenset[str] | None, ...]:
    return tuple(frozenset(name for name, _ in item.named) if isinstance(item, ArrayType) else None
                 for _, item in control_flow.leaves(shape, ""))



@REGISTRY.handles(f"{LAX}.associative_scan", takes_functions=True, signature="fn, elems, reverse=False, axis=0")
def associative_scan(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The prefix combinations of `elems` along `axis`: its own structure and shapes. Every leaf
    has the axis, of one length (SC106, SC107); `fn` is analysed on chunks of them, of a length
    not known, which is what it is called with."""
    elems = call.arg("elems")
    axis = as_int(call.arg("axis")) if call.given("axis") else 0
    leaves = _leaves(elems)
    if axis is None or leaves is None or not leaves or any(value.ellipsis is not None for value in leaves):
        return None
    problem: Problem | None = None
    lengths: list[Dim] = []
    # JAX reads a negative axis against the first leaf's rank, and that dim of every leaf.
    place = normalize_axis(axis, len(leaves[0].dims))
    for value in leaves:
        if place is None or place >= len(value.dims):
            problem = out_of_range(axis, len(value.dims), "lax.associative_scan's elems")
            break
        lengths.append(value.dims[place])
    axis = place if place is not None else axis
    known = [length for length in lengths if isinstance(length, int)]
    if problem is None and len(set(known)) > 1:
        problem = Problem(Code.SIZE_ARGUMENT_MISMATCH, f"lax.associative_scan's elems have lengths "
                          f"{', '.join(str(length) for length in known)} along axis {axis}: the arrays scanned "
                          "together have one length", sizes=tuple(known))
    if problem is not None:
        return refused(interp, call, problem)
    chunk = _chunked(elems, axis)
    node = call.arg_node("elems")
    interp.call(call.arg("fn"), CallArgs(call.node, [chunk, chunk], [node, node]), ctx, scope)
    return elems


def _leaves(value: Value) -> list[ArrayType] | None:
    """The arrays of a tuple, list or dict tree (None where a leaf is not an array)."""
    if isinstance(value, ArrayType):
        return [value]
    if isinstance(value, Seq | Dict):
        items = value.items if isinstance(value, Seq) else tuple(item for _, item in value.items)
        found: list[ArrayType] = []
        for item in items:
            inner = _leaves(item)
            if inner is None:
                return None
            found.extend(inner)
        return found
    return None


def _chunked(value: Value, axis: int) -> Value:
    """`value` with each leaf's `axis` of a length not known."""
    if isinstance(value, ArrayType):
        place = normalize_axis(axis, len(value.dims))
        if place is None:
            return value
        return value.with_dims((*value.dims[:place], None, *value.dims[place + 1:]))
    if isinstance(value, Seq):
        return Seq(tuple(_chunked(item, axis) for item in value.items), value.is_list)
    if isinstance(value, Dict):
        return Dict(tuple((key, _chunked(item, axis)) for key, item in value.items))
    return value
