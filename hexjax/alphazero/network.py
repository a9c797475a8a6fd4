"""Policy-value ResNet for every hexjax game (Flax linen; parameters are a plain pytree).

Input: observations float32[B, n, n, C] from the mover's view. Output: policy logits
float32[B, num_actions] (cells first, then the game's extra actions such as pass or swap) and a
value float32[B] in [-1, 1], the expected outcome for the side to move.

The trunk is `blocks` residual blocks of two 3x3 convolutions with `channels` filters (with
`global_pooling`, each block adds a bias from its features pooled over the board). Two
heads (`NetworkConfig.head`):

- "dense" (the default, what every shipped model uses): the policy is a 1x1 convolution to 2
  planes and a dense layer onto all actions (it covers the extra actions and lets the board edge
  matter); the value is a 1x1 convolution to 1 plane, a hidden dense layer and tanh. Its dense
  layers are sized by the board, so its parameters fit one board size.
- "pooled" (size-free, as KataGo's heads): the policy is a 1x1 convolution to one logit per
  cell, plus the game's extra actions (pass, swap) from the trunk's features pooled over the
  board (mean and max); the value is a hidden dense layer and tanh on the same pooled features.
  No parameter depends on the board size, so one network evaluates every size of its game.

Batch normalisation is left out on purpose: it would add mutable state to every call inside
the search, and at these depths it is not needed.

`hexjax/play/_onnx.py` writes this network as an ONNX graph op by op: a change of layers here
needs the same change there (tests/test_play_export.py fails until it is made).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import flax.linen as nn
import jax
import jax.numpy as jnp

PRESETS = {
    # name: (channels, blocks)
    "tiny": (8, 1),  # tests: compiles and runs in seconds
    "cpu": (32, 2),  # laptop CPU
    "large": (128, 10),  # GPU / TPU
}
HEADS = ("dense", "pooled")


@dataclasses.dataclass(frozen=True)
class NetworkConfig:
    """The network's shape. `preset` names a (channels, blocks) pair; explicit values win."""

    preset: str = "cpu"
    channels: int = 0  # 0: from the preset
    blocks: int = -1  # -1: from the preset
    compute_dtype: Literal["float32", "bfloat16"] = "float32"  # bfloat16 for accelerators
    head: Literal["dense", "pooled"] = "dense"  # pooled: the same parameters fit every size
    # Global pooling in every residual block (KataGo): the first convolution's features pooled
    # over the board (mean, max) add a learned bias to each channel, so that a block sees the
    # whole board at once, not only a 3x3 window more than the block before.
    global_pooling: bool = False

    def __post_init__(self):
        if self.preset not in PRESETS:
            raise ValueError(
                f"network preset must be one of {', '.join(PRESETS)}, got {self.preset!r}"
            )
        if self.compute_dtype not in ("float32", "bfloat16"):
            raise ValueError(
                f"compute_dtype must be float32 or bfloat16, got {self.compute_dtype!r}"
            )
        if self.head not in HEADS:
            raise ValueError(f"network head must be one of {', '.join(HEADS)}, got {self.head!r}")
        if self.channels < 0 or self.blocks < -1:
            raise ValueError("channels and blocks must not be negative")

    @property
    def shape(self) -> tuple[int, int]:
        channels, blocks = PRESETS[self.preset]
        return (self.channels or channels, blocks if self.blocks < 0 else self.blocks)


class _ResidualBlock(nn.Module):
    channels: int
    dtype: jnp.dtype
    global_pooling: bool = False

    @nn.compact
    def __call__(self, x):
        y = nn.Conv(self.channels, (3, 3), dtype=self.dtype)(x)
        if self.global_pooling:  # KataGo's: the board's mean and max bias every cell's channels
            h = nn.relu(y)
            pooled = jnp.concatenate([h.mean(axis=(1, 2)), h.max(axis=(1, 2))], axis=-1)
            y = y + nn.Dense(self.channels, dtype=self.dtype)(pooled)[:, None, None, :]
        y = nn.Conv(self.channels, (3, 3), dtype=self.dtype)(nn.relu(y))
        return nn.relu(x + y)


class PolicyValueNet(nn.Module):
    """See the module docstring. Parameters stay float32; `dtype` is the compute type."""

    num_actions: int
    channels: int = 32
    blocks: int = 3
    dtype: jnp.dtype = jnp.float32
    head: str = "dense"
    global_pooling: bool = False

    @nn.compact
    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = nn.relu(nn.Conv(self.channels, (3, 3), dtype=self.dtype)(obs.astype(self.dtype)))
        for _ in range(self.blocks):
            x = _ResidualBlock(self.channels, self.dtype, self.global_pooling)(x)
        batch = x.shape[0]
        if self.head == "pooled":
            return self._pooled_heads(x)
        policy = nn.relu(nn.Conv(2, (1, 1), dtype=self.dtype)(x)).reshape(batch, -1)
        logits = nn.Dense(self.num_actions, dtype=self.dtype)(policy)
        value = nn.relu(nn.Conv(1, (1, 1), dtype=self.dtype)(x)).reshape(batch, -1)
        value = nn.relu(nn.Dense(max(self.channels, 16), dtype=self.dtype)(value))
        value = jnp.tanh(nn.Dense(1, dtype=self.dtype)(value))[:, 0]
        return logits.astype(jnp.float32), value.astype(jnp.float32)

    def _pooled_heads(self, x):
        batch, height, width, _ = x.shape
        pooled = jnp.concatenate([x.mean(axis=(1, 2)), x.max(axis=(1, 2))], axis=-1)
        cells = nn.Conv(1, (1, 1), dtype=self.dtype, name="policy_cells")(x)
        logits = cells.reshape(batch, height * width)
        extra = self.num_actions - height * width  # pass, swap: the same count at every size
        if extra:
            extra_logits = nn.Dense(extra, dtype=self.dtype, name="policy_extra")(pooled)
            logits = jnp.concatenate([logits, extra_logits], axis=-1)
        value = nn.relu(
            nn.Dense(max(self.channels, 16), dtype=self.dtype, name="value_hidden")(pooled)
        )
        value = jnp.tanh(nn.Dense(1, dtype=self.dtype, name="value_out")(value))[:, 0]
        return logits.astype(jnp.float32), value.astype(jnp.float32)


def make_network(config: NetworkConfig, num_actions: int) -> PolicyValueNet:
    channels, blocks = config.shape
    return PolicyValueNet(
        num_actions=num_actions,
        channels=channels,
        blocks=blocks,
        dtype=jnp.bfloat16 if config.compute_dtype == "bfloat16" else jnp.float32,
        head=config.head,
        global_pooling=config.global_pooling,
    )


def init_params(network: PolicyValueNet, key: jax.Array, observation_shape) -> dict:
    """Float32 parameters for `network`, from a dummy batch of one observation."""
    return network.init(key, jnp.zeros((1, *observation_shape), jnp.float32))["params"]


def apply(network: PolicyValueNet, params, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(logits float32[B, A], value float32[B]) for observations float32[B, n, n, C]."""
    return network.apply({"params": params}, obs)
