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
    # name (the training presets' names): (channels, blocks)
    "tiny": (8, 1),  # tests: compiles and runs in seconds
    "cpu": (32, 2),  # laptop CPU
    "accelerator": (128, 10),  # GPU / TPU
}
HEADS = ("dense", "pooled")


@dataclasses.dataclass(frozen=True)
class NetworkConfig:
    """The network's shape. `preset` names a (channels, blocks) pair; explicit values win."""

    preset: str = "cpu"
    channels: int | None = None  # None: the preset's
    blocks: int | None = None  # None: the preset's
    compute_dtype: Literal["float32", "bfloat16"] = "float32"  # bfloat16 for accelerators
    head: Literal["dense", "pooled"] = "dense"  # pooled: the same parameters fit every size
    # Global pooling in every residual block (KataGo): the first convolution's features pooled
    # over the board (mean, max) add a learned bias to each channel, so that a block sees the
    # whole board at once, not only a 3x3 window more than the block before.
    global_pooling: bool = False
    # Auxiliary heads, trained but never used in play (KataGo's): the opponent's reply policy
    # and each cell's final owner.
    reply_head: bool = False
    ownership_head: bool = False
    # The chance that the game ends drawn (Leela Chess Zero's draw share of its win-draw-loss
    # value), trained with the others; play reads it only with contempt (`SearchConfig`).
    draw_head: bool = False

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
        if (self.channels is not None and self.channels < 1) or (
            self.blocks is not None and self.blocks < 0
        ):
            raise ValueError("channels must be at least 1 and blocks at least 0")

    @classmethod
    def from_stored(cls, data: dict) -> dict:
        """A stored config's fields as this version names them: configs written before
        `channels` and `blocks` could be None said 0 and -1 for "the preset's", and the
        accelerator preset was called "large"."""
        data = dict(data)
        if data.get("channels") == 0:
            data["channels"] = None
        if data.get("blocks") == -1:
            data["blocks"] = None
        if data.get("preset") == "large":
            data["preset"] = "accelerator"
        return data

    @property
    def shape(self) -> tuple[int, int]:
        channels, blocks = PRESETS[self.preset]
        return (
            channels if self.channels is None else self.channels,
            blocks if self.blocks is None else self.blocks,
        )


def _board_pooled(x: jax.Array) -> jax.Array:
    """Features [B, n, n, C] pooled over the board: mean and max, [B, 2C]."""
    return jnp.concatenate([x.mean(axis=(1, 2)), x.max(axis=(1, 2))], axis=-1)


class _ResidualBlock(nn.Module):
    channels: int
    dtype: jnp.dtype
    global_pooling: bool = False

    @nn.compact
    def __call__(self, x):
        y = nn.Conv(self.channels, (3, 3), dtype=self.dtype)(x)
        if self.global_pooling:  # KataGo's: the board's mean and max bias every cell's channels
            h = nn.relu(y)
            bias = nn.Dense(self.channels, dtype=self.dtype)(_board_pooled(h))
            y = y + bias[:, None, None, :]
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
    reply_head: bool = False
    ownership_head: bool = False
    draw_head: bool = False

    @nn.compact
    def __call__(self, obs: jax.Array, aux: bool = False):
        """(logits, value); with `aux`, (logits, value, {head name: output}) for the auxiliary
        heads the network has (none: an empty dict)."""
        x = nn.relu(nn.Conv(self.channels, (3, 3), dtype=self.dtype)(obs.astype(self.dtype)))
        for _ in range(self.blocks):
            x = _ResidualBlock(self.channels, self.dtype, self.global_pooling)(x)
        heads = self._pooled_heads(x) if self.head == "pooled" else self._dense_heads(x)
        return (*heads, self._aux_heads(x)) if aux else heads

    def _dense_heads(self, x):
        batch = x.shape[0]
        # Flax names these layers by their order (Conv_1, Dense_0, ...): stored parameters and
        # the ONNX writer rely on it, so new layers get names of their own.
        policy = nn.relu(nn.Conv(2, (1, 1), dtype=self.dtype)(x)).reshape(batch, -1)
        logits = nn.Dense(self.num_actions, dtype=self.dtype)(policy)
        value = nn.relu(nn.Conv(1, (1, 1), dtype=self.dtype)(x)).reshape(batch, -1)
        value = nn.relu(nn.Dense(max(self.channels, 16), dtype=self.dtype)(value))
        value = jnp.tanh(nn.Dense(1, dtype=self.dtype)(value))[:, 0]
        return logits.astype(jnp.float32), value.astype(jnp.float32)

    def _cell_policy(self, x, pooled, prefix):
        """Size-free logits: one per cell from a 1x1 convolution, the extra actions (pass,
        swap: the same count at every size) from the pooled features."""
        batch, height, width, _ = x.shape
        cells = nn.Conv(1, (1, 1), dtype=self.dtype, name=f"{prefix}_cells")(x)
        logits = cells.reshape(batch, height * width)
        extra = self.num_actions - height * width
        if extra:
            extra_logits = nn.Dense(extra, dtype=self.dtype, name=f"{prefix}_extra")(pooled)
            logits = jnp.concatenate([logits, extra_logits], axis=-1)
        return logits

    def _aux_heads(self, x):
        batch, height, width, _ = x.shape
        out = {}
        if self.reply_head:
            if self.head == "pooled":
                out["reply"] = self._cell_policy(x, _board_pooled(x), "reply")
            else:
                planes = nn.Conv(2, (1, 1), dtype=self.dtype, name="reply_conv")(x)
                out["reply"] = nn.Dense(self.num_actions, dtype=self.dtype, name="reply_dense")(
                    nn.relu(planes).reshape(batch, -1)
                )
        if self.ownership_head:
            owner = nn.Conv(1, (1, 1), dtype=self.dtype, name="ownership_cells")(x)
            out["ownership"] = jnp.tanh(owner.reshape(batch, height * width))
        if self.draw_head:  # a logit: the chance of a draw is its sigmoid
            # It reads the trunk without training it: early self-play has no draws, and that
            # constant target was met by driving the trunk's features to zero, which killed
            # the policy and value (Gomoku 9x9, 11 iterations). tanh, not ReLU: a unit pushed
            # down by that target must still learn once draws come.
            pooled = jax.lax.stop_gradient(_board_pooled(x))
            hidden = nn.Dense(max(self.channels, 16), dtype=self.dtype, name="draw_hidden")
            logit = nn.Dense(1, dtype=self.dtype, name="draw_out")(jnp.tanh(hidden(pooled)))
            out["draw"] = logit[:, 0]
        return {name: y.astype(jnp.float32) for name, y in out.items()}

    def _pooled_heads(self, x):
        pooled = _board_pooled(x)
        logits = self._cell_policy(x, pooled, "policy")
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
        reply_head=config.reply_head,
        ownership_head=config.ownership_head,
        draw_head=config.draw_head,
    )


def init_params(network: PolicyValueNet, key: jax.Array, observation_shape) -> dict:
    """Float32 parameters for `network`, from a dummy batch of one observation."""
    return network.init(key, jnp.zeros((1, *observation_shape), jnp.float32), aux=True)["params"]


def apply(network: PolicyValueNet, params, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(logits float32[B, A], value float32[B]) for observations float32[B, n, n, C]."""
    return network.apply({"params": params}, obs)


def apply_aux(network: PolicyValueNet, params, obs: jax.Array):
    """(logits, value, {"reply": float32[B, A], "ownership": float32[B, n * n], "draw":
    float32[B] logits}) with the auxiliary heads the network has."""
    return network.apply({"params": params}, obs, aux=True)


def apply_with_draws(network: PolicyValueNet, params, obs: jax.Array):
    """(logits, value, the chance of a draw float32[B]) for a network with the draw head."""
    logits, value, aux = apply_aux(network, params, obs)
    return logits, value, jax.nn.sigmoid(aux["draw"])


# Name prefixes of the auxiliary heads' layers: what export leaves out (and the draw head's:
# an exported network plays without contempt).
AUX_LAYERS = ("reply_", "ownership_", "draw_")


def without_aux(params) -> dict:
    """The parameters of the policy and value alone (the network as play and export use it)."""
    return {name: layer for name, layer in params.items() if not name.startswith(AUX_LAYERS)}
