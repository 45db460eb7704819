"""Transforms that keep a function's meaning: `functools.partial`, `checkpoint` and friends,
`eval_shape`; and differentiation: `grad`/`value_and_grad`, whose gradients have their
arguments' shapes, the Jacobians (`jacfwd`, `jacrev`, `jacobian`, `hessian`) and `jvp`."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from shapecheck.algebra import autodiff, control_flow
from shapecheck.algebra.axis_mapping import ValueTree
from shapecheck.algebra.control_flow import Tree
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import model_params, pytrees
from shapecheck.analyzer.library.common import argnums, flag, forwarded
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.library.trees import to_value, value_tree
from shapecheck.analyzer.qualnames import PARTIAL
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Function,
    Jitted,
    Partial,
    Qual,
    Seq,
    ShardMap,
    Value,
    Vmap,
    Xmap,
    as_int,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_shape
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


# `partial(jax.pmap, axis_name='i')` carries axis names to the map it builds.
@REGISTRY.handles(PARTIAL, signature="func, /, *args, **keywords", takes_functions=True, binds_names=True)
def partial(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if not call.given("func") or call.opaque:
        return None
    keywords = call.keywords()
    for name, node in call.kwarg_nodes.items():
        # A set of names (`axis_names={'x'}`) is read now, while its text is at hand: the
        # interpreter tracks no sets.
        if name in keywords and isinstance(node, ast.Set):
            names = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(names) == len(node.elts):
                keywords[name] = Seq(tuple(Const(n) for n in names))
    return Partial(call.arg("func"), tuple(call.rest()), tuple(keywords.items()))


_CHECKPOINT_OPTIONS = "prevent_cse=True, policy=None, static_argnums=()"


# checkpointing and friends change how a function runs, never the shapes it computes.
@REGISTRY.handles("jax.checkpoint", "jax.ad_checkpoint.checkpoint",
                  signature=f"fun, *, {_CHECKPOINT_OPTIONS}, static_argnames=()")
@REGISTRY.handles("jax.remat", signature=f"fun, *, {_CHECKPOINT_OPTIONS}")
@REGISTRY.handles("jax.named_call", signature="fun, *, name=None")
@REGISTRY.handles("jax.custom_jvp", "jax.custom_vjp", signature="fun, nondiff_argnums=(), nondiff_argnames=()")
def same_function(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _function(call.arg("fun"))


# Run-time type checkers check what the checker checks statically: the decorated function is
# still the function, called as written (`@jaxtyped(typechecker=beartype)` and `@beartype`,
# and shapecheck's own `@checked`).
@REGISTRY.handles("shapecheck.runtime.checked", "shapecheck.runtime.checked.checked", signature="fun")
@REGISTRY.handles("jaxtyping.jaxtyped", signature="fn=None, *, typechecker=None")
@REGISTRY.handles("beartype.beartype", signature="obj=None, *, conf=None")
@REGISTRY.handles("typeguard.typechecked", signature="target=None, **options")
def type_checked(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    first = call.args[0] if call.args else None
    if first is None or first == Const(None):
        # Called with options only: a decorator still to be applied.
        return Partial(Qual(call.name), (), tuple(call.kwargs.items())) if not call.opaque else None
    return _function(first)


@REGISTRY.handles("functools.wraps", signature="wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES")
def wraps(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _function(call.arg("wrapped"))


def _function(fun: Value) -> Value:
    return fun if isinstance(fun, Function | Partial | Xmap | Vmap | ShardMap | Jitted) else None


# ---------------------------------------------------------------- grad

# `jax.grad(f)` is a partial application of this name (no program can write it), so that
# calling it reaches `grad_call` with the function, the options and the call's arguments.
_GRAD_CALL = "jax.grad()"


@REGISTRY.handles("jax.grad", "jax.value_and_grad", takes_functions=True,
                  signature="fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()")
def grad(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque:
        return None
    numbers = argnums(call.arg("argnums")) if call.given("argnums") else (0,)
    has_aux = flag(call.arg("has_aux"), False) if call.given("has_aux") else False
    if numbers is None or has_aux is None:
        return None
    # An int argnums gives one gradient, a tuple a tuple of them (even of one).
    single = not call.given("argnums") or as_int(call.arg("argnums")) is not None
    # flax.nnx's gradients (which this handler serves too) unpack the function's output into
    # two where it has an aux, as jax.jvp does; JAX's demand a tuple or list of two.
    unpacks = call.name.startswith("flax.nnx.")
    options = (Seq(tuple(Const(n) for n in numbers)), Const(single), Const(has_aux),
               Const(call.short_name == "value_and_grad"), Const(unpacks), Const(call.written or call.name))
    return Partial(Qual(_GRAD_CALL), (call.arg("fun"), *options))


@REGISTRY.handles("equinox.filter_grad", "equinox.filter_value_and_grad", takes_functions=True,
                  signature="fun=None, *, has_aux=False")
def filter_grad(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """equinox's gradients: with respect to the first argument's arrays (a model's), as
    `jax.grad(fun)` with the other leaves left out. As a decorator factory (no `fun`): unknown."""
    has_aux = flag(call.arg("has_aux"), False) if call.given("has_aux") else False
    if call.opaque or not call.given("fun") or has_aux is None:
        return None
    options = (Seq((Const(0),)), Const(True), Const(has_aux), Const(call.short_name == "filter_value_and_grad"),
               Const(False), Const(call.written or call.name))
    return Partial(Qual(_GRAD_CALL), (call.arg("fun"), *options))


@REGISTRY.handles(_GRAD_CALL, signature="fun, argnums, single, has_aux, with_value, unpacks, api, /, *args, **kwargs")
def grad_call(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A gradient has its argument's shape, and varies over the named axes the value does."""
    if not call.given("with_value"):
        return None
    fun = call.arg("fun")
    numbers = argnums(call.arg("argnums"))
    single, has_aux, with_value = (flag(call.arg(name)) for name in ("single", "has_aux", "with_value"))
    args = call.rest()
    if not numbers or max(numbers) >= len(args) or min(numbers) < 0:
        return None
    result = interp.call(fun, forwarded(call, args), ctx, scope)
    if has_aux and _not_a_pair(interp, call, as_str(call.arg("api")) or "jax.grad", result,
                               unpacked=flag(call.arg("unpacks")) is not False):
        return None
    value = result.items[0] if has_aux and isinstance(result, Seq) and result.items else result
    if has_aux and not isinstance(result, Seq):
        value = None
    if isinstance(value, ArrayType) and value.ellipsis is None and value.dims:
        interp.reporter.add(call.node, Code.ANNOTATION_MISMATCH,
                            f"{as_str(call.arg('api'))} differentiates a function with a scalar output, but this one "
                            f"returns shape {format_shape(value.dims)} (jax.jacfwd or jax.jacrev give the Jacobian "
                            "of an array)")
        return None
    named = value.named if isinstance(value, ArrayType) else None
    grads = [_gradient(value_tree(args[i]), named) for i in numbers]
    gradient = _gradient_value(grads[0], args[numbers[0]]) if single else \
        Seq(tuple(_gradient_value(g, args[i]) for g, i in zip(grads, numbers, strict=True)))
    aux = result.items[1] if has_aux and isinstance(result, Seq) and len(result.items) > 1 else None
    if with_value:
        return Seq(((Seq((value, aux)) if has_aux else value), gradient))
    return Seq((gradient, aux)) if has_aux else gradient


def _not_a_pair(interp: Interpreter, call: CallArgs, api: str, result: Value, *, unpacked: bool = False) -> bool:
    """SC103 at the call where a function differentiated with `has_aux=True` certainly does not
    return a pair (`autodiff.aux_pair`); True where so. An unknown result is never reported."""
    problem = autodiff.aux_pair(api, pytrees.tree(result), unpacked=unpacked)
    if problem is not None:
        interp.reporter.problems([problem], call.node)
    return problem is not None


def _gradient_value(tree: ValueTree, arg: Value) -> Value:
    """The gradient with respect to `arg`, as a value: a model's variables (what `init` made,
    or `{'params': ...}` of them) have gradients of their own structure and shapes."""
    if model_params.given(arg) is not None:
        return arg
    return to_value(tree, arg)


def _gradient(tree: ValueTree, named: tuple[tuple[str, Dim], ...] | None) -> ValueTree:
    """The gradient with respect to `tree`: its shapes, over its named axes and the value's
    (`named`; None when the value is unknown: then it may vary over more)."""
    if isinstance(tree, ArrayType):
        axes = dict(named or ())
        axes.update(tree.named)
        return replace(tree.with_named(axes), named_open=tree.named_open or named is None, weak=False)
    if isinstance(tree, tuple):
        return tuple(_gradient(item, named) for item in tree)
    if isinstance(tree, dict):
        return {key: _gradient(item, named) for key, item in tree.items()}
    return None


# ---------------------------------------------------------------- jacobians

# `jax.jacfwd(f)` is a partial application of this name, as `jax.grad(f)` is of `_GRAD_CALL`.
_JACOBIAN_CALL = "jax.jacobian()"


@REGISTRY.handles("jax.jacfwd", "jax.jacrev", "jax.jacobian", "jax.hessian", takes_functions=True,
                  signature="fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False")
def jacobian(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    number = as_int(call.arg("argnums")) if call.given("argnums") else 0
    has_aux = flag(call.arg("has_aux"), False) if call.given("has_aux") else False
    if call.opaque or number is None or has_aux is None:
        return None  # a tuple of argnums (a tuple of Jacobians) is not followed
    order = 2 if call.short_name == "hessian" else 1
    # jacfwd unpacks the function's output into two where it has an aux; jacrev, jacobian and
    # hessian (jacfwd of a jacrev) go through vjp, which demands a tuple or list of two.
    unpacks = Const(call.short_name == "jacfwd")
    return Partial(Qual(_JACOBIAN_CALL), (call.arg("fun"), Const(number), Const(order), Const(has_aux), unpacks,
                                          Const(call.written or call.name)))


@REGISTRY.handles(_JACOBIAN_CALL, signature="fun, argnum, order, has_aux, unpacks, api, /, *args, **kwargs")
def jacobian_call(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The Jacobian of an array-valued function of an array: the value's dims, then the
    argument's (twice for the Hessian); what is not an array on either side is not followed."""
    number, order, has_aux = as_int(call.arg("argnum")), as_int(call.arg("order")), flag(call.arg("has_aux"))
    args = call.rest()
    if number is None or order is None or has_aux is None or not -len(args) <= number < len(args):
        return None
    result = interp.call(call.arg("fun"), forwarded(call, args), ctx, scope)
    if has_aux and _not_a_pair(interp, call, as_str(call.arg("api")) or "jax.jacobian", result,
                               unpacked=flag(call.arg("unpacks")) is not False):
        return None
    value = result.items[0] if has_aux and isinstance(result, Seq) and len(result.items) == 2 else \
        None if has_aux else result
    argument = args[number]
    # Of pytrees too (`jax.hessian(loss)(params, x)["w"]["w"]`): the value's structure, each
    # leaf holding the argument's structure (twice nested for the Hessian).
    inputs = value_tree(argument)
    found = to_value(_jacobian(value_tree(value), inputs, order), value) if _all_floating(inputs) else None
    if has_aux:
        return Seq((found, result.items[1])) if isinstance(result, Seq) and len(result.items) == 2 else None
    return found


def _jacobian(output: ValueTree, inputs: ValueTree, order: int) -> ValueTree:
    """Each floating leaf of `output` as the tree of its derivatives by `inputs`' leaves: its
    dims, then each input leaf's (`order` times over); None where a leaf is unknown."""
    if isinstance(output, tuple):
        return tuple(_jacobian(item, inputs, order) for item in output)
    if isinstance(output, dict):
        return {key: _jacobian(item, inputs, order) for key, item in output.items()}
    if not isinstance(output, ArrayType) or output.ellipsis is not None or not _floating(output):
        return None
    return _by_inputs(output, inputs, inputs, order)


def _by_inputs(prefix: ArrayType, inputs: ValueTree, tree: ValueTree, order: int) -> ValueTree:
    """`prefix` differentiated by each leaf of `tree` (a part of `inputs`), then by `inputs`
    again while `order` lasts."""
    if isinstance(tree, tuple):
        return tuple(_by_inputs(prefix, inputs, item, order) for item in tree)
    if isinstance(tree, dict):
        return {key: _by_inputs(prefix, inputs, item, order) for key, item in tree.items()}
    if not isinstance(tree, ArrayType) or tree.ellipsis is not None:
        return None
    named = dict(prefix.named)
    named.update(tree.named)
    derivative = replace(prefix.with_dims((*prefix.dims, *tree.dims)).with_named(named),
                         named_open=prefix.named_open or tree.named_open, weak=False)
    return _by_inputs(derivative, inputs, inputs, order - 1) if order > 1 else derivative


def _all_floating(tree: ValueTree) -> bool:
    """Every leaf a known float or complex array: JAX differentiates by nothing else."""
    if isinstance(tree, tuple):
        return all(_all_floating(item) for item in tree)
    if isinstance(tree, dict):
        return all(_all_floating(item) for item in tree.values())
    return isinstance(tree, ArrayType) and _floating(tree)


def _floating(value: ArrayType) -> bool:
    return kind_of(value.dtype) in ("f", "c")


# ---------------------------------------------------------------- jvp and eval_shape

@REGISTRY.handles("jax.jvp", takes_functions=True, signature="fun, primals, tangents, has_aux=False")
def jvp(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`(fun(*primals), tangent of it)`: the tangents must be as the primals are, pair by pair
    (SC103 where one has another shape, or there are not as many)."""
    primals, tangents = call.arg("primals"), call.arg("tangents")
    has_aux = flag(call.arg("has_aux"), False) if call.given("has_aux") else False
    if call.opaque or not isinstance(primals, Seq) or not isinstance(tangents, Seq) or has_aux is None:
        return None
    if len(primals.items) != len(tangents.items):
        interp.reporter.add(call.node, Code.ANNOTATION_MISMATCH,
                            f"jax.jvp takes a tangent for each primal: {len(primals.items)} primals, "
                            f"{len(tangents.items)} tangents")
        return None
    for index, (primal, tangent) in enumerate(zip(primals.items, tangents.items, strict=True)):
        if isinstance(primal, ArrayType) and isinstance(tangent, ArrayType) and primal.ellipsis is None and \
                tangent.ellipsis is None and (len(primal.dims) != len(tangent.dims) or any(
                    certainly_differ(p, t) for p, t in zip(primal.dims, tangent.dims, strict=False))):
            interp.reporter.add(call.node, Code.ANNOTATION_MISMATCH,
                                f"jax.jvp's tangent {index + 1} has shape {format_shape(tangent.dims)} but its "
                                f"primal has shape {format_shape(primal.dims)}: each tangent has its primal's shape")
            return None
    written = primals.node
    nodes: list[ast.AST] = [call.node] * len(primals.items)
    if isinstance(written, ast.Tuple | ast.List) and len(written.elts) == len(nodes) and \
            not any(isinstance(element, ast.Starred) for element in written.elts):
        nodes = list(written.elts)
    result = interp.call(call.arg("fun"), CallArgs(call.node, list(primals.items), nodes), ctx, scope)
    if has_aux and _not_a_pair(interp, call, call.written or call.name, result, unpacked=True):
        return None
    value = result.items[0] if has_aux and isinstance(result, Seq) and len(result.items) == 2 else \
        None if has_aux else result
    tangent_out = to_value(_tangent(value_tree(value)), value)
    if has_aux:
        aux = result.items[1] if isinstance(result, Seq) and len(result.items) == 2 else None
        return Seq((value, tangent_out, aux))
    return Seq((value, tangent_out))


# `jax.vjp`'s pullback and `jax.linearize`'s linear function are partial applications of these
# names (no program can write them) to what they must be given a value like.
_PULLBACK = "jax.vjp()"
_LINEARIZED = "jax.linearize()"


@REGISTRY.handles("jax.vjp", takes_functions=True, signature="fun, *primals, has_aux=False, reduce_axes=()")
def vjp(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`(fun(*primals), pullback)`, and `fun`'s aux with `has_aux`: the pullback takes one
    cotangent shaped as the output and gives a tuple of cotangents shaped as the primals."""
    has_aux = flag(call.arg("has_aux"), False) if call.given("has_aux") else False
    primals = call.rest()
    if call.opaque or has_aux is None:
        return None
    result = interp.call(call.arg("fun"), CallArgs(call.node, primals, call.arg_nodes[1:1 + len(primals)]), ctx,
                         scope)
    if has_aux and _not_a_pair(interp, call, call.written or call.name, result):
        return None
    value = result.items[0] if has_aux and isinstance(result, Seq) and len(result.items) == 2 else \
        None if has_aux else result
    pullback = Partial(Qual(_PULLBACK), (value, Seq(tuple(primals))))
    if has_aux:
        return Seq((value, pullback, result.items[1] if isinstance(result, Seq) and len(result.items) == 2 else None))
    return Seq((value, pullback))


@REGISTRY.handles(_PULLBACK, signature="out, primals, /, *cotangents")
def pullback(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """JAX's ValueError where the cotangent is not as the output (SC103); a tuple of cotangents,
    one per primal, each of its primal's shape."""
    primals, given = call.arg("primals"), call.rest()
    if call.opaque or not isinstance(primals, Seq):
        return None
    if len(given) == 1:
        problem = _unlike(given[0], call.arg("out"), "the VJP function's cotangent", "the function's output")
        if problem is not None:
            interp.reporter.add(call.arg_nodes[2], Code.ANNOTATION_MISMATCH, problem)
            return None
    elif given:
        interp.reporter.add(call.node, Code.ANNOTATION_MISMATCH, (
            f"the VJP function takes one cotangent (a pytree shaped as the output), but is given {len(given)} "
            "arguments"))
        return None
    return Seq(tuple(to_value(_tangent(value_tree(primal)), primal) for primal in primals.items))


@REGISTRY.handles("jax.linearize", takes_functions=True, signature="fun, *primals")
def linearize(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`(fun(*primals), f_jvp)`: `f_jvp` takes a tangent per primal, each of its primal's
    shape, and gives the output's tangent."""
    primals = call.rest()
    if call.opaque:
        return None
    value = interp.call(call.arg("fun"), CallArgs(call.node, primals, call.arg_nodes[1:1 + len(primals)]), ctx,
                        scope)
    return Seq((value, Partial(Qual(_LINEARIZED), (value, Seq(tuple(primals))))))


@REGISTRY.handles(_LINEARIZED, signature="out, primals, /, *tangents")
def linearized(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """JAX's ValueError or TypeError where the tangents are not one per primal, each of its
    shape (SC103); the output's tangent."""
    primals, tangents = call.arg("primals"), call.rest()
    if call.opaque or not isinstance(primals, Seq):
        return None
    if len(tangents) != len(primals.items):
        interp.reporter.add(call.node, Code.ANNOTATION_MISMATCH, (
            f"the linearized function takes a tangent for each primal: {len(primals.items)} primals, "
            f"{len(tangents)} tangents"))
        return None
    for number, (tangent, primal) in enumerate(zip(tangents, primals.items, strict=True), 1):
        problem = _unlike(tangent, primal, f"the linearized function's tangent {number}", "its primal")
        if problem is not None:
            interp.reporter.add(call.arg_nodes[2 + number - 1], Code.ANNOTATION_MISMATCH, problem)
            return None
    out = call.arg("out")
    return to_value(_tangent(value_tree(out)), out)


def _unlike(given: Value, like: Value, what: str, other: str) -> str | None:
    """Why `given` is not a value of `like`'s structure and array shapes; None where it is, or
    where either is not known there."""
    return _unlike_trees(pytrees.tree(given), pytrees.tree(like), what, other)


def _unlike_trees(mine: Tree, theirs: Tree, what: str, other: str) -> str | None:
    if mine is None or theirs is None:
        return None
    if isinstance(mine, ArrayType) and isinstance(theirs, ArrayType):
        if mine.ellipsis is None and theirs.ellipsis is None and (len(mine.dims) != len(theirs.dims) or any(
                certainly_differ(a, b) for a, b in zip(mine.dims, theirs.dims, strict=False))):
            return (f"{what} has shape {format_shape(mine.dims)}, but {other} has shape {format_shape(theirs.dims)}: "
                    "it must be as that is (JAX: 'unexpected JAX type (e.g. shape/dtype)')")
        return None
    if isinstance(mine, ArrayType) or isinstance(theirs, ArrayType) or (mine.kind, mine.keys) != (
            theirs.kind, theirs.keys):
        return (f"{what} is {control_flow.describe(mine)}, but {other} is {control_flow.describe(theirs)}: it must "
                "have that structure (JAX: 'unexpected tree structure')")
    for a, b in zip(mine.items, theirs.items, strict=True):
        found = _unlike_trees(a, b, what, other)
        if found is not None:
            return found
    return None


def _tangent(tree: ValueTree) -> ValueTree:
    """A value's tangent: the same arrays where they are floating point; unknown elsewhere
    (an integer's tangent is JAX's float0)."""
    if isinstance(tree, ArrayType):
        return replace(tree, weak=False) if _floating(tree) else None
    if isinstance(tree, tuple):
        return tuple(_tangent(item) for item in tree)
    if isinstance(tree, dict):
        return {key: _tangent(item) for key, item in tree.items()}
    return None


@REGISTRY.handles("jax.eval_shape", takes_functions=True, signature="fun, *args, **kwargs")
def eval_shape(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """What `fun` returns for the arguments, traced as under jit: a ShapeDtypeStruct reads as
    the array it describes."""
    if call.opaque:
        return None
    traced = ctx.enter_jit(("this jax.eval_shape binds no axis name", call.node))
    return interp.call(call.arg("fun"), forwarded(call, call.rest()), traced, scope)
