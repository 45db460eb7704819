"""What differentiation asks of the function it differentiates, beyond shapes of its own.

With `has_aux=True`, `jax.grad`, `value_and_grad`, `vjp` and `jacrev` require the function to
return a pair `(output, aux)`: a tuple or list of two (JAX's TypeError "expected function with
aux output to return a two-element tuple"). `jax.jvp`, `jacfwd` and flax.nnx's gradients
instead unpack what it returns into two, which fails for anything but a pair too, except an
array of 2 rows, which unpacks (and then fails, or not, depending on what the rows are computed
from: not reported), and a dict of two keys (unpacked into its keys: not reported either).
"""

from __future__ import annotations

from shapecheck.algebra.control_flow import Node, Tree, describe
from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import certainly_differ
from shapecheck.types import ArrayType


def aux_pair(api: str, output: Tree, *, unpacked: bool = False) -> Problem | None:
    """SC103 where `output`, what a function differentiated by `api` with `has_aux=True`
    returns, is certainly not a pair; `unpacked` for the APIs that unpack it (`jvp`, `jacfwd`,
    `nnx.grad`).
    None where it is one, or may be: an unknown value, a class's instance (a NamedTuple of two
    is a pair), None."""
    if isinstance(output, ArrayType):
        # An array of 2 rows (or of rows not known) unpacks into two.
        refused = not unpacked or (output.ellipsis is None and (not output.dims or certainly_differ(output.dims[0], 2)))
    elif isinstance(output, Node):
        # A dict is no tuple; unpacked, it gives its keys, which may be two.
        refused = (output.kind in ("tuple", "list") and len(output.items) != 2) or (
            output.kind == "dict" and not unpacked)
    else:
        refused = False
    if not refused:
        return None
    refusal = "it is unpacked into two: 'cannot unpack', 'too many values to unpack'" if unpacked else \
        "JAX: 'expected function with aux output to return a two-element tuple'"
    return Problem(Code.ANNOTATION_MISMATCH, (
        f"{api} with has_aux=True differentiates a function that returns a pair (output, aux), but this one returns "
        f"{describe(output)} ({refusal}); return `(output, aux)`, or drop has_aux"))
