"""Library handlers read arguments through each API's declared signature: the position of a
parameter is written once, where the API is registered, and differs between APIs that share
a handler (`keepdims` is position 3 of `jnp.max` but 4 of `jnp.sum`)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from shapecheck.analyzer.calls import CallArgs, Signature
from shapecheck.analyzer.library import REGISTRIES
from shapecheck.analyzer.values import Const
from shapecheck.api import analyze_source


def test_parse_reads_kinds_of_parameters() -> None:
    signature = Signature.parse("subscripts, /, *operands, out=None, optimize='auto'")
    assert signature.positional == ("subscripts",)
    assert signature.positional_only == 1
    assert signature.variadic == "operands"
    assert signature.keyword_only == ("out", "optimize")
    plain = Signature.parse("a, axis=None, *, where=None")
    assert plain.positional == ("a", "axis") and plain.keyword_only == ("where",)
    assert plain.variadic is None and plain.positional_only == 0


def test_parse_reads_var_keywords_and_defaults_with_commas() -> None:
    partial = Signature.parse("func, /, *args, **keywords")
    assert partial.positional == ("func",) and partial.variadic == "args" and partial.var_keyword == "keywords"
    pdot = Signature.parse("x, y, axis_name, pos_contract=((), ()), pos_batch=((), ()), precision=None")
    assert pdot.positional == ("x", "y", "axis_name", "pos_contract", "pos_batch", "precision")


def test_every_registration_declares_its_signature() -> None:
    # `Registry.handles` requires one: no handler reads its arguments by position by hand.
    for registry in REGISTRIES:
        assert set(registry.signatures) == {*registry.functions, *registry.methods}


def _call(signature: str, args: list[object], kwargs: dict[str, object]) -> CallArgs:
    node = cst.parse_expression("f()")
    call = CallArgs(node, [Const(a) for a in args], [node] * len(args),  # type: ignore[arg-type]
                    {k: Const(v) for k, v in kwargs.items()}, {k: node for k in kwargs})  # type: ignore[arg-type]
    call.signature = Signature.parse(signature)
    return call


def test_keyword_only_parameters_are_never_read_from_a_position() -> None:
    call = _call("x, num_classes, *, dtype=None, axis=-1", [1, 2, 3], {})
    assert call.arg("num_classes") == Const(2)
    assert call.arg("dtype") is None and not call.given("dtype")
    assert _call("x, num_classes, *, dtype=None", [1, 2], {"dtype": "f"}).arg("dtype") == Const("f")


def test_positional_only_parameters_are_never_read_from_a_keyword() -> None:
    call = _call("arrays, /, *, axis=0", [], {"arrays": 1, "axis": 2})
    assert not call.given("arrays") and call.arg("axis") == Const(2)


def test_variadic_parameters_collect_the_remaining_positions() -> None:
    call = _call("subscripts, /, *operands, out=None", ["ij", 1, 2], {})
    assert call.arg("subscripts") == Const("ij")
    assert call.rest() == [Const(1), Const(2)]


def test_var_keywords_collect_the_keywords_no_parameter_takes() -> None:
    call = _call("func, /, *args, **keywords", [1, 2], {"func": 3, "axis": 4})
    assert call.arg("func") == Const(1) and call.rest() == [Const(2)]
    assert call.keywords() == {"func": Const(3), "axis": Const(4)}
    assert _call("a, *, axis=0, **rest", [1], {"axis": 2, "b": 3}).keywords() == {"b": Const(3)}


def test_an_undeclared_parameter_is_a_programming_error() -> None:
    with pytest.raises(AssertionError):
        _call("a, axis=None", [], {}).arg("keepdims")


def _type_of(expression: str) -> str:
    source = textwrap.dedent(f"""\
        import jax
        import jax.numpy as jnp
        x = jnp.ones((3, 4))
        key = jax.random.PRNGKey(0)
        y = {expression}
        """)
    result = analyze_source("t.py", source, keep_types=True)
    assert result.error is None and result.diagnostics == ()
    found = [t for t in result.types if t.span.line == 5 and t.span.column == 4]
    assert found, f"no type inferred for {expression}"
    return str(max(found, key=lambda t: t.span.end_column).type)


@pytest.mark.parametrize(("expression", "expected"), [
    # keepdims by position: index 3 of max, index 4 of sum, 5 of std
    ("jnp.max(x, 0, None, True)", "f32[(1, 4)]"),
    ("jnp.sum(x, 0, None, None, True)", "f32[(1, 4)]"),
    ("jnp.std(x, 1, None, None, 0, True)", "f32[(3, 1)]"),
    ("x.max(0, None, True)", "f32[(1, 4)]"),
    # the function form takes the shape whole, the method form spread
    ("jnp.reshape(x, (2, 6))", "f32[(2, 6)]"),
    ("jnp.reshape(x, shape=(6, 2))", "f32[(6, 2)]"),
    ("x.reshape(12)", "f32[(12,)]"),
    ("x.reshape(2, 2, 3)", "f32[(2, 2, 3)]"),
    ("x.transpose(1, 0)", "f32[(4, 3)]"),
    ("jnp.permute_dims(x, (1, 0))", "f32[(4, 3)]"),
    # parameters with other names or places in APIs that share a handler
    ("jnp.identity(5)", "f32[(5, 5)]"),
    ("jnp.eye(N=2, M=3)", "f32[(2, 3)]"),
    ("jnp.empty_like(prototype=x)", "f32[(3, 4)]"),
    ("jnp.full_like(x, 1.0, jnp.int32)", "i32[(3, 4)]"),
    ("jnp.zeros_like(x, jnp.int32)", "i32[(3, 4)]"),
    ("jax.random.bernoulli(key, 0.5, (2,))", "bool_[(2,)]"),
    ("jax.random.randint(key, (2, 5), 0, 10)", "i32[(2, 5)]"),
    ("jax.random.uniform(key, (2,), jnp.float32, 0.0, 1.0)", "f32[(2,)]"),
    # every dtype the annotation language names casts by its numpy name
    ("jnp.uint16(x)", "u16[(3, 4)]"),
    ("jnp.bool(x)", "bool_[(3, 4)]"),
    ("jnp.einsum('ij,jk->ik', x, jnp.ones((4, 2)))", "f32[(3, 2)]"),
    # APIs that shared one handler under different parameter names, now registered apart
    ("jnp.flip(m=x)", "f32[(3, 4)]"),
    ("jnp.roll(x, 1, axis=0)", "f32[(3, 4)]"),
    ("jax.lax.convert_element_type(x, new_dtype=jnp.int32)", "i32[(3, 4)]"),
    ("jnp.where(x > 0, x, jnp.zeros((4,)))", "f32[(3, 4)]"),
    ("jax.grad(lambda a: jnp.sum(a))(x)", "f32[(3, 4)]"),
    ("jax.checkpoint(fun=lambda a: a * 2)(x)", "f32[(3, 4)]"),
])
def test_arguments_bind_by_each_apis_signature(expression: str, expected: str) -> None:
    assert _type_of(expression) == expected


def test_jnp_copy_takes_no_dtype_in_second_place() -> None:
    # `jnp.copy(a, order)`: the order string is not a dtype that erases x's
    assert _type_of("jnp.copy(jnp.ones((2,), jnp.int32), 'C')") == "i32[(2,)]"
