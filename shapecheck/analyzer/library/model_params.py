"""A model's parameters: those `init` makes, and `apply` reading them back (flax.linen, haiku).

`model.init(key, x)` runs the model on `x`, and every parameter it creates takes its shape from
what reaches it (flax's `nn.Dense(16)` and haiku's `hk.Linear(16)` make a kernel of
`(x.shape[-1], 16)`). `model.apply(variables, y)` runs the model again on `y`, and the library
refuses a parameter whose shape `y` would make otherwise than `variables` holds it (flax's
ScopeParamShapeError, haiku's ValueError): the model was initialised on inputs of another size
than it is applied to.

While a model runs for `init` or `apply`, the parameters it creates are logged in order, each
by where it is created (the layer, or the `self.param` / `hk.get_parameter` call) and its name,
with the nth of those told apart by their order: the two runs execute the same code, so the
same key is the same parameter. A function summary reused while a log is kept logs again what
its analysis created (`Invocation.call_function` keeps them with the summary; one made while
nothing was logged is not reused then), so a body called twice logs its parameters twice, as
the library creates them twice. Only parameters both runs know the shape of are compared; a
layer whose parameters are not modelled logs nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.values import Const, Dict, Layer, ParamKey, Value, Variables, as_str
from shapecheck.codes import Code
from shapecheck.dims import Dim, format_shape
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter


Event = tuple[ast.AST, str, str, "ArrayType | None"]
"""One parameter created: where, its name, what it is (for messages), its shape."""


@dataclass(slots=True)
class ParamLog:
    """The parameters one run of a module created, in order."""

    events: list[Event] = field(default_factory=list)
    initializing: bool = False  # a haiku `init`, whose scans unroll their first step
    initializers_run: bool = False  # an `init`: the layers' initializers fill the parameters

    def add(self, site: ast.AST, name: str, what: str, value: Value) -> None:
        self.events.append((site, name, what, value if isinstance(value, ArrayType) else None))

    def keyed(self) -> tuple[tuple[ParamKey, str, ArrayType | None], ...]:
        """Each parameter by its key: the nth created at one site under one name is the nth."""
        seen: dict[tuple[int, str], int] = {}
        made = []
        for site, name, what, shape in self.events:
            count = seen.get((id(site), name), 0)
            seen[(id(site), name)] = count + 1
            made.append(((id(site), name, count), what, shape))
        return tuple(made)


@contextmanager
def logged(interp: Interpreter, *, initializing: bool = False, initializers_run: bool = False) -> Iterator[ParamLog]:
    """Log the parameters created until the block ends (a module run inside another's logs into
    its own, and the outer log goes on after it); `initializing`: the run is a haiku `init`."""
    outer = interp.params_log
    log = interp.params_log = ParamLog(initializing=initializing, initializers_run=initializers_run)
    try:
        yield log
    finally:
        interp.params_log = outer


def created(interp: Interpreter, site: ast.AST, name: str, what: str, value: Value) -> None:
    """A parameter `name` of shape `value` created at `site`, where a run is being logged."""
    log = interp.params_log
    if log is not None:
        log.add(site, name, what, value)


def layer_created(interp: Interpreter, layer: Layer, library: str, params: dict[str, tuple[Dim, ...] | None],
                  prefix: str = "") -> None:
    """The parameters a layer creates when called: each of `params` that is not None, a float32
    array of those dims, named `prefix` + its name and shown as the layer's (`nn.Dense`, `hk.Linear`)."""
    if interp.params_log is None:
        return
    where = f"{library}.{layer.name.rpartition('.')[2]} (line {getattr(layer.node, 'lineno', '?')})"
    for name, dims in params.items():
        if dims is not None:
            created(interp, layer.node, f"{prefix}{name}", f"parameter `{prefix}{name}` of {where}",
                    ArrayType("f32", dims))


def made(log: ParamLog, node: ast.AST) -> Variables | None:
    """The variables an `init` at `node` returns, or None where its run created nothing known."""
    if not any(shape is not None for _, _, _, shape in log.events):
        return None
    return Variables(log.keyed(), node)


def given(value: Value) -> Variables | None:
    """The variables handed to `apply`: what `init` returned, or a dict whose "params" entry is
    its parameters (flax's `{'params': variables['params']}`)."""
    if isinstance(value, Variables):
        return value
    if isinstance(value, Dict):
        for key, item in value.items:
            if as_str(key) == "params" and isinstance(item, Variables):
                return item
    return None


def collection(variables: Variables, key: Value) -> Value:
    """`variables['params']`: the parameters; any other collection is not modelled."""
    return variables if isinstance(key, Const) and key.value == "params" else None


def check(interp: Interpreter, variables: Variables, log: ParamLog, call: CallArgs,
          refusal: str = "flax refuses the variables (ScopeParamShapeError)") -> None:
    """SC103 at `apply` for the first parameter its inputs make of another shape than the
    variables hold: the library stops there, with `refusal`."""
    held = {key: (what, shape) for key, what, shape in variables.params}
    for key, what, shape in log.keyed():
        before = held.get(key)
        if before is None or before[1] is None or shape is None:
            continue
        if _differ(before[1], shape):
            line = getattr(variables.node, "lineno", None)
            where = f" (line {line})" if line is not None else ""
            interp.reporter.add(
                call.node, Code.ANNOTATION_MISMATCH,
                f"apply: {what} has shape {format_shape(before[1].dims)} in the parameters `init` made{where}, "
                f"but this call's inputs make it {format_shape(shape.dims)}; {refusal}: the model was "
                "initialised on inputs of another shape")
            return


def _differ(held: ArrayType, made: ArrayType) -> bool:
    """Whether two parameter shapes certainly differ."""
    if held.ellipsis is not None or made.ellipsis is not None:
        return False
    if len(held.dims) != len(made.dims):
        return True
    return any(isinstance(a, int) and isinstance(b, int) and a != b for a, b in zip(held.dims, made.dims, strict=True))
