"""Evaluate a traced body equation by equation, showing every intermediate value to an observer.

xmap traces its body once to a jaxpr and replays it inside the nested vmaps; the replay is
where the co-occurrence rule and the sharding of intermediates are applied, because only
there do values carry their named axes. Nested `jit` calls are inlined so that their
intermediates are seen too; every other primitive (custom derivatives, control flow) is bound
whole, exactly as `jax.core.eval_jaxpr` would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from jax._src import source_info_util
from jax.extend.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal

from shapecheck.runtime.errors import Location

Observer = Callable[[Any, JaxprEqn], Any]
"""Called with each output of each equation; returns the value to use in its place."""

_INLINED = frozenset({"pjit", "jit", "closed_call", "core_call"})


def evaluate(jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any], observe: Observer) -> list[Any]:
    """The outputs of `jaxpr` on `args`, every equation's outputs passed through `observe`."""
    env: dict[Any, Any] = {}

    def read(var: Any) -> Any:
        return var.val if isinstance(var, Literal) else env[var]

    for var, value in zip(jaxpr.constvars, consts, strict=True):
        env[var] = value
    for var, value in zip(jaxpr.invars, args, strict=True):
        env[var] = value
    for eqn in jaxpr.eqns:
        inputs = [read(var) for var in eqn.invars]
        inner = _inlined_jaxpr(eqn)
        if inner is not None:
            outputs = evaluate(inner.jaxpr, inner.consts, inputs, observe)
        else:
            # Keep the user's source location on what the replay builds, as eval_jaxpr does,
            # so JAX's own errors still point at the user's line.
            with source_info_util.user_context(eqn.source_info.traceback,
                                               name_stack=eqn.source_info.name_stack), eqn.ctx.manager:
                primitive: Any = eqn.primitive  # untyped in jax
                result = primitive.bind(*inputs, **primitive.get_bind_params(eqn.params))
            outputs = list(result) if primitive.multiple_results else [result]
            outputs = [observe(value, eqn) for value in outputs]
        for var, value in zip(eqn.outvars, outputs, strict=True):
            env[var] = value
    return [read(var) for var in jaxpr.outvars]


def _inlined_jaxpr(eqn: JaxprEqn) -> ClosedJaxpr | None:
    if eqn.primitive.name not in _INLINED:
        return None
    inner = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
    if isinstance(inner, ClosedJaxpr):
        return inner
    if isinstance(inner, Jaxpr):
        return ClosedJaxpr(inner, ())
    return None


def location(eqn: JaxprEqn) -> Location | None:
    """Where the user's code built this equation's value (JAX records it as it traces)."""
    frame = source_info_util.user_frame(eqn.source_info.traceback)
    if frame is None:
        return None
    return Location(frame.file_name, frame.start_line, frame.start_column + 1)
