"""Layer objects of neural-network libraries: how one is built, and how calling it is checked.

`nn.Dense(128)` (flax.linen) or `eqx.nn.Linear(3, 4, key=k)` (equinox) is a `Layer` value
holding the settings its constructor was given; calling it runs the rule its library module
declares for that class (`LayerRules.rule`), with the call's arguments bound by the signature
of the layer's `__call__`. A layer whose class has no rule, or a call the checker cannot
read, gives an unknown value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from shapecheck.algebra.promotion import Typed, default, result_type
from shapecheck.analyzer.calls import CallArgs, Signature
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import dtype_arg
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Layer, Value
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

LayerRule: TypeAlias = "Callable[[Interpreter, Layer, CallArgs, Context], Value]"


class LayerRules:
    """The call rules one library module declares for its layer classes, by qualified name."""

    __slots__ = ("rules",)

    def __init__(self) -> None:
        self.rules: dict[str, tuple[Signature, LayerRule]] = {}

    def rule(self, *names: str, signature: str) -> Callable[[LayerRule], LayerRule]:
        """Register how calling a layer of these classes is checked; `signature` is its
        `__call__`'s, without `self`."""
        declared = Signature.parse(signature)

        def register(rule: LayerRule) -> LayerRule:
            for name in names:
                self.rules[name] = (declared, rule)
            return rule

        return register


def build(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A layer's constructor: the settings given, by parameter name."""
    signature = call.signature
    if signature is None or call.opaque:
        return None
    names = (*signature.positional, *signature.keyword_only)
    settings = tuple((name, call.arg(name)) for name in names if call.given(name))
    return Layer(call.name, settings, call.node)


def layer_dtype(layer: Layer, x: ArrayType) -> str | None:
    """The dtype of a layer with float32 parameters: its `dtype` setting, else the input's
    promoted with float32 (flax's `promote_dtype`, equinox's matmul)."""
    if layer.given("dtype"):
        return dtype_arg(layer.setting("dtype"))
    return result_type(Typed(x.dtype, x.weak), default("f")).dtype
