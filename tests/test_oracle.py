"""JAX as the oracle for every map, spec and collective the checker models (tests/oracle.py):
generated programs over vmap/pmap, shard_map, jit, the shardings and the collectives, each run
on JAX with 8 CPU devices and checked in this process. Nothing JAX runs may be reported, and
nothing it refuses missed. `benchmarks/oracle.py` runs thousands and prints the confusion matrix.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracle import (
    Program,
    indexing_programs,
    jit_programs,
    judge,
    shard_map_programs,
    sharding_programs,
    unbound_programs,
    vmap_programs,
)

pytest.importorskip("jax")

_COUNT = os.environ.get("SHAPECHECK_ORACLE_EXAMPLES")
ORACLE = settings(max_examples=int(_COUNT or 30), deadline=None, derandomize=_COUNT is None, database=None,
                  suppress_health_check=list(HealthCheck))


def agree(program: Program) -> None:
    verdict = judge(program)
    assert verdict.cell in ("accepted", "caught"), str(verdict)


@ORACLE
@given(vmap_programs())
def test_vmap(program: Program) -> None:
    agree(program)


@ORACLE
@given(vmap_programs(pmap=True))
def test_pmap(program: Program) -> None:
    agree(program)


@settings(ORACLE, max_examples=int(_COUNT or 60))
@given(shard_map_programs())
def test_shard_map_and_collectives(program: Program) -> None:
    agree(program)


@ORACLE
@given(jit_programs())
def test_jit_shardings(program: Program) -> None:
    agree(program)


@ORACLE
@given(sharding_programs())
def test_named_sharding_device_put_constraints_reshard(program: Program) -> None:
    agree(program)


@ORACLE
@given(unbound_programs())
def test_unbound_axis_names(program: Program) -> None:
    agree(program)


@ORACLE
@given(indexing_programs())
def test_indexing(program: Program) -> None:
    agree(program)


@pytest.mark.parametrize("strategy", [vmap_programs(), shard_map_programs(), jit_programs()])
def test_the_strategies_make_programs_jax_runs_and_programs_it_refuses(strategy: st.SearchStrategy[Program]) -> None:
    # An oracle that only ever refuses (or only runs) tests half of precision.
    cells = set()

    @settings(max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(program: Program) -> None:
        cells.add(judge(program).refused is None)

    collect()
    assert cells == {True, False}
