"""The XLA flags of every JAX the tests run, in pytest's processes and in the programs they start.

The tests compile hundreds of small programs and run each once or twice, so compiling is most
of their time: XLA's CPU backend compiles them without LLVM's optimisations (2.5 times faster
for the fixtures that compile the most). What JAX traces, checks and raises is the same, and so
are the results: the optimisations XLA leaves out keep IEEE arithmetic as it is.
"""

from __future__ import annotations

QUICK_COMPILE = "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"


def xla_flags(devices: int) -> str:
    """XLA_FLAGS for `devices` simulated CPU devices."""
    return f"--xla_force_host_platform_device_count={devices} {QUICK_COMPILE}"
