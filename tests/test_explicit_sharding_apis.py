"""jit's in_shardings/out_shardings, shard_map with in_specs inferred, auto_axes/explicit_axes,
`.at[...].get/set`, `lax.dot_general` and the `jax.set_mesh` setter, against JAX itself.

Each case is a program of the differential oracle (`tests/explicit_sharding.py`): JAX runs it
on 8 CPU devices and must do what the case says (run through, or refuse its last statement
with SC208's or SC209's error); the checker must report exactly that, and know the sharding
of every value JAX made, as `jax.typeof` prints it. A case JAX refuses with another error
(`other`) is reported with no sharding code; one JAX runs whose shardings the checker leaves
unknown on purpose says `unknown`.
"""

from __future__ import annotations

import pytest

pytest.importorskip("jax")

from tests.explicit_sharding import SHARDING_CODES, Program, check, describe, judge, run

EXPLICIT = "mesh = jax.make_mesh((2, 4), ('X', 'Y'))"
MIXED = "mesh = jax.make_mesh((2, 4), ('X', 'Y'), axis_types=(AxisType.Explicit, AxisType.Auto))"
AUTO = "mesh = Mesh(np.array(jax.devices()).reshape((2, 4)), ('X', 'Y'))"
A = "a = jax.device_put(jnp.ones((8, 16)), P('X', 'Y'))"
B = "b = jax.device_put(jnp.ones((8, 16)), P('X', None))"
W = "w = jax.device_put(jnp.ones((16, 4)), P('Y', None))"
AUTO_AXES = "jax.sharding.auto_axes"
EXPLICIT_AXES = "jax.sharding.explicit_axes"
ONE = "mesh = jax.make_mesh((2, 1, 4), ('X', 'Y', 'Z'))"  # Y has size 1
S1 = "s = jax.device_put(jnp.ones((8, 16)), P('Y', 'Z'))"
MIXED_ONE = "mesh = jax.make_mesh((1, 4), ('X', 'Y'), axis_types=(AxisType.Explicit, AxisType.Auto))"  # X: size 1
R1 = "q = jax.device_put(jnp.ones((2, 4)), P(None, ('Y', 'X')))"
V3 = "v = jax.device_put(jnp.ones((16, 8, 4)), P(None, ('Y', 'X'), None))"

CASES: dict[str, tuple[str, list[str], str]] = {
    # One function, two placements of its argument: each call's result is placed as its own.
    "a function called with two placements": (EXPLICIT, [A, B, "f = lambda x: x * 2", "c = f(b)", "d = f(a)"], "ok"),
    "jit in_shardings as the argument's": (EXPLICIT, [A, "c = jax.jit(lambda x: x * 2, in_shardings=P('X', 'Y'))(a)"], "ok"),
    "jit in_shardings unlike a committed argument": (
        EXPLICIT, [A, "c = jax.jit(lambda x: x * 2, in_shardings=P(None, 'X'))(a)"], "SC208"),
    "jit in_shardings unlike a constructor's value": (
        EXPLICIT, ["o = jnp.ones((8, 16))", "c = jax.jit(lambda x: x * 2, in_shardings=P('X', None))(o)"], "SC208"),
    "jit in_shardings place the body's argument": (
        EXPLICIT, [A, "c = jax.jit(lambda x: x.reshape(128), in_shardings=(P('X', 'Y'),))(a)"], "ok"),
    "jit in_shardings entry None": (
        EXPLICIT, [A, B, "c = jax.jit(lambda x, y: x + y, in_shardings=(None, P('X', None)))(a, b)"], "ok"),
    "jit in_shardings tuple, second unlike": (
        EXPLICIT, [A, B, "c = jax.jit(lambda x, y: x + y, in_shardings=(P('X', 'Y'), P('X', 'Y')))(a, b)"], "SC208"),
    "jit out_shardings": (EXPLICIT, [A, "c = jax.jit(lambda x: x * 2, out_shardings=P(None, 'X'))(a)"], "ok"),
    "jit out_shardings NamedSharding": (
        EXPLICIT, [A, "c = jax.jit(lambda x: x * 2, out_shardings=NamedSharding(mesh, P('Y')))(a)"], "ok"),
    "jit out_shardings naming an Auto axis": (
        MIXED, [A, "c = jax.jit(lambda x: x * 2, out_shardings=P(None, 'Y'))(a)"], "ok"),
    "shard_map in_specs inferred": (
        EXPLICIT, [A, "c = jax.shard_map(lambda x: x * 2, out_specs=P('X', 'Y'))(a)"], "ok"),
    "shard_map in_specs inferred, two arguments": (
        EXPLICIT, [A, B, "c = jax.shard_map(lambda x, y: x, out_specs=P('X', 'Y'))(a, b)"], "ok"),
    "shard_map in_specs inferred, an unsplit value": (
        EXPLICIT, ["o = jnp.ones((8, 16))", "c = jax.shard_map(lambda x: x * 2, out_specs=P())(o)"], "ok"),
    # A value made on no mesh (before the mesh is set, or by numpy) is typed unsplit, P(None, None),
    # and shard_map compares that with its in_specs as it does a placed value's.
    "shard_map in_specs splitting a value made on no mesh": (
        EXPLICIT + "\no = jnp.ones((8, 16))", ["c = jax.shard_map(lambda x: x * 2, in_specs=P('X'), out_specs=P('X'))(o)"],
        "SC208"),
    "shard_map in_specs splitting a numpy array": (
        EXPLICIT, ["c = jax.shard_map(lambda x: x * 2, in_specs=P('X'), out_specs=P('X'))(np.ones((8, 16), np.float32))"],
        "SC208"),
    "shard_map in_specs replicating a value made on no mesh": (
        EXPLICIT + "\no = jnp.ones((8, 16))", ["c = jax.shard_map(lambda x: x * 2, in_specs=P(), out_specs=P())(o)"],
        "ok"),
    # Under jit a slice of literal bounds is lax.slice: it keeps the split where the axes divide
    # what it takes, and is refused where they do not (eagerly it is a gather, refused).
    "a slice under jit that the axes divide": (EXPLICIT, [A, "c = jax.jit(lambda x: x[:4, ::2])(a)"], "ok"),
    "a slice under jit that the axes do not divide": (EXPLICIT, [A, "c = jax.jit(lambda x: x[1:])(a)"], "SC208"),
    "shard_map in_specs unlike the argument": (
        EXPLICIT, [A, "c = jax.shard_map(lambda x: x, in_specs=P('X', None), out_specs=P('X', None))(a)"], "SC208"),
    "auto_axes": (EXPLICIT, [A, W, f"c = {AUTO_AXES}(lambda x, y: x @ y, out_sharding=P('X', None))(a, w)"], "ok"),
    "auto_axes out_sharding at the call": (
        EXPLICIT, [A, W, f"c = {AUTO_AXES}(lambda x, y: x @ y)(a, w, out_sharding=P(None, 'Y'))"], "ok"),
    "auto_axes over one axis keeps the other's split": (
        EXPLICIT, [A, W, f"c = {AUTO_AXES}(lambda x, y: x @ y, axes='X', out_sharding=P('X', None))(a, w)"], "SC208"),
    "auto_axes over the other axis": (
        EXPLICIT, [A, W, f"c = {AUTO_AXES}(lambda x, y: x @ y, axes='Y', out_sharding=P('X', None))(a, w)"], "ok"),
    "auto_axes body reshards over an Auto axis": (
        EXPLICIT, [A, f"c = {AUTO_AXES}(lambda x: jax.sharding.reshard(x, P('X', None)), out_sharding=P('X'))(a)"],
        "SC209"),
    "auto_axes body constrains": (
        EXPLICIT, [A, f"c = {AUTO_AXES}(lambda x: jax.lax.with_sharding_constraint(x, P(None, 'X')), "
                      "out_sharding=P('X', None))(a)"], "ok"),
    "auto_axes out_sharding naming an Auto axis": (
        MIXED, [A, f"c = {AUTO_AXES}(lambda x: x * 2, out_sharding=P(None, 'Y'))(a)"], "SC209"),
    "auto_axes over axes already Auto: out_sharding unused": (
        MIXED, [A, f"c = {AUTO_AXES}(lambda x: x * 2, axes='Y', out_sharding=P(None, 'X'))(a)"], "ok"),
    "explicit_axes": (
        AUTO, [A, "b = jax.device_put(jnp.ones((8, 16)), P('Y', 'X'))",
               f"c = {EXPLICIT_AXES}(lambda x, y: x + y, in_sharding=(P('X', 'Y'), P('X', 'Y')))(a, b)"], "ok"),
    "explicit_axes, operands split unlike": (
        AUTO, [A, "b = jax.device_put(jnp.ones((8, 16)), P('Y', 'X'))",
               f"c = {EXPLICIT_AXES}(lambda x, y: x + y, in_sharding=(P('X', 'Y'), P('Y', 'X')))(a, b)"], "SC208"),
    "at get with out_sharding": (EXPLICIT, [A, "c = a.at[0].get(out_sharding=P('Y'))"], "ok"),
    "at get from a split dim": (EXPLICIT, [A, "c = a.at[0].get()"], "SC208"),
    "at get from an unsplit dim": (EXPLICIT, [B, "c = b.at[:, 0].get()"], "ok"),
    "at set into a split dim": (EXPLICIT, [A, "c = a.at[0].set(0.0)"], "SC208"),
    "at set into an unsplit dim": (EXPLICIT, [B, "c = b.at[:, 1:3].add(1.0)"], "ok"),
    "at set with out_sharding": (EXPLICIT, [A, "c = a.at[0].set(0.0, out_sharding=P(None, 'Y'))"], "ok"),
    "at set of the whole array": (EXPLICIT, [A, "c = a.at[...].multiply(2.0)"], "ok"),
    "dot_general": (EXPLICIT, [B, "w = jax.device_put(jnp.ones((16, 4)), P(None, 'Y'))",
                               "c = jax.lax.dot_general(b, w, (((1,), (0,)), ((), ())))"], "ok"),
    "dot_general contracting dims both split": (
        EXPLICIT, [A, "c = jax.lax.dot_general(a, a, (((1,), (1,)), ((), ())))"], "SC208"),
    "dot_general with out_sharding": (
        EXPLICIT, [A, "c = jax.lax.dot_general(a, a, (((1,), (1,)), ((), ())), out_sharding=P('X', None))"], "ok"),
    # A size-1 mesh axis is an axis like any other in the type; jit's in_shardings compare
    # placements, where it splits nothing (JAX 0.10.2).
    "size-1 axis kept by elementwise ops and reductions": (
        ONE, [S1, "c = jnp.sum(jax.nn.relu(s * 2.0 + s), axis=1)"], "ok"),
    "size-1 axis kept by reshape, transpose and concatenate": (
        ONE, [S1, "c = jnp.concatenate([s, s], axis=0).reshape((2, 8, 16)).T"], "ok"),
    "size-1 axis against an unsplit operand": (
        ONE, [S1, "r = jax.device_put(jnp.ones((8, 16)), P(None, 'Z'))", "c = s + r"], "ok"),
    "size-1 axis against another axis": (
        ONE, [S1, "x = jax.device_put(jnp.ones((8, 16)), P('X', 'Z'))", "c = s + x"], "SC208"),
    "size-1 axis: cumsum along its dim": (ONE, [S1, "c = jnp.cumsum(s, axis=0)"], "SC208"),
    "size-1 axis: indexing its dim": (ONE, [S1, "c = s[:2]"], "SC208"),
    "size-1 axis: a contraction's illegal result": (
        ONE, [S1, "w = jax.device_put(jnp.ones((16, 4)), P(None, 'Y'))", "c = s @ w"], "SC208"),
    "size-1 axis: with_sharding_constraint dropping it": (
        ONE, [S1, "c = jax.lax.with_sharding_constraint(s, P(None, 'Z'))"], "SC209"),
    "size-1 axis: shard_map in_specs dropping it": (
        ONE, [S1, "c = jax.shard_map(lambda x: x * 2, in_specs=P(None, 'Z'), out_specs=P(None, 'Z'))(s)"],
        "SC208"),
    "size-1 axis: jit in_shardings dropping it keep the argument's": (
        ONE, [S1, "c = jax.jit(lambda x: x * 2, in_shardings=P(None, 'Z'))(s)"], "ok"),
    "size-1 axis: jit in_shardings adding it keep the argument's": (
        ONE, ["r = jax.device_put(jnp.ones((8, 16)), P(None, 'Z'))",
              "c = jax.jit(lambda x: x * 2, in_shardings=P('Y', 'Z'))(r)"], "ok"),
    "size-1 axis: jit in_shardings merging it in another order": (
        ONE, ["r = jax.device_put(jnp.ones((8, 16)), P(('Y', 'X'), 'Z'))",
              "c = jax.jit(lambda x: x * 2, in_shardings=P(('X', 'Y'), 'Z'))(r)"], "ok"),
    "size-1 axis: jit in_shardings unlike on the other axes": (
        ONE, [S1, "c = jax.jit(lambda x: x * 2, in_shardings=P('Y', 'X'))(s)"], "SC208"),
    "size-1 Explicit axis on a mesh with Auto axes: not followed, never wrong": (
        "mesh = jax.make_mesh((2, 1, 4), ('X', 'Y', 'Z'), axis_types=(AxisType.Auto, AxisType.Explicit, "
        "AxisType.Auto))", ["v = jax.device_put(jnp.ones((2, 8)), P('X', 'Y'))",
                            "c = jax.device_put(jnp.ones((2, 2, 8)), P()) * v"], "unknown"),
    # Placed with a size-1 Explicit axis on a mesh with Auto axes, a value's type keeps it and
    # JAX checks the next op with it; that op's result is typed from its compiled placement.
    "size-1 Explicit axis on a mesh with Auto axes: kept by device_put": (
        MIXED_ONE, [R1, "r = jax.device_put(jnp.ones((2, 4)), P('X', 'Y'))", "c = jnp.maximum(q, r)"], "SC208"),
    "size-1 Explicit axis on a mesh with Auto axes: indexing its dim": (
        MIXED_ONE, ["r = jax.device_put(jnp.ones((8, 2, 16)), P(None, 'X'))", "c = r[:, 0]"], "SC208"),
    "size-1 Explicit axis on a mesh with Auto axes: an eager result's type not followed": (
        MIXED_ONE, [R1, "r = jax.device_put(jnp.ones((2, 4)), P('X', 'Y'))", "d = q * 2", "c = d + r"], "unknown"),
    "a dim split over Explicit and Auto axes keeps the Explicit ones": (
        "mesh = jax.make_mesh((2, 2, 2), ('X', 'Y', 'Z'), axis_types=(AxisType.Explicit, AxisType.Auto, "
        "AxisType.Explicit))",
        ["m = jax.device_put(jnp.ones((16, 4)), P(('X', 'Y', 'Z'), None))",
         "n = jax.device_put(jnp.ones((16, 4)), P(('X', 'Z'), None))", "c = m + n"], "ok"),
    # The update is broadcast to the indexed part split as the operand is there: each of its
    # dims unsplit or split alike (JAX's ValueError "Incompatible types for broadcasting").
    "at add an update split as the indexed part": (
        EXPLICIT, [B, "u = jax.device_put(jnp.ones((8,)), P('X'))", "c = b.T.at[1:3].add(u)"], "ok"),
    "at add an unsplit update": (EXPLICIT, [B, "c = b.at[:, 1:3].add(jnp.ones((8, 2)))"], "ok"),
    "at add an update split otherwise": (
        EXPLICIT, [B, "u = jax.device_put(jnp.ones((8, 2)), P('Y'))", "c = b.at[:, 1:3].add(u)"], "SC208"),
    "at set an update split where the indexed part is not": (
        EXPLICIT, [A, "r = jnp.ones((8, 16))", "u = jax.device_put(jnp.ones((16,)), P('Y'))", "c = r.at[0].set(u)"],
        "SC208"),
    # On a mesh with Auto axes jit compares a committed argument's placement, which the type
    # does not show: known where device_put or out_shardings committed it.
    "jit in_shardings as device_put placed it, Auto mesh": (
        AUTO, [A, "c = jax.jit(lambda x: x * 2, in_shardings=P('X', 'Y'))(a)"], "ok"),
    "jit in_shardings unlike device_put's placement, Auto mesh": (
        AUTO, [A, "c = jax.jit(lambda x: x * 2, in_shardings=P('X'))(a)"], "SC208"),
    "jit in_shardings unlike device_put's placement, mixed mesh": (
        MIXED, [B, "c = jax.jit(lambda x: x * 2, in_shardings=P('X', 'Y'))(b)"], "SC208"),
    "jit in_shardings unlike the Explicit split of an argument placed by XLA, mixed mesh": (
        MIXED, [B, "d = jnp.cumsum(b, axis=1)", "c = jax.jit(lambda x: x * 2, in_shardings=P(None, 'Y'))(d)"],
        "SC208"),
    "jit in_shardings as an elementwise result's placement, Auto mesh": (
        AUTO, [A, "o = jnp.where(a > 0, a, 0.0) * 2", "c = jax.jit(lambda x: x * 2, in_shardings=P('X', 'Y'))(o)"],
        "ok"),
    "jit in_shardings unlike an elementwise result's placement, Auto mesh": (
        AUTO, [A, "o = jnp.where(a > 0, a, 0.0) * 2", "c = jax.jit(lambda x: x * 2, in_shardings=P('X'))(o)"],
        "SC208"),
    "jit in_shardings as a stack's placement, Auto mesh": (
        AUTO, [V3, "s = jnp.stack([v, v], axis=1)",
               "c = jax.jit(lambda x: x * 2, in_shardings=P(None, None, ('Y', 'X'), None))(s)"], "ok"),
    "jit in_shardings unlike a stack's placement, Auto mesh": (
        AUTO, [V3, "s = jnp.stack([v, v], axis=1)", "c = jax.jit(lambda x: x * 2, in_shardings=P(None, 'X', 'Y'))(s)"],
        "SC208"),
    "jit in_shardings unlike a transpose's placement, Auto mesh": (
        AUTO, [A, "t = a.T", "c = jax.jit(lambda x: x * 2, in_shardings=P('X', 'Y'))(t)"], "SC208"),
    "jit in_shardings as a reduction's placement, Auto mesh": (
        AUTO, [V3, "s = v.sum(axis=2)", "c = jax.jit(lambda x: x * 2, in_shardings=P(None, ('Y', 'X')))(s)"], "ok"),
    "jit in_shardings unlike out_shardings' placement, Auto mesh": (
        AUTO, [A, "o = jax.jit(lambda x: x * 2, out_shardings=P('Y'))(a)",
               "c = jax.jit(lambda x: x * 2, in_shardings=P(None))(o)"], "SC208"),
    "jit in_shardings unlike with_sharding_constraint's placement, Auto mesh": (
        AUTO, [A, "o = jax.lax.with_sharding_constraint(a, P(None, ('X', 'Y')))",
               "c = jax.jit(lambda x: x * 2, in_shardings=P(None, 'Y'))(o)"], "SC208"),
    "jit in_shardings unlike shard_map out_specs' placement, Auto mesh": (
        AUTO, [A, "o = jax.shard_map(lambda x: x * 2, in_specs=P('X'), out_specs=P('X'))(a)",
               "c = jax.jit(lambda x: x * 2, in_shardings=P())(o)"], "SC208"),
    # Under a trace the argument is a tracer, committed nowhere: never refused. What the body
    # sees of it then (JAX 0.10.2 keeps its type) is not followed.
    "jit in_shardings under a trace constrain, Explicit mesh": (
        EXPLICIT, [B, "c = jax.jit(lambda x: jax.jit(lambda y: y * 2, in_shardings=P(None, 'X'))(x))(b)"], "unknown"),
    "jit in_shardings under a trace constrain, mixed mesh": (
        MIXED, [B, "c = jax.jit(lambda x: jax.jit(lambda y: y * 2, in_shardings=P(None, 'X'))(x))(b)"], "unknown"),
    "jit in_shardings under a trace constrain, Auto mesh": (
        AUTO, [A, "c = jax.jit(lambda x: jax.jit(lambda y: y * 2, in_shardings=P('X'))(x))(a)"], "ok"),
    # JAX splits the update as the operand: a slice its axes cannot split is its ValueError.
    "at set into a split dim, slice the axes split evenly": (EXPLICIT, [A, "c = a.at[2:4].add(1.0)"], "SC208"),
    "at set into a split dim, slice the axes cannot split": (EXPLICIT, [A, "c = a.at[0:3].add(1.0)"], "other"),
    "at set into a split dim, uneven slice before an index": (EXPLICIT, [A, "c = a.at[0:3, 0].set(1.0)"], "other"),
    # auto_axes and explicit_axes pass out_sharding and in_sharding to reshard, with its checks:
    # a spec longer than the value by a mesh axis (AssertionError), a dim its axes cannot
    # split (ValueError); a NamedSharding keeps its own mesh, whose Auto axes reshard refuses.
    "auto_axes out_sharding longer than the result by None": (
        EXPLICIT, [A, W, f"c = {AUTO_AXES}(lambda x, y: x @ y, out_sharding=P('X', None, None))(a, w)"], "ok"),
    "auto_axes out_sharding longer than the result by an axis": (
        EXPLICIT, [A, W, f"c = {AUTO_AXES}(lambda x, y: x @ y, out_sharding=P('X', None, 'Y'))(a, w)"], "other:SC106"),
    "auto_axes out_sharding its axes cannot split": (
        EXPLICIT, [A, "w = jax.device_put(jnp.ones((16, 6)), P('Y', None))",
                   f"c = {AUTO_AXES}(lambda x, y: x @ y, out_sharding=P(None, 'Y'))(a, w)"], "other:SC205"),
    "explicit_axes in_sharding longer than the argument by an axis": (
        AUTO, [A, f"c = {EXPLICIT_AXES}(lambda x: x * 2, in_sharding=P('X', None, 'Y'))(a)"], "other:SC106"),
    "explicit_axes in_sharding its axes cannot split": (
        AUTO, ["r = jax.device_put(jnp.ones((6, 16)), P())",
               f"c = {EXPLICIT_AXES}(lambda x: x * 2, in_sharding=P('Y', None))(r)"], "other:SC205"),
    "explicit_axes NamedSharding on the Auto mesh": (
        AUTO, [A, f"c = {EXPLICIT_AXES}(lambda x: x * 2, in_sharding=NamedSharding(mesh, P('X', 'Y')))(a)"], "SC209"),
    "explicit_axes NamedSharding on the Auto mesh, a tuple": (
        AUTO, [A, f"c = {EXPLICIT_AXES}(lambda x, y: x + y, in_sharding=(P('X', 'Y'), "
                  "NamedSharding(mesh, P(None, 'Y'))))(a, a)"], "SC209"),
    # Replicated, the argument stays on the Auto mesh and the body's first op refuses it (the
    # context mesh, Explicit now, differs from the value's): JAX's ValueError, no sharding code.
    "explicit_axes NamedSharding on the Auto mesh, replicated": (
        AUTO, [A, f"c = {EXPLICIT_AXES}(lambda x: x * 2, in_sharding=NamedSharding(mesh, P()))(a)"], "other"),
    "explicit_axes NamedSharding on an Explicit mesh": (
        AUTO, [A, f"c = {EXPLICIT_AXES}(lambda x: x * 2, "
                  "in_sharding=NamedSharding(jax.make_mesh((2, 4), ('X', 'Y')), P('X', 'Y')))(a)"], "unknown"),
    # A constructor's out_sharding= is checked against the array it makes, as reshard checks its
    # spec: JAX's ValueErrors, before any sharding type.
    "constructor out_sharding": (EXPLICIT, ["c = jnp.zeros((8, 6), out_sharding=P('X', 'Y'))"], "other:SC205"),
    "constructor out_sharding dividing": (EXPLICIT, ["c = jnp.ones((8, 4), out_sharding=P('X', 'Y'))"], "ok"),
    "constructor out_sharding, trailing None": (EXPLICIT, ["c = jnp.zeros((4,), out_sharding=P('X', None))"], "ok"),
    "constructor out_sharding naming no mesh axis": (
        EXPLICIT, ["c = jnp.zeros((4,), out_sharding=P('Z'))"], "other:SC206"),
    "full out_sharding NamedSharding": (
        EXPLICIT, ["c = jnp.full((3, 4), 1.0, out_sharding=NamedSharding(mesh, P('X')))"], "other:SC205"),
    "zeros_like out_sharding": (
        EXPLICIT, [B, "c = jnp.zeros_like(b[:, :3], out_sharding=P(None, 'X'))"], "other:SC205"),
    "random sampler, unsplit": (EXPLICIT, ["c = jax.random.normal(jax.random.key(0), (8, 4))"], "ok"),
    "random sampler out_sharding": (
        EXPLICIT, ["c = jax.random.uniform(jax.random.key(0), (8, 4), out_sharding=P('X', 'Y'))"], "ok"),
    "random sampler out_sharding indivisible": (
        EXPLICIT, ["c = jax.random.normal(jax.random.key(0), (3,), out_sharding=P('X'))"], "other:SC205"),
    # Slicing a split dim: lax.slice (eagerly a dynamic_slice), roll's two pieces, an index
    # under jit or by a 0-d array keep the split where the axes divide what they take.
    "lax.slice of a split dim, dividing": (EXPLICIT, [A, "c = jax.lax.slice(a, (0, 0), (4, 8))"], "ok"),
    "lax.slice of a split dim to one row": (EXPLICIT, [A, "c = jax.lax.slice(a, (0, 0), (1, 16))"], "SC208"),
    "lax.slice_in_dim of a split dim": (EXPLICIT, [A, "c = jax.lax.slice_in_dim(a, 0, 3, axis=1)"], "SC208"),
    "lax.dynamic_slice_in_dim of a split dim, dividing": (
        EXPLICIT, [A, "c = jax.lax.dynamic_slice_in_dim(a, 0, 8, axis=1)"], "ok"),
    "lax.index_in_dim of a split dim": (EXPLICIT, [A, "c = jax.lax.index_in_dim(a, 0, axis=0)"], "SC208"),
    "lax.index_in_dim of an unsplit dim, dropped": (
        EXPLICIT, [B, "c = jax.lax.index_in_dim(b, 2, axis=1, keepdims=False)"], "ok"),
    "roll a split dim by a multiple of its split": (EXPLICIT, [A, "c = jnp.roll(a, 2, axis=0)"], "ok"),
    "roll a split dim by one": (EXPLICIT, [A, "c = jnp.roll(a, 1, axis=0)"], "SC208"),
    "roll a split dim by minus four": (EXPLICIT, [A, "c = jnp.roll(a, -4, axis=1)"], "ok"),
    "roll an unsplit dim": (EXPLICIT, [B, "c = jnp.roll(b, 3, axis=1)"], "ok"),
    "roll a split dim by a traced shift": (EXPLICIT, [A, "c = jax.jit(lambda x, k: jnp.roll(x, k, axis=0))(a, 1)"],
                                           "ok"),
    "slice the whole split dim from a negative start": (EXPLICIT, [A, "c = a[-8:]"], "ok"),
    "reverse a split dim eagerly": (EXPLICIT, [A, "c = a[::-1]"], "unknown"),
    "every other row of a split dim eagerly": (EXPLICIT, [A, "c = a[::2]"], "SC208"),
    "index a split dim by a computed int": (EXPLICIT, [A, "c = a[len('x')]"], "SC208"),
    "index a split dim by a 0-d array": (EXPLICIT, [A, "c = a[jnp.int32(1)]"], "SC208"),
    "index a split dim under jit": (EXPLICIT, [A, "c = jax.jit(lambda x: x[0])(a)"], "SC208"),
    "index an unsplit dim under jit": (EXPLICIT, [B, "c = jax.jit(lambda x: x[:, 0])(b)"], "ok"),
    "slice a split dim under jit, dividing": (EXPLICIT, [A, "c = jax.jit(lambda x: x[2:6])(a)"], "ok"),
    "at get under jit, out_sharding given": (
        EXPLICIT, [A, "c = jax.jit(lambda x: x.at[0].get(out_sharding=P('Y')))(a)"], "SC208"),
    "at get eagerly, out_sharding given": (EXPLICIT, [A, "c = a.at[0].get(out_sharding=P('Y'))"], "ok"),
    "at set by a computed int": (EXPLICIT, [A, "c = a.at[len('')].set(1.0)"], "SC208"),
    # An item read back from a container is as it was stored, split included.
    "a weight read from a dict": (EXPLICIT, [A, W, "c = a @ {'w': w}['w']"], "SC208"),
    "a weight read from a tuple": (EXPLICIT, [B, W, "c = (w, b)[1] * 2"], "ok"),
    "where with cases split alike": (EXPLICIT, [A, "c = jnp.where(a > 0, a, 0.0)"], "ok"),
    "where with cases split otherwise": (EXPLICIT, [A, B, "c = jnp.where(a > 0, a, b)"], "SC208"),
    "randint out_sharding": (
        EXPLICIT, ["c = jax.random.randint(jax.random.key(0), (8,), 0, 5, out_sharding=P('Y'))"], "ok"),
}


@pytest.mark.parametrize("setter", [False, True], ids=["with", "setter"])
@pytest.mark.parametrize("name", list(CASES))
def test_checker_and_jax_agree(name: str, setter: bool) -> None:
    mesh_line, body, verdict = CASES[name]
    built = Program(mesh_line, {}, set(), list(body), setter=setter)
    ran = run(built)
    checked = check(built)
    judged = judge(built, ran, checked)
    message = describe(built, judged, ran)
    assert judged.expected == ("ok" if verdict == "unknown" else verdict.split(":")[0]), message  # JAX does what the case says
    assert not judged.false_reports and not judged.types_wrong, message
    if verdict not in ("ok", "unknown"):
        # JAX's other errors (`other`) are no sharding code's: the checker stays silent there,
        # or reports the code after the colon (`other:SC106`).
        expected = verdict if verdict in SHARDING_CODES else "clean"
        assert ran.failed == len(body) - 1 and judged.reported == expected, message
        if verdict.startswith("other:"):
            assert verdict.split(":")[1] in checked.codes.get(len(body) - 1, set()), (message, checked.codes)
    if verdict != "unknown":
        assert judged.types_unknown == 0, message  # every sharding followed
