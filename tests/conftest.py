"""Test-wide setup. The runtime's tests need 8 simulated CPU devices, which XLA reads once,
when jax is first imported: set the flag here, before any test module can import jax."""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
