"""Sharding in types against JAX itself: random programs over explicit meshes (DESIGN.md 3b).

Each example builds a program (`tests/explicit_sharding.py`), runs it on 8 CPU devices and
checks it: no statement JAX runs is reported, and every sharding the checker claims is the one
`jax.typeof` prints. A statement JAX refuses with a ShardingTypeError is reported SC208 (with an
axis of the wrong type SC209) or not at all: the checker may leave a sharding unknown and stay
silent there (a miss, which the benchmark counts), but never names the wrong code. `benchmarks/explicit_sharding.py` runs thousands and prints the
confusion matrix.
"""

from __future__ import annotations

import pytest

pytest.importorskip("jax")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.explicit_sharding import Program, check, describe, judge, program, run


class _Drawn:
    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def choice(self, options):  # type: ignore[no-untyped-def]
        return self.data.draw(st.sampled_from(list(options)))


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_the_checker_agrees_with_jax_on_explicit_sharding(data: st.DataObject) -> None:
    built: Program = program(_Drawn(data))
    ran = run(built)
    judged = judge(built, ran, check(built))
    message = describe(built, judged, ran)
    assert not judged.false_reports, message
    assert not judged.types_wrong, message
    if judged.expected in ("SC208", "SC209"):
        assert judged.reported in (judged.expected, "clean"), message


@pytest.mark.parametrize("seed", range(6))
def test_fixed_programs_agree(seed: int) -> None:
    from tests.explicit_sharding import RandomChooser

    built = program(RandomChooser(seed))
    ran = run(built)
    judged = judge(built, ran, check(built))
    message = describe(built, judged, ran)
    assert not judged.false_reports and not judged.types_wrong, message
    if judged.expected in ("SC208", "SC209"):
        assert judged.reported in (judged.expected, "clean"), message
