"""jax.scipy.signal's convolutions: convolve, correlate, convolve2d, correlate2d, fftconvolve.
Their rules are `algebra.signal`'s (jnp.convolve's 1-d ones are `algebra.convolution`'s)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import signal
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import finished, labels, passed
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Value, as_str
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

SIGNAL: Final = "jax.scipy.signal"


@REGISTRY.handles(f"{SIGNAL}.convolve", f"{SIGNAL}.correlate",
                  signature="in1, in2, mode='full', method='auto', precision=None")
@REGISTRY.handles(f"{SIGNAL}.convolve2d", f"{SIGNAL}.correlate2d",
                  signature="in1, in2, mode='full', boundary='fill', fillvalue=0, precision=None")
@REGISTRY.handles(f"{SIGNAL}.fftconvolve", signature="in1, in2, mode='full', axes=None")
def convolve(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The N-d convolution (or correlation) of two arrays of one rank, in `mode`."""
    in1, in2 = call.arg("in1"), call.arg("in2")
    # JAX reads `.ndim` of each (a Python number fails there, an AttributeError): arrays only.
    if not isinstance(in1, ArrayType) or not isinstance(in2, ArrayType):
        return None
    written = as_str(call.arg("mode")) if call.given("mode") else "full"
    mode = next((known for known in signal.MODES if known == written), None)
    method = as_str(call.arg("method")) if _accepts(call, "method") and call.given("method") else "auto"
    two_d = call.short_name.endswith("2d")
    if two_d and ((call.given("boundary") and call.arg("boundary") != Const("fill"))
                  or (call.given("fillvalue") and call.arg("fillvalue") != Const(0))):
        return None  # JAX implements boundary='fill', fillvalue=0 only (NotImplementedError): no shape rule
    if mode is None or method not in ("auto", "direct", "fft") or (_accepts(call, "axes") and passed(call, "axes")):
        return None  # a ValueError of its own, not of shapes; fftconvolve's `axes` maps the others: not followed
    fft = method == "fft" or call.short_name == "fftconvolve"
    outcome = signal.convolve(in1, in2, mode, f"jax.scipy.signal.{call.short_name}", fft=fft,
                              rank=2 if two_d else None, labels=labels(call, 2))
    return finished(interp, call, outcome)


def _accepts(call: CallArgs, name: str) -> bool:
    """Whether the API called takes parameter `name` (the registrations here differ in them)."""
    return call.signature is not None and call.signature.accepts(name)
