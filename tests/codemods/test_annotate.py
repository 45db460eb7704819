"""`shapecheck annotate` on its input programs: the expected output, a second run changing
nothing, and the annotated program checking exactly as the original did."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapecheck.codemods.annotate import annotate_text
from shapecheck.codemods.annotations import annotation_for, jaxtyping_annotation_for
from shapecheck.codemods.driver import CannotRewrite, rewrite_text
from shapecheck.dims import Sym
from shapecheck.engine import Engine
from shapecheck.types import ArrayType

from .snapshots import EXAMPLES, assert_snapshot, found, programs

PROGRAMS = programs("annotate")


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def test_there_are_ten_programs() -> None:
    assert len(PROGRAMS) >= 10


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_annotates_as_recorded(program: Path, engine: Engine) -> None:
    assert_snapshot("annotate", program, annotate_text(str(program), program.read_text(), engine).text)


@pytest.mark.parametrize("program", PROGRAMS + sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.stem)
def test_round_trip_checks_the_same_and_is_idempotent(program: Path, engine: Engine) -> None:
    text = program.read_text()
    annotated = annotate_text(str(program), text, engine).text
    assert found(engine.analyze(str(program), annotated).diagnostics) == found(
        engine.analyze(str(program), text).diagnostics)
    assert annotate_text(str(program), annotated, engine).text == annotated


def _annotated(source: str, engine: Engine) -> str:
    return annotate_text("t.py", source, engine).text


def test_named_axes_are_written_in_the_annotation_language(engine: Engine) -> None:
    text = (PROGRAMS[0].parent / "a02_named_axes.py").read_text()
    annotated = _annotated(text, engine)
    assert "logits: f32[(), {'batch': 8, 'heads': 2, 'keys': 6}] = " in annotated
    assert ") -> f32[(), {'batch': 8, 'heads': 2}]:" in annotated
    assert "pooled: f32[(8, 2)] = xmap(" in annotated


def test_nothing_unknown_is_written(engine: Engine) -> None:
    text = (PROGRAMS[0].parent / "a06_unknown_left_alone.py").read_text()
    annotated = _annotated(text, engine)
    # Only the module-level result of a fully known call; never the generic body, data-sized
    # values, unknown dtypes or `Array`-typed parameters' results.
    assert [line for line in annotated.splitlines() if ": f32[" in line and "def " not in line] == [
        "generic_out: f32[(4, 3)] = generic(jnp.ones((4, 3), dtype=jnp.float32))"]


def test_a_name_bound_to_something_else_is_not_used_and_said(engine: Engine) -> None:
    program = PROGRAMS[0].parent / "a08_shadowed_name.py"
    rewrite = annotate_text(str(program), program.read_text(), engine)
    assert "x = jnp.ones((2, 3), dtype=f32)" in rewrite.text
    # The line of the file as it was (the annotated one has an import line more).
    assert rewrite.messages == ["line 7: not annotated with f32[(2, 3)]: the module binds `f32` to something else"]


def test_parameters_only_from_calls_in_view(engine: Engine) -> None:
    annotated = _annotated((PROGRAMS[0].parent / "a05_private_parameters.py").read_text(), engine)
    assert "def _scale(x: f32[(3,)], factor: f32[(3,)]) -> f32[(3,)]:" in annotated
    assert "def _pad(x):" in annotated  # two shapes, and passed around as a value
    assert "def public(x):" in annotated  # other modules may call it


def test_a_file_that_does_not_parse_is_refused(engine: Engine) -> None:
    with pytest.raises(CannotRewrite, match="does not parse"):
        rewrite_text("t.py", "x = (\n", lambda path, text: annotate_text(path, text, engine))


def test_annotation_text_only_for_fully_known_types() -> None:
    assert annotation_for(ArrayType.of("f32", (5, 7), {"batch": 20})).text == "f32[(5, 7), {'batch': 20}]"  # type: ignore[union-attr]
    assert annotation_for(ArrayType.of("i32", ())).text == "i32[()]"  # type: ignore[union-attr]
    assert annotation_for(ArrayType.of(None, (5,))) is None
    assert annotation_for(ArrayType.of("f32", (None,))) is None
    assert annotation_for(ArrayType.of("f32", (Sym("n"),))) is None
    assert annotation_for(ArrayType.of("f32", (5,), ellipsis=0)) is None
    assert annotation_for(ArrayType.of("f32", (5,), named_open=True)) is None
    assert jaxtyping_annotation_for(ArrayType.of("f32", (8, 10))).text == 'Float32[Array, "8 10"]'  # type: ignore[union-attr]
    assert jaxtyping_annotation_for(ArrayType.of("f32", (), {"b": 2})) is None


def test_a_caller_below_its_private_callee_counts(engine: Engine) -> None:
    source = ("import jax.numpy as jnp\nfrom shapecheck import f32\n\n\ndef _helper(u):\n    return u * 2\n\n\n"
              "def main(v: f32[(2,)]):\n    return _helper(v)\n")
    annotated = _annotated(source, engine)
    assert "def _helper(u: f32[(2,)]) -> f32[(2,)]:" in annotated
    assert "def main(v: f32[(2,)]) -> f32[(2,)]:" in annotated


def test_a_name_bound_further_down_is_not_used_above(engine: Engine) -> None:
    source = ("import jax.numpy as jnp\n\nx = jnp.ones((2,), dtype=jnp.float32)\n"
              "from shapecheck import f32\ny = jnp.ones((3,), dtype=jnp.float32)\n")
    rewrite = annotate_text("t.py", source, engine)
    assert "\nx = jnp.ones(" in rewrite.text  # f32 does not exist yet on that line
    assert "\ny: f32[(3,)] = jnp.ones(" in rewrite.text
    assert rewrite.messages == ["line 3: not annotated with f32[(2,)]: the module binds `f32` only further down"]


def test_an_annotation_that_would_add_a_diagnostic_is_refused(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    import shapecheck.codemods.annotate as annotate_module
    from shapecheck.codemods.annotations import Annotation

    real_plan = annotate_module.plan

    def wrong_plan(*args: object, **kwargs: object) -> annotate_module.Plan:
        planned = real_plan(*args, **kwargs)  # type: ignore[arg-type]
        planned.assignments = {node: Annotation("f32[(9,)]", "shapecheck", "f32") for node in planned.assignments}
        return planned

    monkeypatch.setattr(annotate_module, "plan", wrong_plan)
    with pytest.raises(CannotRewrite, match="would add 1 diagnostic"):
        annotate_text("t.py", "import jax.numpy as jnp\nx = jnp.ones((2,), dtype=jnp.float32)\n", engine)
