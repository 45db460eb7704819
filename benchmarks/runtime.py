"""Named (xmap) programs against the same computations hand-written with jnp/vmap, both jitted.

Prints, per case: compile time (trace + lower + compile) and steady-state time (median of many
runs) for both, and the steady-state ratio named/hand-written (target: at most 1.10).

    .venv/bin/python benchmarks/runtime.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

import shapecheck.runtime.numpy as named_jnp
from shapecheck.runtime import lax, nn, special, xmap

_ready: Callable[[Any], Any] = jax.block_until_ready  # untyped in jax

# --- the tutorial's toy network --------------------------------------------------------------


def named_loss(w1: Any, w2: Any, images: Any, labels: Any) -> Any:
    hidden = nn.relu(lax.pdot(images, w1, "inputs"))
    logits = lax.pdot(hidden, w2, "hidden")
    predictions = logits - special.logsumexp(logits, "classes")
    targets = nn.one_hot(labels, lax.psum(1, "classes"), axis="classes")
    return -lax.pmean(lax.psum(targets * predictions, "classes"), "batch")


def loss(w1: Any, w2: Any, images: Any, labels: Any) -> Any:
    logits = jnp.dot(jax.nn.relu(jnp.dot(images, w1)), w2)
    predictions = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
    targets = jax.nn.one_hot(labels, predictions.shape[-1])
    return -jnp.mean(jnp.sum(targets * predictions, axis=1), axis=0)


def toy_case() -> tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...]]:
    keys = jax.random.split(jax.random.key(0), 4)
    args = (jax.random.normal(keys[0], (784, 512)) / 28, jax.random.normal(keys[1], (512, 10)) / 22,
            jax.random.normal(keys[2], (128, 784)), jax.random.randint(keys[3], (128,), 0, 10))
    in_axes = [["inputs", "hidden", ...], ["hidden", "classes", ...], ["batch", "inputs", ...], ["batch", ...]]
    return xmap(named_loss, in_axes=in_axes, out_axes=[...]), loss, args


# --- an attention layer: per (batch, head) attention, heads contracted by name -----------------


def named_attention(q: Any, k: Any, v: Any, w_out: Any) -> Any:
    scores = jnp.einsum("td,sd->ts", q, k) / jnp.sqrt(q.shape[-1])
    context = jnp.einsum("ts,sd->td", jax.nn.softmax(scores, axis=-1), v)
    return named_jnp.einsum("td{heads},de{heads}->te", context, w_out)


def attention(q: Any, k: Any, v: Any, w_out: Any) -> Any:
    scores = jnp.einsum("bthd,bshd->bhts", q, k) / jnp.sqrt(q.shape[-1])
    context = jnp.einsum("bhts,bshd->bthd", jax.nn.softmax(scores, axis=-1), v)
    return jnp.einsum("bthd,hde->bte", context, w_out)


def attention_case() -> tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...]]:
    batch, seq, heads, dim, out = 8, 128, 8, 64, 512
    keys = jax.random.split(jax.random.key(1), 4)
    args = (*(jax.random.normal(key, (batch, seq, heads, dim)) for key in keys[:3]),
            jax.random.normal(keys[3], (heads, dim, out)) / 20)
    qkv = {0: "batch", 2: "heads"}
    named = xmap(named_attention, in_axes=(qkv, qkv, qkv, {0: "heads"}), out_axes={0: "batch"})
    return named, attention, args


# --- batched matmul ----------------------------------------------------------------------------


def batched_case() -> tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...]]:
    keys = jax.random.split(jax.random.key(2), 2)
    args = (jax.random.normal(keys[0], (16, 256, 128)), jax.random.normal(keys[1], (16, 128, 256)))
    named = xmap(jnp.dot, in_axes=(["b", ...], ["b", ...]), out_axes=["b", ...])
    return named, jax.vmap(jnp.dot), args


# --- measurement -------------------------------------------------------------------------------


def compile_timed(fun: Callable[..., Any], args: tuple[Any, ...]) -> tuple[float, Any]:
    """(seconds to trace, lower and compile, the compiled function)."""
    start = time.perf_counter()
    compiled = jax.jit(fun).lower(*args).compile()
    return time.perf_counter() - start, compiled


def steady(named: Any, hand: Any, args: tuple[Any, ...], runs: int) -> tuple[float, float]:
    """Median seconds per call of each, runs interleaved so machine noise hits both alike."""
    for _ in range(5):
        _ready(named(*args))
        _ready(hand(*args))
    times: dict[int, list[float]] = {0: [], 1: []}
    for run in range(runs):
        order = (0, 1) if run % 2 else (1, 0)
        for which in order:
            fun = named if which == 0 else hand
            start = time.perf_counter()
            _ready(fun(*args))
            times[which].append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    options = parser.parse_args()
    cases = {"toy network": toy_case, "attention": attention_case, "batched matmul": batched_case}
    print(f"{'case':<15} {'compile named':>14} {'compile hand':>13} {'steady named':>13} "
          f"{'steady hand':>12} {'ratio':>6}")
    worst = 0.0
    for label, build in cases.items():
        named, hand, args = build()
        named_c, named_fn = compile_timed(named, args)
        hand_c, hand_fn = compile_timed(hand, args)
        if not jnp.allclose(named_fn(*args), hand_fn(*args), rtol=1e-3, atol=1e-3):
            raise SystemExit(f"{label}: named and hand-written results differ")
        named_s, hand_s = steady(named_fn, hand_fn, args, options.runs)
        ratio = named_s / hand_s
        worst = max(worst, ratio)
        print(f"{label:<15} {named_c * 1e3:>12.1f}ms {hand_c * 1e3:>11.1f}ms {named_s * 1e6:>11.1f}us "
              f"{hand_s * 1e6:>10.1f}us {ratio:>6.3f}")
    print(f"worst steady-state ratio: {worst:.3f} (target <= 1.10)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
