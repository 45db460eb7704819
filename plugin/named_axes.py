"""Signatures that accept axis names: `jnp.sum(x, axis='batch')` is valid code, not `arg-type`.

JAX's own signatures say `axis: int | Sequence[int] | None`, because current JAX has no named
axes in reductions; the named forms of DESIGN.md sections 3 and 6 pass a name or a tuple mixing
ints and names there. The signature hooks widen only the `axis` parameter of the functions and
methods that take named axes, to the original type or `str | Sequence[int | str]`; every other
parameter, and `axis` everywhere else, keeps JAX's type, so mypy stays exactly as strict.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from mypy.plugin import CheckerPluginInterface, FunctionSigContext, MethodSigContext
from mypy.types import CallableType, Type, UnionType

AXIS: Final = "axis"

# Short names of array methods whose `axis` may name axes.
NAMED_AXIS_METHODS: Final = frozenset({"sum", "prod", "max", "min", "mean", "any", "all", "std",
                                       "var", "argmax", "argmin"})


@cache
def named_axis_functions() -> frozenset[str]:
    """Short names whose `axis` may name axes, in jax.numpy, jax.nn, jax.scipy.special and on
    arrays (mypy reports the defining module, e.g. `jax._src.nn.functions.softmax`, so the test
    is on the root package and the last name). Read from the analyzer's reduction table when
    first asked: a build that never calls into jax does not import the analyzer for it."""
    from shapecheck.analyzer.library.reductions import ARG_REDUCTIONS, REDUCTIONS

    return frozenset({*REDUCTIONS, *ARG_REDUCTIONS, "logsumexp", "softmax", "log_softmax",
                      "standardize", "one_hot"})


def takes_axis_names(fullname: str, *, method: bool) -> bool:
    """Whether a jax function (`jax.numpy.sum`) or array method (`...Array.sum`) reduces by name."""
    if not fullname.startswith("jax."):
        return False
    name = fullname.rpartition(".")[2]
    return name in (NAMED_AXIS_METHODS if method else named_axis_functions())


class AxisNames:
    """`takes_axis_names`, remembered per full name: mypy asks on every call it checks."""

    def __init__(self) -> None:
        self.functions: dict[str, bool] = {}
        self.methods: dict[str, bool] = {}

    def takes(self, fullname: str, *, method: bool) -> bool:
        known = self.methods if method else self.functions
        found = known.get(fullname)
        if found is None:
            found = known[fullname] = takes_axis_names(fullname, method=method)
        return found


def widen_function(ctx: FunctionSigContext) -> CallableType:
    return _widen(ctx.default_signature, ctx.api)


def widen_method(ctx: MethodSigContext) -> CallableType:
    return _widen(ctx.default_signature, ctx.api)


def _widen(signature: CallableType, api: CheckerPluginInterface) -> CallableType:
    if AXIS not in signature.arg_names:
        return signature
    index = signature.arg_names.index(AXIS)
    name = api.named_generic_type("builtins.str", [])
    names = api.named_generic_type(
        "typing.Sequence", [UnionType([api.named_generic_type("builtins.int", []), name])])
    types: list[Type] = list(signature.arg_types)
    types[index] = UnionType.make_union([types[index], name, names])
    return signature.copy_modified(arg_types=types)
