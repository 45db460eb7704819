"""jax.scipy.stats's univariate distributions: each density, mass, distribution and quantile
function (`norm.logpdf`, `poisson.logpmf`, `gamma.cdf`, ...) broadcasts its value and every
parameter, positional or named, and computes in floating point. And multivariate_normal's
densities, whose values are vectors (`algebra.statistics.multivariate_normal`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import broadcast, statistics
from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.promotion import inexact, promoted
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, code_of, finished, passed
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Value
from shapecheck.codes import Code
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

STATS: Final = "jax.scipy.stats"

# Each distribution's functions, as JAX 0.10.2 has them (multivariate_normal and dirichlet,
# whose values are vectors, are not among them).
DISTRIBUTIONS: Final[dict[str, tuple[str, ...]]] = {
    "norm": ("cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"),
    "bernoulli": ("cdf", "logpmf", "pmf", "ppf"),
    "poisson": ("cdf", "entropy", "logpmf", "pmf"),
    "gamma": ("cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"),
    "beta": ("cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"),
    "t": ("logpdf", "pdf"),
    "laplace": ("cdf", "logpdf", "pdf"),
    "logistic": ("cdf", "isf", "logpdf", "pdf", "ppf", "sf"),
    "uniform": ("cdf", "logpdf", "pdf", "ppf"),
    "expon": ("cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"),
    "cauchy": ("cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"),
    "truncnorm": ("cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"),
    "binom": ("logpmf", "pmf"),
    "geom": ("logpmf", "pmf"),
    "chi2": ("cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"),
    "pareto": ("cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"),
    "nbinom": ("logpmf", "pmf"),
    "betabinom": ("logpmf", "pmf"),
    "vonmises": ("logpdf", "pdf"),
    "gennorm": ("cdf", "logpdf", "pdf"),
    "wrapcauchy": ("logpdf", "pdf"),
    "gumbel_l": ("cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"),
    "gumbel_r": ("cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"),
}


_FLOAT_VALUES: Final = frozenset({f"{STATS}.norm.ppf", f"{STATS}.norm.isf"})


@REGISTRY.handles(*(f"{STATS}.{distribution}.{function}" for distribution, functions in DISTRIBUTIONS.items()
                    for function in functions), signature="*operands, **parameters")
def univariate(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The broadcast shape of the value and the parameters (SC101 where they do not), in the
    floating point of their promoted dtype."""
    parameters = call.keywords()
    operands = [*call.rest(), *parameters.values()]
    arrays = [array(value) for value in operands]
    if call.opaque or not operands or None in arrays:
        return None
    known = [value for value in arrays if value is not None]
    names = [f"`{code_of(node)}`" for node in call.arg_nodes] + \
        [f"{name} `{code_of(call.kwarg_nodes.get(name, call.node))}`" for name in parameters]
    kind = kind_of(known[0].dtype)
    if call.name in _FLOAT_VALUES and kind is not None and kind in "biu":
        # norm's quantiles compute ndtri, which refuses integers (JAX 0.10.2; the others convert).
        interp.reporter.problems([Problem(
            Code.DTYPE_MISMATCH, f"{call.name.removeprefix('jax.')} takes floating-point probabilities, but "
            f"{names[0] if names else 'its value'} is of dtype {known[0].dtype}", operands=(0,))],
            call.node, call.arg_nodes)
        return None
    outcome = broadcast.broadcast(known, names)
    dtype = inexact(promoted(known))
    found = finished(interp, call, outcome)
    return found.with_dtype(dtype.dtype) if isinstance(found, ArrayType) else None


@REGISTRY.handles(f"{STATS}.multivariate_normal.logpdf", signature="x, mean, cov, allow_singular=None")
@REGISTRY.handles(f"{STATS}.multivariate_normal.pdf", signature="x, mean, cov")
def multivariate_normal(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """One density per vector of `x - mean` (its last dim), against `cov`: a 0-d variance or
    `(..., n, n)` matrices for mean's last dim n (SC106, SC104), batches broadcast (SC101)."""
    names = ("x", "mean", "cov")
    operands = [array(call.arg(name)) for name in names]
    if call.signature is not None and call.signature.accepts("allow_singular") and passed(call, "allow_singular"):
        return None  # JAX's NotImplementedError: not a shape's
    x, mean, cov = operands
    if x is None or mean is None or cov is None:
        return None
    nodes = [call.arg_node(name) for name in names]
    outcome = statistics.multivariate_normal(x, mean, cov, f"multivariate_normal.{call.short_name}",
                                             [f"`{code_of(node)}`" for node in nodes])
    return finished(interp, call, outcome, nodes)
