"""The solvers that run a function of the program: `jax.scipy.optimize.minimize` and
`jax.experimental.ode.odeint`. Each calls the function on what JAX traces it with, to learn
what it returns; their rules are `algebra.solvers`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import control_flow, solvers
from shapecheck.algebra.promotion import default
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import code_of, reported
from shapecheck.analyzer.library.pytrees import map_leaves, rebuild, tree
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Class, Const, Instance, Seq, Value, as_str
from shapecheck.types import ArrayType, scalar

if TYPE_CHECKING:
    from shapecheck.algebra.outcome import Problem
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

OPTIMIZE_RESULTS: Final = "jax.scipy.optimize.OptimizeResults"
_RESULTS: Final = Class(OPTIMIZE_RESULTS, record="namedtuple",
                        fields=("x", "success", "status", "fun", "jac", "hess_inv", "nfev", "njev", "nit"))

# minimize's methods in JAX 0.10.2 (compared lowercased, as it does); whether each keeps an
# inverse Hessian in its results.
_METHODS: Final = {"bfgs": True, "l-bfgs-experimental-do-not-rely-on-this": False}


@REGISTRY.handles(solvers.MINIMIZE, takes_functions=True, signature="fun, x0, args=(), *, method, tol=None, options=None")
def minimize(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`OptimizeResults` for a 1-d x0 of a floating dtype (SC106, SC301), and a fun that returns
    a scalar there (SC103): `x` and `jac` of x0's type, `hess_inv` `(d, d)` (None for L-BFGS)."""
    x0 = call.arg("x0")
    method = as_str(call.arg("method")) if call.given("method") else None
    args = call.arg("args") if call.given("args") else Seq(())
    if call.opaque or not isinstance(x0, ArrayType) or method is None or method.lower() not in _METHODS or (
            not isinstance(args, Seq) or args.is_list):
        return None  # a method JAX does not know, or args not a tuple: its own errors, not of shapes
    label = f"`{code_of(call.arg_node('x0'))}`"
    if reported(interp, call, solvers.minimize_start(x0, label)):
        return None
    written = call.arg_node("args")
    value = interp.call(call.arg("fun"), CallArgs(call.node, [x0, *args.items],
                                                  [call.arg_node("x0"), *[written] * len(args.items)]), ctx, scope)
    if isinstance(value, ArrayType) and _report(interp, call, "fun", solvers.objective_problem(value)):
        return None
    if reported(interp, call, solvers.minimize_rank(x0, label)):
        return None
    vector = x0.with_dtype(x0.dtype)  # traced: a weak x0 is an array by now
    size = x0.dims[0] if x0.ellipsis is None and x0.dims else None
    count = scalar(default("i").dtype, weak=False)
    inverse: Value = ArrayType(x0.dtype, (size, size)) if _METHODS[method.lower()] else Const(None)
    return Instance(_RESULTS, (("x", vector), ("success", scalar("bool_", weak=False)), ("status", count),
                               ("fun", scalar(x0.dtype, weak=False)), ("jac", vector), ("hess_inv", inverse),
                               ("nfev", count), ("njev", count), ("nit", count)))


@REGISTRY.handles(solvers.ODEINT, takes_functions=True,
                  signature="func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=None, hmax=None")
def odeint(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The solution at each time of `t`: y0's structure, each leaf `(len(t), *leaf.shape)`. t is
    a non-empty 1-d float array (SC301, SC106, SC107), y0 floating point (SC301), and `func(y,
    t, *args)` returns as many elements as y0 holds (SC103)."""
    y0, t = call.arg("y0"), call.arg("t")
    state = tree(y0)
    leaves = [leaf for _, leaf in control_flow.leaves(state, "y0")]
    if call.opaque or not isinstance(t, ArrayType) or state is None or not leaves:
        return None  # t a list: JAX reads t.dtype (an AttributeError); y0 unknown, or with no leaves
    known = [leaf for leaf in leaves if isinstance(leaf, ArrayType)]
    label = f"`{code_of(call.arg_node('t'))}`"
    if reported(interp, call, solvers.times_problem(t, label) or solvers.state_problem(
            known, f"`{code_of(call.arg_node('y0'))}`")):
        return None
    moment = ArrayType(t.dtype, ())  # func sees one time, t[0] and those after it
    extra = call.rest()
    out = interp.call(call.arg("func"), CallArgs(call.node, [rebuild(y0, state), moment, *extra],
                                                 [call.arg_node("y0"), call.arg_node("t"),
                                                  *call.arg_nodes[len(call.args) - len(extra):]]), ctx, scope)
    returned = tree(out)
    derivative = [leaf for _, leaf in control_flow.leaves(returned, "")]
    if returned is not None and len(known) == len(leaves) and all(isinstance(leaf, ArrayType) for leaf in derivative):
        problem = solvers.derivative_problem(known, [leaf for leaf in derivative if isinstance(leaf, ArrayType)],
                                             control_flow.describe(returned, interp.x64))
        if _report(interp, call, "func", problem):
            return None
    length = t.dims[0] if t.ellipsis is None else None
    return map_leaves(y0, lambda leaf: solvers.trajectory(leaf, length))


def _report(interp: Interpreter, call: CallArgs, name: str, problem: Problem | None) -> bool:
    """Report `problem` at the function argument `name` (what it returns is at fault); whether
    there was one."""
    if problem is None:
        return False
    interp.reporter.problems([problem], call.arg_node(name), fallback=call.node)
    return True
