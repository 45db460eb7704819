"""Calling a layer value (`nn.Dense(128)(x)`, `nnx.Linear(3, 4, rngs=r)(x)`, `eqx.nn.Linear(3, 4, key=k)(x)`): the rule the
layer's library module declares for its class (`layers_api.LayerRules`). Kept apart from
`layers_api`, which those library modules import: collecting their rules there was an import
cycle."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import (
    equinox_api,
    equinox_pooling,
    flax_api,
    flax_lifted,
    flax_nnx_api,
    haiku_api,
    haiku_recurrent,
    recurrent_layers,
)
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Layer, Value

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_RULES = {**flax_api.LAYERS.rules, **flax_nnx_api.LAYERS.rules, **equinox_api.LAYERS.rules,
          **haiku_api.LAYERS.rules, **recurrent_layers.LAYERS.rules,
          **flax_lifted.LAYERS.rules,
          **haiku_recurrent.LAYERS.rules,
          **equinox_pooling.LAYERS.rules}


@REGISTRY.calls(Layer)
def call_layer(interp: Interpreter, layer: Any, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    found = _RULES.get(layer.name)
    if found is None or call.opaque:
        return None
    signature, rule = found
    bound = CallArgs(call.node, call.args, call.arg_nodes, call.kwargs, call.kwarg_nodes, call.raw_args,
                     call.raw_kwargs, call.opaque)
    bound.name = layer.name
    bound.signature = signature
    if any(not signature.accepts(name) and signature.var_keyword is None for name in call.kwargs) or (
            signature.variadic is None and len(call.args) > len(signature.positional)):
        return None  # Python raises a TypeError: not a shape rule
    return rule(interp, layer, bound, ctx)
