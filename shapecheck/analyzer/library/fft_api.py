"""`jnp.fft`: the one-axis transforms (`fft`, `ifft`, `rfft`, `irfft`, `hfft`, `ihfft`), the
two-axis and n-axis ones (`fft2`, `fftn` and their inverse and real forms), `fftshift`,
`ifftshift`, `fftfreq` and `rfftfreq`. Shapes by `algebra.fourier`; axes and lengths that are
not literal ints leave the result unknown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shapecheck.algebra import fourier
from shapecheck.algebra.fourier import Kind
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, axes, axes_within, finished, shape
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Value, as_int
from shapecheck.dims import Dim
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

FFT: Final = f"{JNP}.fft"
_KINDS: Final[dict[str, Kind]] = {
    "fft": "c2c", "ifft": "c2c", "rfft": "r2c", "ihfft": "r2c", "irfft": "c2r", "hfft": "c2r",
    "fft2": "c2c", "ifft2": "c2c", "rfft2": "r2c", "irfft2": "c2r",
    "fftn": "c2c", "ifftn": "c2c", "rfftn": "r2c", "irfftn": "c2r",
}


@REGISTRY.handles(*each(FFT, "fft", "ifft", "rfft", "irfft", "hfft", "ihfft"), signature="a, n=None, axis=-1, norm=None")
def one_axis(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("a"))
    n = _optional_int(call, "n")
    axis = as_int(call.arg("axis")) if call.given("axis") else -1
    if value is None or n is False or axis is None or _complex_into_real(value, call.short_name):
        return None
    return finished(interp, call, fourier.transform(value, (axis,), (n,), _KINDS[call.short_name], _name(call)))


@REGISTRY.handles(*each(FFT, "fft2", "ifft2", "rfft2", "irfft2"), signature="a, s=None, axes=(-2, -1), norm=None")
@REGISTRY.handles(*each(FFT, "fftn", "ifftn", "rfftn", "irfftn"), signature="a, s=None, axes=None, norm=None")
def several_axes(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("a"))
    if value is None or value.ellipsis is not None or _complex_into_real(value, call.short_name):
        return None
    lengths = None
    if call.given("s") and call.arg("s") != Const(None):
        lengths = shape(call.arg("s"))
        if lengths is None:
            return None
    read: tuple[int, ...] | None
    if call.given("axes") and call.arg("axes") != Const(None):
        found = axes(call.arg("axes"))
        if not isinstance(found, tuple) or not all(isinstance(a, int) for a in found):
            return None
        read = tuple(a for a in found if isinstance(a, int))
    elif call.short_name.endswith("2"):
        read = (-2, -1)
    else:  # fftn: the last len(s) axes, or all of them
        count = len(lengths) if lengths is not None else len(value.dims)
        # A 0-d array: no axis, only the dtype changes (c2c; the real forms are not followed).
        read = tuple(range(-count, 0)) if count or _KINDS[call.short_name] == "c2c" else None
    if read is None or (lengths is not None and len(lengths) != len(read)):
        return None  # a transform over no axis, or s and axes of two lengths: not followed
    return finished(interp, call, fourier.transform(value, read, lengths, _KINDS[call.short_name], _name(call)))


@REGISTRY.handles(*each(FFT, "fftshift", "ifftshift"), signature="x, axes=None")
def shift(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = array(call.arg("x"))
    if value is None or not axes_within(interp, call, value, _name(call), name="axes"):
        return None
    return value


@REGISTRY.handles(*each(FFT, "fftfreq", "rfftfreq"), signature="n, d=1.0, *, dtype=None, device=None")
def frequencies(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    n = as_int(call.arg("n"))
    if call.given("dtype") and call.arg("dtype") != Const(None):
        return None  # a dtype of its own: not followed
    return fourier.frequencies(n, call.short_name == "rfftfreq")


def _optional_int(call: CallArgs, name: str) -> Dim | bool:
    """An optional int argument: its value, None when not given, False when not known."""
    if not call.given(name) or call.arg(name) == Const(None):
        return None
    found = as_int(call.arg(name))
    return False if found is None else found


def _complex_into_real(value: ArrayType, name: str) -> bool:
    """rfft and its kin take real input only (JAX: ValueError): not followed."""
    return _KINDS[name] == "r2c" and kind_of(value.dtype) == "c"


def _name(call: CallArgs) -> str:
    return f"jnp.fft.{call.short_name}"

