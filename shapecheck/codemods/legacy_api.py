"""The old mesh and partitioning API, and the nodes of today's forms that `migrate` writes.

| old | today |
| --- | --- |
| `with maps.mesh(devices, names):` | `with jax.set_mesh(Mesh(devices, names)):` |
| `maps.thread_resources.env.physical_mesh` | `jax.sharding.get_mesh()` |
| `maps.thread_resources.env = ResourceEnv(mesh, ())` | `jax.set_mesh(mesh)` |
| `jax.experimental.PartitionSpec`, `jax.experimental.pjit.PartitionSpec` | `jax.sharding.PartitionSpec` |
| `pjit(f, in_axis_resources=a, out_axis_resources=b)` | `jax.jit(f, in_shardings=a, out_shardings=b)` |
| `pjit.with_sharding_constraint(x, axis_resources=s)` | `jax.lax.with_sharding_constraint(x, shardings=s)` |
| `jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs, check_rep=c, auto=a)` | `jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=c, axis_names=frozenset(mesh.axis_names) - frozenset(a))` |
| `jax.lax.pvary(x, axes)` | `jax.lax.pcast(x, axes, to='varying')` |
| `jax.sharding.use_mesh(mesh)` | `jax.set_mesh(mesh)` |
| `jax.experimental.shard.reshard`, `auto_axes`, `explicit_axes` | `jax.sharding.reshard`, `auto_axes`, `explicit_axes` |

The old function `maps.mesh` yielded nothing, as `jax.set_mesh` does, so `with ... as m:`
binds None before and after. A use that has no such rewrite (a `maps.mesh(...)` kept for later,
another read of `thread_resources`) is left to `shapecheck.runtime`, which keeps the old names
working (`shapecheck.runtime.legacy`), and migrate says so.
"""

from __future__ import annotations

from typing import Final

import libcst as cst

MAPS: Final = "jax.experimental.maps"
PJIT_MODULE: Final = "jax.experimental.pjit"
RUNTIME: Final = "shapecheck.runtime"

MESH_FUNCTION: Final = f"{MAPS}.mesh"
THREAD_RESOURCES: Final = f"{MAPS}.thread_resources"
RESOURCE_ENVS: Final = frozenset((f"{MAPS}.ResourceEnv", "jax._src.mesh.ResourceEnv"))
PJIT: Final = f"{PJIT_MODULE}.pjit"
PJIT_CONSTRAINT: Final = f"{PJIT_MODULE}.with_sharding_constraint"
PARTIAL: Final = "functools.partial"
EXPERIMENTAL_SHARD_MAP: Final = "jax.experimental.shard_map.shard_map"
PVARY: Final = "jax.lax.pvary"

# Where each member of a removed or changed module lives now: (module, name). The members
# whose home is the runtime are the old mesh API it keeps working for what migrate leaves.
MEMBERS: Final = {
    f"{MAPS}.xmap": (RUNTIME, "xmap"),
    f"{MAPS}.Mesh": ("jax.sharding", "Mesh"),
    MESH_FUNCTION: (RUNTIME, "mesh"),
    THREAD_RESOURCES: (RUNTIME, "thread_resources"),
    f"{MAPS}.ResourceEnv": (RUNTIME, "ResourceEnv"),
    "jax.experimental.PartitionSpec": ("jax.sharding", "PartitionSpec"),
    f"{PJIT_MODULE}.PartitionSpec": ("jax.sharding", "PartitionSpec"),
    PJIT: ("jax", "jit"),
    PJIT_CONSTRAINT: ("jax.lax", "with_sharding_constraint"),
    EXPERIMENTAL_SHARD_MAP: ("jax", "shard_map"),
    PVARY: ("jax.lax", "pcast"),
    "jax.sharding.use_mesh": ("jax", "set_mesh"),
    "jax.experimental.shard.reshard": ("jax.sharding", "reshard"),
    "jax.experimental.shard.auto_axes": ("jax.sharding", "auto_axes"),
    "jax.experimental.shard.explicit_axes": ("jax.sharding", "explicit_axes"),
}
# The runtime's stand-ins for the old mesh API: their imports go when no use is left.
RUNTIME_STAND_INS: Final = frozenset(name for module, name in MEMBERS.values() if module == RUNTIME) - {"xmap"}

# Old keyword -> today's, per function; and the parameters after the first that today's
# function takes by keyword only (jax.jit's are keyword-only; old pjit's were positional).
KEYWORDS: Final = {
    PJIT: {"in_axis_resources": "in_shardings", "out_axis_resources": "out_shardings"},
    PJIT_CONSTRAINT: {"axis_resources": "shardings"},
    EXPERIMENTAL_SHARD_MAP: {"check_rep": "check_vma"},
}
KEYWORD_ONLY: Final = {PJIT: ("in_shardings", "out_shardings", "static_argnums", "donate_argnums"),
                       EXPERIMENTAL_SHARD_MAP: ("mesh", "in_specs", "out_specs", "check_vma", "auto")}


def with_keywords(call: cst.Call, function: str, skip: int) -> cst.Call:
    """`call` of `function` with today's keywords; positional arguments after `skip + 1` named."""
    renamed = KEYWORDS.get(function, {})
    keyword_only = KEYWORD_ONLY.get(function, ())
    args: list[cst.Arg] = []
    position = 0
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            index = position - skip - 1
            position += 1
            if 0 <= index < len(keyword_only):
                arg = arg.with_changes(keyword=cst.Name(keyword_only[index]), equal=_EQUAL)
        elif arg.keyword is not None and arg.keyword.value in renamed:
            arg = arg.with_changes(keyword=cst.Name(renamed[arg.keyword.value]))
        args.append(arg)
    return call.with_changes(args=args)


def manual_axes(call: cst.Call) -> cst.Call | None:
    """A shard_map call (keywords already today's) with the old `auto=A` written as today's
    `axis_names=`, its complement: `frozenset(mesh.axis_names) - frozenset(A)`. None when the mesh
    is not a name or attribute (it would be built twice)."""
    auto = next((arg for arg in call.args if arg.keyword is not None and arg.keyword.value == "auto"), None)
    if auto is None:
        return call
    mesh = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "mesh"), None)
    if not isinstance(mesh, cst.Name | cst.Attribute):
        return None
    names = cst.Call(func=cst.Name("frozenset"), args=[cst.Arg(cst.Attribute(mesh, cst.Name("axis_names")))])
    complement = cst.BinaryOperation(names, cst.Subtract(), cst.Call(func=cst.Name("frozenset"),
                                                                     args=[cst.Arg(auto.value)]))
    args = [arg.with_changes(keyword=cst.Name("axis_names"), value=complement) if arg is auto else arg
            for arg in call.args]
    return call.with_changes(args=args)


def varying_cast(call: cst.Call) -> cst.Call:
    """`pvary(x, axes)` -> `pcast(x, axes, to='varying')` (the callee is renamed elsewhere)."""
    args = list(call.args)
    if args and isinstance(args[-1].comma, cst.MaybeSentinel):
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[*args, cst.Arg(cst.SimpleString("'varying'"), keyword=cst.Name("to"),
                                                  equal=_EQUAL)])


def mesh_context(call: cst.Call) -> cst.Call:
    """`maps.mesh(devices, names)` -> `jax.set_mesh(Mesh(devices, names))`."""
    return set_mesh(cst.Call(func=cst.Name("Mesh"), args=call.args))


def resource_env_mesh(call: cst.Call) -> cst.BaseExpression | None:
    """The mesh of `ResourceEnv(mesh, loops)` when it has no loops (they have no counterpart)."""
    by_keyword = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    if any(arg.star for arg in call.args):
        return None
    mesh = by_keyword.get("physical_mesh", positional[0] if positional else None)
    loops = by_keyword.get("loops", positional[1] if len(positional) > 1 else None)
    if loops is not None and not (isinstance(loops, cst.Tuple | cst.List) and not loops.elements):
        return None
    return mesh


def set_mesh(value: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=dotted("jax.set_mesh"), args=[cst.Arg(value)])


def get_mesh() -> cst.Call:
    return cst.Call(func=dotted("jax.sharding.get_mesh"))


def dotted(name: str) -> cst.Attribute | cst.Name:
    head, *rest = name.split(".")
    node: cst.Attribute | cst.Name = cst.Name(head)
    for part in rest:
        node = cst.Attribute(node, cst.Name(part))
    return node


_EQUAL: Final = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
