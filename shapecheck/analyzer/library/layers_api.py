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

from shapecheck.algebra import convolution
from shapecheck.algebra.promotion import Typed, default, result_type
from shapecheck.analyzer.calls import CallArgs, Signature
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import dtype_arg, forwarded
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Dict, Layer, Seq, Value, as_dim, as_int, as_str
from shapecheck.dims import Dim
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
    settings = [(name, call.arg(name)) for name in names if call.given(name)]
    if signature.var_keyword is not None:
        # The options a signature leaves to `**options` are settings too (`use_scale=False`).
        settings.extend((name, value) for name, value in call.kwargs.items() if name not in signature.places)
    return Layer(call.name, tuple(settings), call.node)


def layer_dtype(layer: Layer, x: ArrayType) -> str | None:
    """The dtype of a layer with float32 parameters: its `dtype` setting, else the input's
    promoted with float32 (flax's `promote_dtype`, equinox's matmul)."""
    if layer.given("dtype"):
        return dtype_arg(layer.setting("dtype"))
    return result_type(Typed(x.dtype, x.weak), default("f")).dtype



# -- the arguments layer libraries take alike: window sizes, padding, and how they are shown ----

def shown(size: Dim) -> str:
    return str(size) if size is not None else "?"


def shown_window(window: tuple[Dim, ...]) -> str:
    return "(" + ", ".join(shown(d) for d in window) + ("," if len(window) == 1 else "") + ")"


def window(value: Value, spatial: int | None) -> tuple[Dim, ...] | None:
    """kernel_size, strides, dilations: an int for every spatial dim, or one per dim."""
    if isinstance(value, Const) and value.value is None and spatial is not None:
        return (1,) * spatial
    if isinstance(value, Const) and value.is_int:
        return (as_int(value),) * (spatial if spatial is not None else 1)
    if isinstance(value, Seq) and (spatial is None or len(value.items) == spatial):
        return tuple(as_dim(item) for item in value.items)
    return None


def padding_of(value: Value, spatial: int) -> convolution.Padding:
    """'SAME', 'VALID', an int, an int per dim or a (low, high) pair per dim; None otherwise
    ('CIRCULAR' and 'CAUSAL' pad by hand: not followed)."""
    text = as_str(value)
    if text is not None:
        return text.upper() if text.upper() in ("SAME", "VALID") else None
    if isinstance(value, Const) and value.is_int:
        return ((as_int(value), as_int(value)),) * spatial
    if isinstance(value, Seq) and len(value.items) == spatial:
        pairs: list[tuple[Dim, Dim]] = []
        for item in value.items:
            if isinstance(item, Const) and item.is_int:
                pairs.append((as_int(item), as_int(item)))
            elif isinstance(item, Seq) and len(item.items) == 2:
                pairs.append((as_dim(item.items[0]), as_dim(item.items[1])))
            else:
                return None
        return tuple(pairs)
    return None


def chained(interp: Interpreter, layers: Value, call: CallArgs, ctx: Context, *, spread: bool) -> Value:
    """A sequential layer's call (`nn.Sequential`, `hk.Sequential`): its first layer on the
    call's arguments, each next on what the one before returned; a tuple is spread into the
    next one's arguments where `spread` (flax does, haiku does not). Unknown where the layers
    cannot be read, and after a layer returns a dict (spread as keywords: not followed)."""
    if not isinstance(layers, Seq) or not layers.items:
        return None  # the libraries refuse an empty list
    out = interp.call(layers.items[0], forwarded(call, call.rest()), ctx, interp.scope)
    for following in layers.items[1:]:
        if out is None or isinstance(out, Dict):
            return None
        args: list[Value] = list(out.items) if spread and isinstance(out, Seq) and not out.is_list else [out]
        out = interp.call(following, CallArgs(call.node, args, [call.node] * len(args)), ctx, interp.scope)
    return out
