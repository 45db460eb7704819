"""jax.random: keys (PRNGKey, key, split, fold_in), the samplers' shapes and the checks JAX makes
of their parameters, categorical, choice and permutation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from shapecheck.algebra import broadcast as algebra_broadcast
from shapecheck.algebra import promotion, sampling
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.analyzer.calls import CallArgs, Handler
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    array,
    code_of,
    dtype_or,
    finished,
    flag,
    passed,
    shape,
)
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Value, as_dim, as_int
from shapecheck.codes import Code
from shapecheck.dims import Dim, format_shape, product
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

RANDOM = "jax.random"
_SHARDING = "*, out_sharding=None"

# Each sampler with parameters: the parameters, and the kind of its default dtype.
_PARAMETERS: dict[str, tuple[tuple[str, ...], str]] = {
    "truncated_normal": (("lower", "upper"), "f"), "gamma": (("a",), "f"), "loggamma": (("a",), "f"),
    "beta": (("a", "b"), "f"), "poisson": (("lam",), "i"), "t": (("df",), "f"), "chisquare": (("df",), "f"),
    "geometric": (("p",), "i"), "binomial": (("n", "p"), "f"), "pareto": (("b",), "f"),
    "rayleigh": (("scale",), "f"), "wald": (("mean",), "f"), "triangular": (("left", "mode", "right"), "f"),
    "lognormal": (("sigma",), "f"),
}


@REGISTRY.handles(*each(RANDOM, "normal", "laplace", "logistic", "cauchy", "exponential"),
                  signature=f"key, shape=(), dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.gumbel", signature=f"key, shape=(), dtype=None, mode=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.maxwell", signature=f"key, shape=(), dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.generalized_normal", signature=f"key, p, shape=(), dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.rademacher", signature=f"key, shape, dtype=None, {_SHARDING}")
def sampler(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A sampler of its `shape=`: reals default to the default float, rademacher to the default int."""
    dtype = dtype_or(call, promotion.default("i" if call.short_name == "rademacher" else "f"))
    if not call.given("shape"):
        return ArrayType(dtype, ())
    dims = shape(call.arg("shape"))
    return ArrayType(dtype, dims) if dims is not None else None


@REGISTRY.handles(f"{RANDOM}.uniform", signature=f"key, shape=(), dtype=None, minval=0.0, maxval=1.0, {_SHARDING}")
def uniform(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dtype = dtype_or(call, promotion.default("f"))
    dims = shape(call.arg("shape")) if call.given("shape") else ()
    return _uniform_bounds(interp, call, ArrayType(dtype, dims)) if dims is not None else None


def _uniform_bounds(interp: Interpreter, call: CallArgs, result: ArrayType) -> Value:
    """`uniform` returns `max(minval, sample)`: abstractly, array bounds broadcast into the
    result's shape (`jax.eval_shape` says so), but a bound that widens `shape` fails whenever
    the draw is compiled, which every run does (JAX's ValueError "Cannot lower jaxpr with
    verifier errors"): SC101, as the other samplers' parameters must broadcast *to* `shape`."""
    given = [(name, call.arg(name)) for name in ("minval", "maxval") if call.given(name)]
    if any(not isinstance(b, ArrayType | Const) for _, b in given):
        # An unknown bound may be an array of any rank: leading dims and 1s become unknown.
        return ArrayType(result.dtype, tuple(None if d == 1 else d for d in result.dims), (), 0)
    for name, bound in given:
        if not isinstance(bound, ArrayType) or result.ellipsis is not None or bound.ellipsis is not None:
            continue
        widened = algebra_broadcast.broadcast([result, bound])
        # A widening by 1s alone holds as many elements, and compiles (flashbax's (1,) bounds
        # with shape=()); one that multiplies them does not.
        before, after = product(result.dims), product(widened.type.dims)
        if not widened.problems and widened.type.ellipsis is None and before is not None and after is not None \
                and after != before:
            interp.reporter.add(call.kwarg_nodes.get(name, call.node), Code.BROADCAST_MISMATCH, (
                f"jax.random.uniform's {name} of shape {format_shape(bound.dims)} does not broadcast to the "
                f"draw's shape {format_shape(result.dims)} (it would widen it to {format_shape(widened.type.dims)}); "
                f"JAX fails when it compiles the draw: pass shape={format_shape(widened.type.dims)}"))
            return None
    arrays = [b for _, b in given if isinstance(b, ArrayType)]
    if not arrays:
        return result
    return algebra_broadcast.broadcast([result, *arrays]).type.with_dtype(result.dtype)


@REGISTRY.handles(f"{RANDOM}.randint", signature=f"key, shape, minval, maxval, dtype=None, {_SHARDING}")
def randint(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dtype = dtype_or(call, promotion.default("i"))
    return _drawn(interp, call, shape(call.arg("shape")), ("minval", "maxval"), dtype)


@REGISTRY.handles(f"{RANDOM}.bernoulli", signature=f"key, p=0.5, shape=None, mode='low', {_SHARDING}")
def bernoulli(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return _drawn(interp, call, _optional_shape(call), ("p",) if call.given("p") else (), "bool_")


@REGISTRY.handles(f"{RANDOM}.truncated_normal", signature=f"key, lower, upper, shape=None, dtype=None, {_SHARDING}")
@REGISTRY.handles(*each(RANDOM, "gamma", "loggamma"), signature=f"key, a, shape=None, dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.beta", signature=f"key, a, b, shape=None, dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.poisson", signature=f"key, lam, shape=None, dtype=None, {_SHARDING}")
@REGISTRY.handles(*each(RANDOM, "t", "chisquare"), signature=f"key, df, shape=None, dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.geometric", signature=f"key, p, shape=None, dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.pareto", signature=f"key, b, shape=None, dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.binomial", signature="key, n, p, shape=None, dtype=None")
@REGISTRY.handles(f"{RANDOM}.rayleigh", signature=f"key, scale, shape=None, dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.wald", signature=f"key, mean, shape=None, dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.triangular", signature=f"key, left, mode, right, shape=None, dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.lognormal", signature=f"key, sigma=1.0, shape=None, dtype=None, {_SHARDING}")
def with_parameters(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A sampler with array parameters: they broadcast to `shape=`, or make the shape."""
    names, kind = _PARAMETERS[call.short_name]
    given = tuple(name for name in names if call.given(name))  # a default is a Python number: any shape
    return _drawn(interp, call, _optional_shape(call), given, dtype_or(call, promotion.default(kind)))


@REGISTRY.handles(f"{RANDOM}.multivariate_normal",
                  signature=f"key, mean, cov, shape=None, dtype=None, method='cholesky', {_SHARDING}")
def multivariate_normal(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Vectors of the mean's length, over the broadcast batch of mean and cov, or `shape=`."""
    mean, cov, dims = array(call.arg("mean")), array(call.arg("cov")), _optional_shape(call)
    if mean is None or cov is None or dims is False:
        return None
    names = [f"{name} `{code_of(call.arg_node(name))}`" for name in ("mean", "cov")]
    outcome = sampling.multivariate_normal(mean, cov, dims, dtype_or(call, promotion.default("f")), names)
    return finished(interp, call, outcome)


@REGISTRY.handles(f"{RANDOM}.dirichlet", signature=f"key, alpha, shape=None, dtype=None, {_SHARDING}")
def dirichlet(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Vectors of alpha's last dim, over alpha's batch, or `shape=`."""
    alpha, dims = array(call.arg("alpha")), _optional_shape(call)
    if alpha is None or dims is False or alpha.ellipsis is not None:
        return None
    what = "jax.random.dirichlet"
    if not alpha.dims:
        interp.reporter.problems([Problem(Code.AXIS_OUT_OF_RANGE, f"{what} takes alpha of shape (..., k), but it is 0-d")],
                                 call.node, call.arg_nodes)
        return None
    named = [f"alpha `{code_of(call.arg_node('alpha'))}`"]
    outcome = sampling.vectors(dims, [alpha.with_dims(alpha.dims[:-1])], alpha.dims[-1],
                               dtype_or(call, promotion.default("f")), what, named)
    return finished(interp, call, outcome)


@REGISTRY.handles(f"{RANDOM}.ball", signature=f"key, d, p=2, shape=(), dtype=None, {_SHARDING}")
@REGISTRY.handles(f"{RANDOM}.orthogonal", signature=f"key, n, shape=(), dtype=None, m=None, {_SHARDING}")
def matrices(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`ball`: points of `d` coordinates; `orthogonal`: `(n, m)` matrices (m = n by default);
    one per element of `shape=`."""
    dims = shape(call.arg("shape")) if call.given("shape") else ()
    dtype = dtype_or(call, promotion.default("f"))
    if dims is None:
        return None
    if call.short_name == "ball":
        return ArrayType(dtype, (*dims, as_dim(call.arg("d"))))
    n = as_dim(call.arg("n"))
    m = as_dim(call.arg("m")) if passed(call, "m") else n
    return ArrayType(dtype, (*dims, n, m))


@REGISTRY.handles(f"{RANDOM}.categorical",
                  signature=f"key, logits, axis=-1, shape=None, replace=True, mode=None, {_SHARDING}")
def categorical(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    logits = call.arg("logits")
    axis = as_int(call.arg("axis")) if call.given("axis") else -1
    dims = _optional_shape(call)
    if not isinstance(logits, ArrayType) or axis is None or dims is False:
        return None
    replace = flag(call.arg("replace"), True) if call.given("replace") else True
    outcome = sampling.categorical(logits, axis, dims, replace, promotion.default("i").dtype)
    return _finish(interp, call, outcome)


@REGISTRY.handles(f"{RANDOM}.permutation", signature=f"key, x, axis=0, independent=False, {_SHARDING}")
def permutation(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    x = call.arg("x")
    axis = as_int(call.arg("axis")) if call.given("axis") else 0
    count = as_int(x)
    if axis is None or not (isinstance(x, ArrayType) or count is not None):
        return None
    outcome = sampling.permutation(x if isinstance(x, ArrayType) else count if count is not None else 0, axis)
    result = _finish(interp, call, outcome)
    return result if isinstance(x, ArrayType) else result.with_dtype(promotion.default("i").dtype)


@REGISTRY.handles(f"{RANDOM}.choice", signature="key, a, shape=(), replace=True, p=None, axis=0, mode=None")
def choice(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    a = call.arg("a")
    source = a if isinstance(a, ArrayType) else as_dim(a)
    if source is None or (not isinstance(a, ArrayType) and as_int(a) is None):
        return None
    given = call.arg("shape")
    if call.given("shape") and as_int(given) is not None:
        node = call.arg_node("shape")
        interp.reporter.add(node, Code.SIZE_ARGUMENT_MISMATCH, (
            f"jax.random.choice takes its shape as a sequence, but `{code_of(node)}` is an int (JAX's TypeError); "
            f"write shape=({code_of(node)},)"))
        return None
    dims = shape(given) if call.given("shape") else ()
    axis = as_int(call.arg("axis")) if call.given("axis") else 0
    if dims is None or axis is None:
        return None
    replace = flag(call.arg("replace"), True) if call.given("replace") else True
    p = call.arg("p")
    outcome = sampling.choice(source, dims, replace, p if isinstance(p, ArrayType) else None, axis,
                              promotion.default("i").dtype)
    return _finish(interp, call, outcome)


@REGISTRY.handles(f"{RANDOM}.split", signature="key, num=2")
def split(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`split(key, num)`: keys stacked along `num` (a count or a shape) new leading dims."""
    key = call.arg("key")
    num = shape(call.arg("num")) if call.given("num") else (2,)
    if not isinstance(key, ArrayType) or num is None:
        return None
    return sampling.split(key, num)


@REGISTRY.handles(f"{RANDOM}.PRNGKey", signature="seed, *, impl=None")
def prng_key(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A raw key: uint32 `(2,)` for the default implementation (another `impl=` is not followed)."""
    return ArrayType("u32", (2,)) if not call.given("impl") else None


@REGISTRY.handles(f"{RANDOM}.key", signature="seed, *, impl=None, dtype=None")
def key(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A typed key: one `()` element of a key dtype, which the annotation language has no name for."""
    return ArrayType(None, ())


@REGISTRY.handles(f"{RANDOM}.fold_in", signature="key, data")
def fold_in(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("key")
    return value if isinstance(value, ArrayType) else None


@REGISTRY.handles(f"{RANDOM}.key_data", signature="keys")
def key_data(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The uint32 data of typed keys (a trailing `(2,)`); raw keys are their own data."""
    keys = call.arg("keys")
    if not isinstance(keys, ArrayType) or keys.ellipsis is not None:
        return None
    if keys.dtype == "u32":
        return keys
    return ArrayType("u32", (*keys.dims, 2), keys.named) if keys.dtype is None and not keys.dims else None


@REGISTRY.handles(f"{RANDOM}.wrap_key_data", signature="key_bits_array, *, impl=None")
def wrap_key_data(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    bits = call.arg("key_bits_array")
    if not isinstance(bits, ArrayType) or bits.ellipsis is not None or call.given("impl") or bits.dims[-1:] != (2,):
        return None
    return ArrayType(None, bits.dims[:-1], bits.named)


def _optional_shape(call: CallArgs) -> tuple[Dim, ...] | Literal[False] | None:
    """`shape=None` (or not given): None; a shape; False where it cannot be read."""
    value = call.arg("shape")
    if not call.given("shape") or value == Const(None):
        return None
    dims = shape(value)
    return dims if dims is not None else False


def _drawn(interp: Interpreter, call: CallArgs, dims: tuple[Dim, ...] | Literal[False] | None,
           names: tuple[str, ...], dtype: str | None) -> Value:
    if dims is False:
        return None
    params = [array(call.arg(name)) for name in names]
    known = [p for p in params if p is not None]
    if len(known) != len(params):
        # An unknown parameter may be an array of any shape: only `shape=` is certain.
        return ArrayType(dtype, dims) if dims is not None else None
    named = [f"{name} `{code_of(call.arg_node(name))}`" for name in names]
    return _finish(interp, call, sampling.drawn(dims, known, dtype, f"jax.random.{call.short_name}", named))


def _finish(interp: Interpreter, call: CallArgs, outcome: Outcome) -> ArrayType:
    interp.reporter.problems(outcome.problems, call.node)
    return outcome.type


def _one_key(handler: Handler) -> Handler:
    """`handler` for a jax.random API that takes one key: a batch of raw keys (`split(key, 3)`,
    uint32 `(3, 2)`) is refused first, as JAX refuses it ("accepts a single key")."""

    def checked(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
        key = call.args[0] if call.args else call.kwargs.get("key")
        if isinstance(key, ArrayType) and key.dtype == "u32" and key.ellipsis is None and len(key.dims) > 1:
            node = call.arg_nodes[0] if call.args else call.kwarg_nodes.get("key", call.node)
            interp.reporter.add(node, Code.AXIS_OUT_OF_RANGE, (
                f"jax.random.{call.short_name} takes one key, but `{code_of(node)}` is a batch of raw keys "
                f"{format_shape(key.dims)} (one key is uint32 (2,)); pick one (`keys[0]`) or jax.vmap over them"))
            return None
        return handler(interp, call, ctx, scope)

    return checked


# Every API here that takes a key takes one (key_data and the key makers take others).
for _name, _handler in list(REGISTRY.functions.items()):
    if _name.startswith(f"{RANDOM}.") and REGISTRY.signatures[_name].positional[:1] == ("key",):
        REGISTRY.functions[_name] = _one_key(_handler)
