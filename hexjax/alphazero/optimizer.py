"""The optimizer every trainer shares (AdamW or SGD with warm-up, cosine decay and clipping)
and `scan_steps`, the scan over a sequence of optimizer steps inside one jitted iteration."""

from __future__ import annotations

import dataclasses
from typing import Literal

import jax
import jax.numpy as jnp
import optax


@dataclasses.dataclass(frozen=True)
class OptimizerConfig:
    name: Literal["adamw", "sgd"] = "adamw"
    learning_rate: float = 2e-3
    warmup_steps: int = 100
    # Cosine decay to 10% over this many steps (docs/training.md: sized for a 20-minute Hex 7x7
    # run on a laptop CPU); longer runs want more.
    decay_steps: int = 12_000
    weight_decay: float = 1e-4
    momentum: float = 0.9  # sgd only
    clip_norm: float = 1.0
    batch_size: int = 256

    def __post_init__(self):
        if self.name not in ("adamw", "sgd"):
            raise ValueError(f"optimizer must be adamw or sgd, got {self.name!r}")
        if self.learning_rate <= 0 or self.batch_size < 1:
            raise ValueError("learning_rate and batch_size must be positive")

    def make(self) -> optax.GradientTransformation:
        schedule = optax.warmup_cosine_decay_schedule(
            init_value=0.0,
            peak_value=self.learning_rate,
            warmup_steps=self.warmup_steps,
            decay_steps=max(self.decay_steps, self.warmup_steps + 1),
            end_value=self.learning_rate * 0.1,
        )
        cores = {
            "adamw": lambda: optax.adamw(schedule, weight_decay=self.weight_decay),
            "sgd": lambda: optax.chain(
                optax.add_decayed_weights(self.weight_decay),
                optax.sgd(schedule, momentum=self.momentum, nesterov=True),
            ),
        }
        return optax.chain(optax.clip_by_global_norm(self.clip_norm), cores[self.name]())


def lift_steps(stored: dict) -> dict:
    """A stored trainer config with `optimizer.steps_per_iteration` (where configs kept it
    before it became the trainer's own field) moved up to `steps_per_iteration`."""
    optimizer = dict(stored.get("optimizer", {}))
    if "steps_per_iteration" not in optimizer:
        return stored
    steps = optimizer.pop("steps_per_iteration")
    return {**stored, "optimizer": optimizer, "steps_per_iteration": steps}


def scan_steps(step, carry, xs):
    """`jax.lax.scan(step, carry, xs)` for a sequence of optimizer steps, fast on every backend.

    XLA:CPU compiles the backward convolutions of a while-loop body to a slow generic loop
    (measured by `bench.py --sgd-loop`, docs/benchmarks.md); unrolled, the steps use the fast
    kernels. So on CPU the steps are unrolled when traced; `lax.scan(unroll=True)` would not do
    for one step, which it still compiles as a loop (the slow path above).
    Accelerators keep the loop (shorter compile, same speed)."""
    length = jax.tree.leaves(xs)[0].shape[0]
    if jax.default_backend() != "cpu" or length == 0:
        return jax.lax.scan(step, carry, xs)
    outputs = []
    for index in range(length):  # unrolled while tracing: one compiled program, no host loop
        carry, output = step(carry, jax.tree.map(lambda x, i=index: x[i], xs))
        outputs.append(output)
    return carry, jax.tree.map(lambda *rows: jnp.stack(rows), *outputs)
