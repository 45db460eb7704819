"""jax.lax convolutions and windowed reductions (pooling): conv_general_dilated, conv,
conv_with_general_padding, their dimension numbers, and reduce_window."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from shapecheck.algebra import convolution
from shapecheck.algebra.convolution import (
    DEFAULT,
    ConvArg,
    Default,
    Layout,
    Padding,
    Window,
    WindowArg,
)
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    array,
    finished,
    flag,
    labels,
    passed,
    requested_dtype,
)
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import JNP, LAX
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Seq, Value, as_dim, as_int, as_str
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_OPTIONS = "precision=None, preferred_element_type=None"

# Where each argument `Problem.operands` names was passed, by parameter name.
_CONV_PARAMETERS: Mapping[int, str] = {
    ConvArg.WINDOW_STRIDES: "window_strides", ConvArg.PADDING: "padding", ConvArg.LHS_DILATION: "lhs_dilation",
    ConvArg.RHS_DILATION: "rhs_dilation", ConvArg.DIMENSION_NUMBERS: "dimension_numbers",
    ConvArg.FEATURE_GROUP_COUNT: "feature_group_count", ConvArg.BATCH_GROUP_COUNT: "batch_group_count",
}
_WINDOW_PARAMETERS: Mapping[int, str] = {
    WindowArg.WINDOW_DIMENSIONS: "window_dimensions", WindowArg.WINDOW_STRIDES: "window_strides",
    WindowArg.PADDING: "padding", WindowArg.BASE_DILATION: "base_dilation",
    WindowArg.WINDOW_DILATION: "window_dilation",
}


@REGISTRY.handles(f"{JNP}.convolve", signature="a, v, mode='full', *, precision=None, preferred_element_type=None")
@REGISTRY.handles(f"{JNP}.correlate", signature="a, v, mode='valid', *, precision=None, preferred_element_type=None")
def convolve(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """NumPy's 1-d convolution and correlation."""
    a, v = array(call.arg("a")), array(call.arg("v"))
    mode = as_str(call.arg("mode")) if call.given("mode") else ("full" if call.short_name == "convolve" else "valid")
    if a is None or v is None or mode not in ("full", "same", "valid") or (
            passed(call, "preferred_element_type")):
        return None
    return finished(interp, call, convolution.convolve(a, v, mode, f"jnp.{call.short_name}",
                                                                labels(call, 2)))


@REGISTRY.handles(f"{LAX}.conv_general_dilated",
                  signature="lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None, "
                            f"dimension_numbers=None, feature_group_count=1, batch_group_count=1, {_OPTIONS}, "
                            "out_sharding=None")
@REGISTRY.handles(f"{LAX}.conv", signature=f"lhs, rhs, window_strides, padding, {_OPTIONS}")
@REGISTRY.handles(f"{LAX}.conv_with_general_padding",
                  signature=f"lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, {_OPTIONS}")
def conv_general_dilated(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    lhs, rhs = call.arg("lhs"), call.arg("rhs")
    if not isinstance(lhs, ArrayType) or not isinstance(rhs, ArrayType):
        return None
    padding, malformed = _padding(call.arg("padding"))
    outcome = convolution.conv_general_dilated(
        lhs, rhs, _window(call.arg("window_strides")), padding,
        lhs_dilation=_optional_window(call, "lhs_dilation"),
        rhs_dilation=_optional_window(call, "rhs_dilation"),
        dimension_numbers=_layout(call),
        feature_group_count=_count(call, "feature_group_count"),
        batch_group_count=_count(call, "batch_group_count"),
        preferred_element_type=requested_dtype(call, "preferred_element_type"),
        what=f"lax.{call.short_name}")
    if malformed:
        outcome = Outcome(outcome.type, (*outcome.problems, _malformed_padding(call.short_name, ConvArg.PADDING)))
    return _finish(interp, call, outcome, _CONV_PARAMETERS)


@REGISTRY.handles(f"{LAX}.conv_transpose",
                  signature="lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None, "
                            f"transpose_kernel=False, {_OPTIONS}, use_consistent_padding=False")
def conv_transpose(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`lax.conv_transpose(x, w, strides, 'SAME')`: the upsampling convolution of decoders."""
    lhs, rhs = call.arg("lhs"), call.arg("rhs")
    if not isinstance(lhs, ArrayType) or not isinstance(rhs, ArrayType):
        return None
    padding, malformed = _padding(call.arg("padding"))
    flags = [flag(call.arg(name)) if call.given(name) else False for name in ("transpose_kernel",
                                                                              "use_consistent_padding")]
    outcome = convolution.conv_transpose(
        lhs, rhs, _window(call.arg("strides")), padding, _optional_window(call, "rhs_dilation"), _layout(call),
        flags[0], flags[1], requested_dtype(call, "preferred_element_type"))
    if malformed:
        outcome = Outcome(outcome.type, (*outcome.problems, _malformed_padding(call.short_name, ConvArg.PADDING)))
    return _finish(interp, call, outcome, {**_CONV_PARAMETERS, ConvArg.LHS_DILATION: "strides"})


@REGISTRY.handles(f"{LAX}.reduce_window",
                  signature="operand, init_value, computation, window_dimensions, window_strides=None, "
                            "padding='VALID', base_dilation=None, window_dilation=None")
def reduce_window(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """Pooling: `lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), 'VALID')`."""
    operand = call.arg("operand")
    if not isinstance(operand, ArrayType):
        return None  # a tree of operands: not followed
    padding: Padding = "VALID"
    malformed = False
    if call.given("padding"):
        padding, malformed = _padding(call.arg("padding"))
    outcome = convolution.reduce_window(
        operand, _window(call.arg("window_dimensions")), _optional_window(call, "window_strides"), padding,
        _optional_window(call, "base_dilation"), _optional_window(call, "window_dilation"))
    if malformed:
        outcome = Outcome(outcome.type, (*outcome.problems, _malformed_padding("reduce_window", WindowArg.PADDING)))
    return _finish(interp, call, outcome, _WINDOW_PARAMETERS)


@REGISTRY.handles(f"{LAX}.conv_dimension_numbers", signature="lhs_shape, rhs_shape, dimension_numbers")
def conv_dimension_numbers(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`lax.conv_dimension_numbers(x.shape, w.shape, ('NHWC', 'HWIO', 'NHWC'))`: a
    ConvDimensionNumbers, held as the tuple of three position tuples it is."""
    shapes = [call.arg(name) for name in ("lhs_shape", "rhs_shape")]
    ranks = [len(s.items) if isinstance(s, Seq) else None for s in shapes]
    rank = ranks[0] if ranks[0] is not None else ranks[1]
    layout = _layout(call)
    if layout is DEFAULT:
        layout = convolution.default_layout(rank) if rank is not None else None
    elif layout is not None and not isinstance(layout, Layout):
        parsed = convolution.parse_layout(layout, rank, "lax.conv_dimension_numbers")
        if isinstance(parsed, Problem):
            interp.reporter.add(call.arg_node("dimension_numbers"), parsed.code, parsed.message)
            return None
        layout = parsed
    return _layout_value(layout) if isinstance(layout, Layout) else None


@REGISTRY.handles(f"{LAX}.ConvDimensionNumbers", signature="lhs_spec, rhs_spec, out_spec")
def conv_dimension_numbers_type(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    specs = [_positions(call.arg(name)) for name in ("lhs_spec", "rhs_spec", "out_spec")]
    if any(spec is None for spec in specs):
        return None
    lhs, rhs, out = (spec for spec in specs if spec is not None)
    return _layout_value(Layout(lhs, rhs, out))


def _finish(interp: Interpreter, call: CallArgs, outcome: Outcome, parameters: Mapping[int, str]) -> ArrayType:
    """Report the algebra's problems: a malformed option at the argument that holds it."""
    problems = []
    for problem in outcome.problems:
        name = parameters.get(problem.operands[0]) if problem.operands else None
        if problem.code is Code.INVALID_AXIS_SPEC and name is not None and _passed(call, name):
            problem = replace(problem, origin=call.arg_node(name))
        problems.append(problem)
    interp.reporter.problems(problems, call.node)
    return outcome.type


def _window(value: Value) -> Window:
    """A tuple of sizes, one per spatial dim; None where the checker cannot read it."""
    if isinstance(value, Seq):
        return tuple(as_dim(item) for item in value.items)
    return None


def _optional_window(call: CallArgs, name: str) -> Window | Default:
    """An option JAX defaults (unit strides, unit dilations): DEFAULT where not passed, or
    where this API has no such parameter (`lax.conv` has no dilations)."""
    if not _passed(call, name):
        return DEFAULT
    value = call.arg(name)
    return DEFAULT if value == Const(None) else _window(value)


def _passed(call: CallArgs, name: str) -> bool:
    signature = call.signature
    assert signature is not None
    return signature.accepts(name) and call.given(name)


def _padding(value: Value) -> tuple[Padding, bool]:
    """A padding argument, and whether it is certainly malformed (neither a string nor pairs)."""
    text = as_str(value)
    if text is not None:
        return text, False
    if not isinstance(value, Seq):
        return None, False
    pairs: list[tuple[Dim, Dim]] = []
    for item in value.items:
        if isinstance(item, Seq) and len(item.items) == 2:
            pairs.append((as_dim(item.items[0]), as_dim(item.items[1])))
        elif isinstance(item, Const) or (isinstance(item, Seq) and len(item.items) != 2):
            return None, True  # `padding=(1, 1)`: JAX wants ((1, 1), (1, 1))
        else:
            return None, False
    return tuple(pairs), False


def _malformed_padding(what: str, arg: int) -> Problem:
    return Problem(Code.INVALID_AXIS_SPEC,
                   f"lax.{what}: padding must be 'SAME', 'VALID', 'SAME_LOWER' or a sequence of (low, high) "
                   "pairs, one per spatial dim (`((1, 1), (1, 1))`, not `(1, 1)`)", operands=(arg,))


def _layout(call: CallArgs) -> Layout | tuple[str, ...] | Default | None:
    """dimension_numbers: DEFAULT for None, strings or a ConvDimensionNumbers; None: unread."""
    if not _passed(call, "dimension_numbers"):
        return DEFAULT
    value = call.arg("dimension_numbers")
    if value == Const(None):
        return DEFAULT
    if not isinstance(value, Seq):
        return None
    texts = [as_str(item) for item in value.items]
    if all(text is not None for text in texts):
        return tuple(text for text in texts if text is not None)
    positions = [_positions(item) for item in value.items]
    if len(positions) == 3 and all(p is not None for p in positions):
        lhs, rhs, out = (p for p in positions if p is not None)
        return Layout(lhs, rhs, out)
    return None


def _positions(value: Value) -> tuple[int, ...] | None:
    if not isinstance(value, Seq):
        return None
    numbers = [as_int(item) for item in value.items]
    return None if any(n is None for n in numbers) else tuple(n for n in numbers if n is not None)


def _layout_value(layout: Layout) -> Seq:
    return Seq(tuple(Seq(tuple(Const(p) for p in spec)) for spec in layout))


def _count(call: CallArgs, name: str) -> Dim:
    return as_dim(call.arg(name)) if _passed(call, name) else 1
