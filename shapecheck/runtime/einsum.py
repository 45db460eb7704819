"""einsum with `{named}` braces, parsed by the checker's parser and run as a positional einsum.

Named axes that stay in the output are left to vmap (they batch the contraction); named axes
that the output drops are gathered into fresh positional letters and contracted by
`jnp.einsum`, so the contraction is one dot_general, as with positional code.
"""

from __future__ import annotations

import string
from typing import Any

import jax.numpy as _jnp

from shapecheck.algebra.einsum import ELLIPSIS, EinsumSpec, Term, operand_count, parse_einsum
from shapecheck.algebra.outcome import Problem
from shapecheck.runtime.axes import gather
from shapecheck.runtime.boundary import boundary
from shapecheck.runtime.errors import NamedAxisError


@boundary
def einsum(subscripts: Any, *operands: Any, **kwargs: Any) -> Any:
    """`jax.numpy.einsum`, with named axes in braces: `'n{b,k},{k,m}->n{b,m}'`."""
    if not isinstance(subscripts, str) or "{" not in subscripts:
        return _jnp.einsum(subscripts, *operands, **kwargs)
    spec = parse_einsum(subscripts)
    if isinstance(spec, Problem):
        raise NamedAxisError(spec.code, spec.message, (spec,))
    miscount = operand_count(spec, len(operands))
    if miscount is not None:
        raise NamedAxisError(miscount.code, miscount.message, (miscount,))
    output = spec.output or _implicit_output(spec)
    kept = set(output.names or ())
    used = {letter for term in (*spec.inputs, output) for letter in term.letters}
    fresh = iter(c for c in string.ascii_letters if c not in used)
    letter_of: dict[str, str] = {}
    terms: list[str] = []
    gathered: list[Any] = []
    for term, operand in zip(spec.inputs, operands, strict=True):
        contracted = tuple(name for name in term.names or () if name not in kept)
        for name in contracted:
            letter_of.setdefault(name, next(fresh))
        terms.append("".join(letter_of[n] for n in contracted) + _letters(term))
        gathered.append(gather(_jnp.asarray(operand), contracted))
    positional = ",".join(terms) + "->" + _letters(output)
    return _jnp.einsum(positional, *gathered, **kwargs)


def _letters(term: Term) -> str:
    return "".join(term.letters)


def _implicit_output(spec: EinsumSpec) -> Term:
    """NumPy's rule for a spec without `->`, extended to names: what appears once is kept."""
    letters = [x for term in spec.inputs for x in term.letters if x != ELLIPSIS]
    names = [n for term in spec.inputs for n in term.names or ()]
    kept = sorted(x for x in set(letters) if letters.count(x) == 1)
    if any(term.has_ellipsis for term in spec.inputs):
        kept.insert(0, ELLIPSIS)
    return Term(tuple(kept), tuple(sorted(n for n in set(names) if names.count(n) == 1)))
