"""For mypy only: the names the mypy plugin puts back into `jax.lax` (`shapecheck.plugin.restored`).

Each is declared with the signature of its runtime in `shapecheck.runtime.lax` (a test compares
them), and nothing more: importing the runtime, or any module of `shapecheck.runtime` (its
package imports the whole runtime), would have mypy analyse some 70 of shapecheck's modules in
every project that imports `jax.lax`.
"""

from typing import Any

def pdot(x: Any, y: Any, axis_name: Any, *, pos_contract: tuple[Any, Any] = ..., pos_batch: tuple[Any, Any] = ...,
         precision: Any = ...) -> Any: ...
