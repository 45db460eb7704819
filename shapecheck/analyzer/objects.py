"""Classes of the program as values: how their bodies make them records, what a call of one
builds, and what an attribute of an instance reads.

Model code keeps its arrays in objects: NamedTuples and dataclasses of parameters, equinox- and
flax-style modules whose fields are set in `__init__` or declared as class annotations, plain
classes with `self.w = ...`. An attribute the checker cannot follow reads as unknown.
"""

from __future__ import annotations

import ast
import weakref
from typing import Final

from shapecheck.analyzer.values import (
    Class,
    Function,
    FunctionNode,
    Instance,
    Layer,
    Partial,
    Qual,
    Value,
)

# "dataclass": built from its fields, one leaf to JAX; "struct": the same, and a pytree of its
# fields (registered by its library); "namedtuple": a struct that is a tuple too.
_RECORD_DECORATORS: Final = {
    "dataclasses.dataclass": "dataclass",
    "flax.struct.dataclass": "struct",
    "chex.dataclass": "struct",
    "chex.mappable_dataclass": "struct",
}
_RECORD_BASES: Final = {
    "typing.NamedTuple": "namedtuple",
    "typing_extensions.NamedTuple": "namedtuple",
    "equinox.Module": "struct",
    "flax.struct.PyTreeNode": "struct",
    "flax.linen.Module": "dataclass",  # its fields by keyword or position; `parent`, `name` besides
    "flax.training.train_state.TrainState": "struct",
}
# The methods a library base class gives its subclasses that the checker follows: `self.param`
# in a flax module, `model.apply(variables, x)` (see `library.flax_api`). Read as a partial
# call of the base's method with the instance first.
_LIBRARY_METHODS: Final = {
    "flax.linen.Module": frozenset({"param", "apply", "init", "init_with_output"}),
    "flax.training.train_state.TrainState": frozenset({"apply_gradients"}),
    "optax.GradientTransformation": frozenset({"init", "update"}),  # an optimizer (optax_updates_api)
}
# The class methods such a base gives its subclasses (`MyState.create(...)`): a call of the
# base's with the subclass first (`library.flax_training_api`).
_LIBRARY_CLASS_METHODS: Final = {
    "flax.training.train_state.TrainState": frozenset({"create"}),
}


def library_method(instance: Instance, name: str) -> Value:
    """`self.param`, `model.apply`: a method a library base class of `instance`'s class
    defines, as a call of that base's method with the instance first; None where the checker
    has no rule for it."""
    for cls in instance.cls.lineage():
        for base in cls.bases:
            if isinstance(base, Qual) and name in _LIBRARY_METHODS.get(base.name, ()):
                return Partial(Qual(f"{base.name}.{name}"), (instance,))
    return None


def library_class_method(cls: Class, name: str) -> Value:
    """`MyState.create`: a class method a library base class of `cls` defines, as a call of
    that base's with `cls` first; None where the checker has no rule for it."""
    for each in cls.lineage():
        for base in each.bases:
            if isinstance(base, Qual) and name in _LIBRARY_CLASS_METHODS.get(base.name, ()):
                return Partial(Qual(f"{base.name}.{name}"), (cls,))
    return None


# The library class the layers a module of a library builds derive from (`flax.linen.Dense` is
# a `flax.linen.Module`): its methods are a built layer's too, as a subclass instance's.
_LAYER_BASES: Final = {"flax.linen": "flax.linen.Module"}


def layer_method(layer: Layer, name: str) -> Value:
    """`nn.Dense(5).apply(variables, x)`, `layer.init(key, x)`: a library method of a built layer,
    as a call of its base class's method with the layer first; None where there is no rule
    (`param` is a module body's, not a built layer's)."""
    base = _LAYER_BASES.get(layer.name.rpartition(".")[0])
    if base is None or name == "param" or name not in _LIBRARY_METHODS.get(base, ()):
        return None
    return Partial(Qual(f"{base}.{name}"), (layer,))


def record_kind(decorators: list[Value], bases: tuple[Value, ...]) -> str | None:
    """"namedtuple", "struct", "dataclass" or None: how a class's annotated fields make its
    instances, and whether JAX sees them as pytrees."""
    for base in bases:
        if isinstance(base, Qual) and base.name in _RECORD_BASES:
            return _RECORD_BASES[base.name]
        if isinstance(base, Class) and base.record is not None:
            return base.record
    for decorator in decorators:
        if isinstance(decorator, Qual) and decorator.name in _RECORD_DECORATORS:
            return _RECORD_DECORATORS[decorator.name]
    return None


def field_names(node: ast.ClassDef, bases: tuple[Value, ...]) -> tuple[str, ...]:
    """The annotated fields in declaration order, a record base's first (ClassVar left out)."""
    inherited: list[str] = []
    for base in bases:
        if isinstance(base, Class) and base.record is not None:
            inherited.extend(name for name in base.fields if name not in inherited)
    own = [statement.target.id for statement in node.body
           if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
           and not _is_class_var(statement.annotation)]
    return (*[name for name in inherited if name not in own], *own)


def _is_class_var(annotation: ast.expr) -> bool:
    target = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return isinstance(target, ast.Name | ast.Attribute) and (
        (target.id if isinstance(target, ast.Name) else target.attr) == "ClassVar")


def initializer(cls: Class) -> Function | None:
    """The `__init__` of the program's own that builds `cls`'s instances, if any."""
    found = cls.attribute("__init__")
    return found if isinstance(found, Function) else None


def replaced(instance: Instance, changes: dict[str, Value]) -> Value:
    """`nt._replace(w=...)`, `dataclasses.replace(obj, w=...)`: a copy with those fields."""
    if instance.cls.record is None or any(name not in instance.cls.fields for name in changes):
        return None  # a field the record lacks: Python raises, nothing is built
    for name, value in changes.items():
        instance = instance.with_field(name, value)
    return instance


def stored_attributes(function: Function) -> frozenset[str]:
    """The attributes a method sets on its first parameter (`self.w = ...`): what a call of it
    may change in the receiver. Read once per method (a walk of its body)."""
    found = _STORED.get(function.node)
    if found is None:
        found = _STORED[function.node] = _stored_attributes(function.node)
    return found


_STORED: weakref.WeakKeyDictionary[FunctionNode, frozenset[str]] = weakref.WeakKeyDictionary()


def _stored_attributes(node: FunctionNode) -> frozenset[str]:
    params = node.args
    positional = [*params.posonlyargs, *params.args]
    if not positional:
        return frozenset()
    me = positional[0].arg
    found: set[str] = set()
    for inner in ast.walk(node):
        if not isinstance(inner, ast.Attribute | ast.Subscript) or not isinstance(inner.ctx, ast.Store | ast.Del):
            continue
        # `self.w = v`, and deeper: `self.cache['k'] = v`, `self.layer.w = v` change `self.cache`
        # and `self.layer`.
        current: ast.expr = inner
        while isinstance(current, ast.Attribute | ast.Subscript):
            if isinstance(current, ast.Attribute) and isinstance(current.value, ast.Name) and current.value.id == me:
                found.add(current.attr)
                break
            current = current.value
    return frozenset(found)
