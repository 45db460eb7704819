"""The promotion algebra against JAX itself: every pair of dtypes and weak Python scalars, in both
x64 modes (x64 on in a subprocess), for result_type, the operators, unary math, reductions,
astype, dot with and without preferred_element_type, constructors and random functions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from shapecheck.algebra import promotion as P
from shapecheck.algebra.promotion import Typed
from shapecheck.dtypes import CATEGORIES, DTYPE_NAMES, narrowed
from tests.algebra import promotion_oracle as oracle

ROOT = Path(__file__).resolve().parents[2]

WEAK = {"weak:int": Typed("i64", True), "weak:float": Typed("f64", True), "weak:complex": Typed("c128", True)}


def operand(name: str) -> Typed:
    return WEAK.get(name, Typed(name))


def ours(case: str) -> Typed:
    """The algebra's answer for one oracle case, in its x64 representation."""
    op, *names = case.split(" ")
    if op == "fn":
        module, name, dtype = names
        return P.function(name, [operand(dtype)] * (2 if module.endswith(":2") else 1))
    args = [operand(n) for n in names]
    unary: dict[str, Callable[[Typed], Typed]] = {
        "sqrt": P.inexact, "exp": P.inexact, "tanh": P.inexact, "negative": lambda t: t,
        "abs": P.real, "floor": lambda t: t, "isnan": P.comparison}
    constant = {
        "ones": P.default("f"), "arange int": P.default("i"), "arange float": P.default("f"),
        "eye": P.default("f"), "linspace": P.default("f"),
        "array ints": P.array_literal([P.python_scalar(1), P.python_scalar(2)]),
        "array floats": P.array_literal([P.python_scalar(1), P.python_scalar(2.0)]),
        "array bools": P.array_literal([P.python_scalar(True)]),
        "array scalar": P.python_scalar(1), "full int": P.python_scalar(1), "full float": P.python_scalar(1.0),
        "random normal": P.default("f"), "random uniform": P.default("f"), "random randint": P.default("i"),
        "random bernoulli": P.BOOL, "random categorical": P.default("i"),
    }
    if case in constant:
        return constant[case]
    if op in ("result_type", "add"):
        return P.result_type(*args)
    if op == "true_divide":
        return P.true_divide(*args)
    if op in unary:
        return unary[op](args[0])
    if op in oracle.REDUCTIONS:
        return P.reduction(op, args[0])
    if op == "astype" or op == "zeros":
        return P.requested(names[0])
    if op == "dot":
        return P.contraction(*args)
    if op == "dot_preferred":
        return P.contraction(args[0], args[0], preferred=names[1])
    raise AssertionError(case)


def compare(answers: dict[str, tuple[str, bool] | None], x64: bool) -> tuple[list[str], list[str]]:
    """Cases where the algebra contradicts JAX, and those it leaves unknown."""
    wrong: list[str] = []
    unknown: list[str] = []
    for case, answer in answers.items():
        mine = ours(case)
        if answer is None:
            continue  # JAX refuses (e.g. abs of a Python bool is fine, but some ops reject dtypes)
        if mine.dtype is None:
            unknown.append(case)
            continue
        dtype = mine.dtype if x64 else narrowed(mine.dtype)
        # `add`, `result_type` ... report weak flags; jnp functions of strong operands never
        # make weak results, and a bool is never weak.
        # A bool's weak flag means nothing to promotion (JAX's own join drops it). Where JAX is
        # strong the algebra may say weak (admitting more, never less): a few functions of weak
        # scalars (log2, gelu, ...) make strong results.
        weak_wanted = answer[1] and answer[0] != "bool_"
        if dtype != answer[0] or (weak_wanted and not mine.weak) or (mine.weak and not weak_wanted
                                                                     and not case.startswith("fn ")):
            wrong.append(f"{case}: algebra {dtype}{'*' if mine.weak else ''}, jax {answer}")
    return wrong, unknown


def assert_unknown_only_for_uint64_with_signed_ints(unknown: list[str]) -> None:
    # Where x64 on and off disagree beyond the width (u64 with i8..i64: a weak f64 with x64,
    # i32 without), the algebra claims nothing.
    signed = {"i8", "i16", "i32", "i64"}
    # And jax.nn activations of ints whose dtype follows their implementation (relu6, leaky_relu...).
    activations = [case for case in unknown if case.startswith("fn jax.nn ")]
    assert all(case.split(" ")[3] in ("bool_", "i8", "u8", "i32", "i64", "weak:int") for case in activations)
    for case in set(unknown) - set(activations):
        names = set(case.split(" ")[1:])
        assert "u64" in names and names & signed, case
    assert len(unknown) - len(activations) == 3 * 2 * 4 + 2 * 4  # result_type, add, true_divide both ways; dot one way


def test_the_oracle_covers_every_pair() -> None:
    assert len(oracle.cases()) > 3 * len(oracle.OPERANDS) ** 2
    assert len(set(oracle.cases())) == len(oracle.cases())


def test_matches_jax_with_x64_off() -> None:
    pytest.importorskip("jax")
    answers = oracle.answers()
    wrong, unknown = compare(answers, x64=False)
    assert not wrong, "\n".join(wrong)
    assert_unknown_only_for_uint64_with_signed_ints(unknown)


def test_matches_jax_with_x64_on() -> None:
    pytest.importorskip("jax")
    env = {**os.environ, "JAX_ENABLE_X64": "1", "JAX_PLATFORMS": "cpu"}
    run = subprocess.run([sys.executable, "-m", "tests.algebra.promotion_oracle"], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True, timeout=600)
    answers = {case: (tuple(a) if a is not None else None) for case, a in json.loads(run.stdout).items()}
    wrong, unknown = compare(answers, x64=True)  # type: ignore[arg-type]
    assert not wrong, "\n".join(wrong)
    assert_unknown_only_for_uint64_with_signed_ints(unknown)


@pytest.mark.parametrize(("a", "b", "want"), [
    ("u8", "weak:int", Typed("u8")),  # a Python int keeps the array's width
    ("f16", "weak:float", Typed("f16")),
    ("i32", "weak:float", Typed("f64", True)),  # an int array times 0.5: a weak default float
    ("bf16", "f16", Typed("f32")),
    ("u32", "i32", Typed("i64")),  # narrowed with x64 off: i32, as JAX's x32 lattice gives
    ("bool_", "weak:int", Typed("i64", True)),
    ("weak:int", "weak:float", Typed("f64", True)),
])
def test_documented_pairs(a: str, b: str, want: Typed) -> None:
    assert P.result_type(operand(a), operand(b)) == want
    assert P.result_type(operand(b), operand(a)) == want


def test_unknown_stays_unknown() -> None:
    assert P.result_type(Typed(None), Typed("f32")) == P.UNKNOWN
    assert P.result_type(Typed("Float"), Typed("f32")) == P.UNKNOWN  # a jaxtyping category
    assert P.result_type() == P.UNKNOWN
    assert P.inexact(Typed(None)) == P.UNKNOWN
    assert P.reduction("mean", Typed(None)) == P.UNKNOWN
    assert P.reduction("argmax", Typed(None)) == Typed("i64")  # whatever the input
    assert P.reduction("unheard_of", Typed("f32")) == P.UNKNOWN
    assert P.requested("Float") == P.UNKNOWN


def test_uint64_with_signed_ints_is_unknown() -> None:
    # x64 on: a weak f64; x64 off (u32 with i32): i32. Neither is assumed.
    assert P.result_type(Typed("u64"), Typed("i8")) == P.UNKNOWN


def test_admits_strong_dtypes_per_mode() -> None:
    f64 = Typed("f64")  # jnp.ones(3): f32 with x64 off, f64 with it on
    assert P.admits("f32", f64) and P.admits("f64", f64)
    assert not P.admits("f32", f64, x64=True)
    assert not P.admits("f64", f64, x64=False)
    assert not P.admits("i32", f64)
    assert not P.admits("f16", f64)
    assert P.admits(None, f64) and P.admits("f32", P.UNKNOWN)
    assert not P.admits("f64", Typed("f32"))  # an explicit f32 stays f32 in both modes


def test_weak_values_adapt() -> None:
    weak_int, weak_float = Typed("i64", True), Typed("f64", True)
    for declared in ("i8", "u8", "i32", "f16", "bf16", "f32", "c64"):
        assert P.admits(declared, weak_int), declared
    assert not P.admits("bool_", weak_int)
    assert P.admits("f16", weak_float) and P.admits("c64", weak_float)
    assert not P.admits("i32", weak_float)  # `jnp.arange(3) * 0.5` is never an int
    assert not P.admits("Int", weak_float)


def test_categories() -> None:
    assert CATEGORIES["Float"] == {"f16", "bf16", "f32", "f64"}
    assert CATEGORIES["Integer"] == CATEGORIES["Int"] | CATEGORIES["UInt"]
    assert P.admits("Float", Typed("bf16"))
    assert not P.admits("Float", Typed("i64"))
    assert not P.admits("Int", Typed("u8")) and P.admits("Integer", Typed("u8"))
    assert P.admits("Inexact", Typed("c64"))
    assert not P.admits("Int", Typed("Float"))  # a category carried by a value
    assert P.admits("f32", Typed("Float"))


def test_messages_name_both_dtypes_and_the_operation() -> None:
    text = P.mismatch_message("the return value", "i32", Typed("f64"), "`jnp.ones(3)`")
    assert text == ("the return value has dtype f32 (f64 with jax_enable_x64) from `jnp.ones(3)` "
                    "but is declared i32 (cast with .astype(jnp.int32) if that is intended)")
    assert P.mismatch_message("`y`", "Float", Typed("i32")) == "`y` has dtype i32 but is declared Float"
    assert P.shown(Typed("f64"), x64=True) == "f64"
    assert P.shown(Typed("f64", True), x64=False) == "weakly typed f32"
    assert all(narrowed(d) in DTYPE_NAMES for d in DTYPE_NAMES)
