"""The annotation text for an inferred type, and the import its dtype name needs.

Shared by `shapecheck annotate` and any front end that offers to insert an inferred type (the
language server's code action): a type is written only when every part of it is known, since
an annotation with a guessed part would turn the checker's gradual "unknown" into a claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from shapecheck.annotation import JAXTYPING_DTYPES
from shapecheck.dtypes import DTYPE_NAMES
from shapecheck.types import ArrayType

SHAPECHECK_MODULE: Final = "shapecheck"
JAXTYPING_MODULE: Final = "jaxtyping"

# jaxtyping's name for each dtype of ours (`Float32` for f32): the inverse of what the
# analyzer reads, so a written annotation reads back as the same type.
JAXTYPING_NAMES: Final = {ours: theirs for theirs, ours in JAXTYPING_DTYPES.items() if ours is not None}


# The names jax's PartitionSpec is imported under that a sharding annotation may use, and the
# modules it is imported from.
SPEC_NAMES: Final = frozenset(("P", "PartitionSpec"))
_SPEC_MODULES: Final = frozenset(("jax", "jax.sharding", "jax.experimental"))


def is_partition_spec(meaning: str | None, name: str) -> bool:
    """Whether an import of `meaning` (the module, or `module.name` for `from module import
    name as ...`) binds `name` to jax's PartitionSpec (`from jax import P`, `from jax.sharding
    import PartitionSpec as P`)."""
    if meaning is None:
        return False
    if meaning in _SPEC_MODULES:
        return name in SPEC_NAMES  # imported under its own name
    module, _, original = meaning.rpartition(".")
    return module in _SPEC_MODULES and original in SPEC_NAMES


@dataclass(frozen=True, slots=True)
class Annotation:
    """`text` to write, and the name it needs bound: `from {module} import {name}`."""

    text: str
    module: str
    name: str


def fully_known(value: ArrayType) -> bool:
    """Known dtype, every size a known int, exact rank, and exactly these named axes."""
    sizes = [*value.dims, *(size for _, size in value.named)]
    return (value.dtype in DTYPE_NAMES and not value.weak and value.ellipsis is None
            and not value.named_open and all(type(size) is int for size in sizes))


def annotation_for(value: ArrayType, spec: str | None = None) -> Annotation | None:
    """`f32[(5, 7), {'batch': 20}]` (or `f32[(5, 7)]` without named axes); None unless fully known.

    With `spec`, the name the module binds jax's PartitionSpec to, a value whose split over
    Explicit mesh axes is known gets it too: `f32[(8, 16), P('X', 'Y')]` for `float32[8@X,16@Y]`.
    An unsplit or unknown sharding is left out (a missing sharding claims nothing)."""
    if not fully_known(value) or value.dtype is None:
        return None
    return Annotation(annotation_text(value, spec), SHAPECHECK_MODULE, value.dtype)


def annotation_text(value: ArrayType, spec: str | None) -> str:
    """`value` in the annotation language, with its known split over Explicit mesh axes where
    `spec` names jax's PartitionSpec in the module (else without: an annotation is evaluated at
    module level, where an unbound `P` would raise)."""
    text = str(value.with_sharding(None))
    sharding = value.sharding
    if spec is not None and sharding is not None and sharding.known and sharding.split:
        text = f"{text[:-1]}, {spec}{sharding.spec_text()[1:]}]"
    return text


def jaxtyping_annotation_for(value: ArrayType, array: str = "Array") -> Annotation | None:
    """`Float32[Array, "5 7"]` for files written with jaxtyping; None with named axes (jaxtyping
    has none) or unless fully known. `array` is the name the file binds jax's Array class to."""
    if not fully_known(value) or value.named or value.dtype is None:
        return None
    name = JAXTYPING_NAMES.get(value.dtype)
    if name is None:
        return None
    dims = " ".join(str(size) for size in value.dims)
    return Annotation(f'{name}[{array}, "{dims}"]', JAXTYPING_MODULE, name)
