"""The fixtures of varying manual axes (`fixtures/vma_*.py`: a ring all-reduce, a pipeline-parallel
loop, a sequence-parallel RNN, each clean and with the classic mistakes) against JAX: the clean
ones run, the wrong ones JAX refuses for their varying axes, and once `check --fix` has applied
the checker's fixes they check clean and run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.vma_programs import checked, fixed, verdict

pytest.importorskip("jax")

FIXTURES = sorted((Path(__file__).resolve().parent.parent / "fixtures").glob("vma_*.py"))


def test_there_are_the_three_programs_clean_and_wrong() -> None:
    names = {path.stem for path in FIXTURES}
    for program in ("ring_allreduce", "pipeline", "sequence_rnn"):
        assert any(program in name and name.endswith("_ok") for name in names), program
        assert any(program in name and not name.endswith("_ok") for name in names), program


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_jax_agrees_and_every_fix_makes_the_program_run(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    jax_says, error = verdict(source)
    if path.stem.endswith("_ok"):
        assert jax_says == "ok", error
        return
    assert jax_says == "vma", error
    after = fixed(source)
    assert checked(after) == ("ok", []), after
    assert verdict(after) == ("ok", ""), after


def test_the_rule_fix_turns_its_wrong_example_into_its_fixed_one() -> None:
    from shapecheck.rules import get_rule

    rule = get_rule("SC210")
    assert rule is not None
    assert fixed(rule.wrong.source) == rule.fixed.source
    assert verdict(rule.fixed.source) == ("ok", "")
