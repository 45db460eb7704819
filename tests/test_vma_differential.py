"""Varying manual axes against JAX 0.10 (SC210): random shard_map bodies over random meshes,
in_specs, partial `axis_names=`, `check_vma=`, collectives and `lax.pcast`, with loops and
branches whose carries and outputs may vary over other axes than they should
(`tests/vma_programs.py`). JAX traces each (no compile); the checker must report SC210 exactly
where JAX refuses the program for its varying axes, and nothing where JAX accepts it. And every
fix the checker offers makes the program run."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.vma_programs import Program, checked, fixed, verdict

pytest.importorskip("jax")

SETTINGS = settings(max_examples=100, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def programs(draw: st.DrawFn) -> str:
    return Program(lambda options: draw(st.sampled_from(list(options)))).source()


@SETTINGS
@given(programs())
def test_the_checker_refuses_what_jax_refuses_for_its_varying_axes(source: str) -> None:
    jax_says, error = verdict(source)
    assert jax_says != "other", f"the generator made a program JAX refuses for another reason: {error}\n{source}"
    we_say, found = checked(source)
    assert we_say == jax_says, f"JAX: {jax_says} {error}\nchecker: {we_say} {found}\n{source}"


@settings(SETTINGS, max_examples=30)
@given(programs())
def test_every_fix_makes_the_program_run(source: str) -> None:
    if checked(source)[0] != "vma":
        return
    after = fixed(source)
    assert checked(after)[0] in ("ok", "vma"), after
    if checked(after)[0] == "ok":
        assert verdict(after)[0] == "ok", f"the fixed program does not run:\n{after}"
