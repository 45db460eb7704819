"""The diagnostic codes (DESIGN.md section 4), one enum for every part of shapecheck.

A `StrEnum`, so a member is the string itself: `Code.BROADCAST_MISMATCH == "SC101"`, and JSON,
SARIF and text output, suppression comments and `--select` compare as they did with bare
strings. It imports nothing of shapecheck, so the algebra, the analyzer, the runtime, the mypy
plugin and `rules/` can all use it without an import cycle.
"""

from __future__ import annotations

from enum import StrEnum, unique


@unique
class Code(StrEnum):
    """Every code the engine can emit; each but NOT_CHECKED has a module under `rules/`."""

    NOT_CHECKED = "SC000"  # not a rule: a file that could not be checked at all
    INVALID_ANNOTATION = "SC001"
    INVALID_AXIS_SPEC = "SC002"
    INVALID_EINSUM_SPEC = "SC003"
    SYNTAX_ERROR = "SC004"
    ANALYSIS_LIMIT = "SC005"
    UNUSED_SUPPRESSION = "SC006"
    BROADCAST_MISMATCH = "SC101"
    NAMED_SIZE_MISMATCH = "SC102"
    ANNOTATION_MISMATCH = "SC103"
    CONTRACTION_MISMATCH = "SC104"
    RESHAPE_MISMATCH = "SC105"
    AXIS_OUT_OF_RANGE = "SC106"
    SIZE_ARGUMENT_MISMATCH = "SC107"
    RESOURCE_COOCCURRENCE = "SC201"
    UNBOUND_AXIS_NAME = "SC202"
    UNPLACED_NAMED_AXIS = "SC203"
    EINSUM_NAMED_AXIS_SKIPPED = "SC204"
    MESH_INDIVISIBLE = "SC205"
    UNKNOWN_RESOURCE = "SC206"
    UNREPLICATED_OUTPUT = "SC207"
    SHARDING_TYPE_MISMATCH = "SC208"
    AXIS_TYPE_MISUSE = "SC209"
    VARYING_AXES_MISMATCH = "SC210"
    DTYPE_MISMATCH = "SC301"
