"""mctx search over a hexjax game with a policy-value network.

`make_search(game, network, config)` returns `search(params, key, states) -> SearchResult` for a
batch of game states. The tree's embeddings are the game states themselves; `recurrent_fn` steps
the game and evaluates the network on the child:

- reward: the outcome for the player who moved (+1 win, -1 loss, a draw `SearchConfig.draw_value`
  for the first player and its negative for the second, plus `SearchConfig.contempt`'s share),
  0 if the game goes on or the parent was already over (a finished game is absorbing and pays
  nothing more);
- discount: -1 between plies (the next node is valued by the other player: every ply, passes and
  swaps included, hands the move over), 0 once the game is over, and the value there is 0;
  `SearchConfig.discount` < 1 makes it -discount, so that an outcome k plies ahead is worth
  discount^k: the search then prefers the quicker of two wins and the slower of two losses;
- illegal actions get prior logits of -inf-like (float32 min) at every node, and the selection
  rule refuses them (mctx's `invalid_actions` covers only the root). Gumbel's interior rule
  already never picks a zero-prior action while a legal one exists; PUCT's does (a legal child
  with a vanishing prior and a poor value can lose to an illegal one on the tie-break noise), so
  the PUCT selection here masks with the node's own legal mask, read from its embedding;
- a finished game has no legal move, yet a simulation that reaches it must still expand a child
  below it (mctx has no terminal nodes). PUCT's rule would send every such visit down one chain
  of empty positions, one node deeper each time, and a search walks its whole depth twice a
  simulation: a won line found early then costs hundreds of steps a simulation. There the rule
  takes the least visited child instead, so the visits spread and the chain stays a few nodes
  deep (Gumbel's interior rule spreads them already). Values and visits are the same either way,
  as everything below a finished game is worth 0; `max_depth` (the game's longest) bounds the
  walk whatever the rule.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Literal

import chex
import jax
import jax.numpy as jnp
import mctx

from hexjax.alphazero import network as network_lib
from hexjax.games import Game, State

MASKED = jnp.finfo(jnp.float32).min
# Simulations a move when an agent plays (evaluation, the engines, the web), unless told.
PLAY_SIMULATIONS = 64
# Sequential halving's first round should give each considered action this many visits.
_FIRST_ROUND_VISITS = 2


def considered_actions(num_simulations: int) -> int:
    """How many root actions a Gumbel search of `num_simulations` considers when it plays.

    Sequential halving spends the simulations in log2(m) rounds, so each of the m actions
    gets n / (m log2 m) visits in the first round. The rule takes the largest power of two m
    that still gives each action _FIRST_ROUND_VISITS (2) there, m log2 m <= n / 2: at 1 visit
    the first cut is the value network's one-ply guess, and beyond the point where halving
    stops being starved, more actions only spread the budget. This gives m = 16 at 200
    simulations, the choice of Danihelka et al. 2022 ("Policy improvement by planning with
    Gumbel") for Go, 8 at 64 (the training default, so 64-simulation play is unchanged), 16 at
    256, 64 at 1024 and 256 at 4096; mctx caps m at the legal moves, so large counts consider
    every legal move (all 49 of Hex 7x7 from 1024 on, all 81 of Gomoku 9x9 at 4096).
    """
    count = 2
    while True:
        wider = 2 * count
        if wider * (wider.bit_length() - 1) * _FIRST_ROUND_VISITS > num_simulations:
            return count
        count = wider


@dataclasses.dataclass(frozen=True)
class SearchConfig:
    """How self-play and evaluation search. Gumbel MuZero by default, PUCT as the option."""

    policy: Literal["gumbel", "puct"] = "gumbel"
    num_simulations: int = 16
    max_considered_actions: int = 8  # Gumbel: actions sampled at the root
    gumbel_scale: float = 1.0  # Gumbel: 0 searches deterministically (evaluation)
    dirichlet_fraction: float = 0.25  # PUCT: root noise
    dirichlet_alpha: float = 0.3
    pb_c_init: float = 1.25
    pb_c_base: float = 19652.0
    temperature_plies: int = 10  # PUCT: sample by visit counts this many plies, then best
    # Per ply: an outcome k plies ahead is worth discount^k. Below 1 the search (and the value
    # targets, which use the same rate) tell a quick loss from a long fight: a lost position is
    # played to make the opponent find the longest win, not given up.
    discount: float = 1.0
    # A drawn game's value for the first player; the second player's is its negative, so the
    # game stays zero-sum and the tree's hand-over (-1 a ply) stays right. Below 0 the first
    # player plays for a win and the second for the draw (the value targets use it too).
    draw_value: float = 0.0
    # Where the game's rules settle a position a few plies ahead (`Game.forced_result`: in
    # Gomoku, fives and open fours), the search takes that result for the network's value.
    tactics: bool = False
    # Play only (Leela Chess Zero's contempt): a draw is worth -contempt to the player the
    # search moves for and +contempt to the other, in the tree's drawn games and, through the
    # network's draw head (its chance of a draw p), in every value: v -/+ contempt * p. Against
    # a weaker player it plays for the win where the draw is all the plain value sees.
    contempt: float = 0.0

    def __post_init__(self):
        if self.policy not in ("gumbel", "puct"):
            raise ValueError(f"search policy must be gumbel or puct, got {self.policy!r}")
        if self.num_simulations < 1:
            raise ValueError(f"num_simulations must be at least 1, got {self.num_simulations}")
        if self.max_considered_actions < 1:
            raise ValueError("max_considered_actions must be at least 1")
        if not 0.0 < self.discount <= 1.0:
            raise ValueError(f"discount must be in (0, 1], got {self.discount}")
        if not -1.0 < self.draw_value < 1.0:
            raise ValueError(f"draw_value must be in (-1, 1), got {self.draw_value}")
        if not 0.0 <= self.contempt < 1.0:
            raise ValueError(f"contempt must be in [0, 1), got {self.contempt}")

    def deterministic(
        self,
        num_simulations: int | None = None,
        *,
        considered_actions: int | None = None,
        policy: Literal["gumbel", "puct"] | None = None,
        tactics: bool | None = None,
        contempt: float | None = None,
    ) -> SearchConfig:
        """The search that evaluation, the engines and the web play with: the same search
        without Gumbel or root noise, always the best move; `num_simulations` if given. The
        considered actions grow with the count (`considered_actions(n)`, never below the
        training's) unless given; `policy` switches between Gumbel and PUCT, `tactics` turns
        the forced results on or off, `contempt` sets it."""
        count = self.num_simulations if num_simulations is None else num_simulations
        if considered_actions is None:
            considered_actions = max(self.max_considered_actions, _considered_for(count))
        return dataclasses.replace(
            self,
            policy=self.policy if policy is None else policy,
            gumbel_scale=0.0,
            dirichlet_fraction=0.0,
            temperature_plies=0,
            num_simulations=count,
            max_considered_actions=considered_actions,
            tactics=self.tactics if tactics is None else tactics,
            contempt=self.contempt if contempt is None else contempt,
        )


_considered_for = considered_actions  # the method's argument hides the function's name


@chex.dataclass(frozen=True)
class SearchResult:
    action: chex.Array  # int32[B] the move to play
    policy: chex.Array  # float32[B, A] the search's improved policy: the training target
    value: chex.Array  # float32[B] the root value after search, mover's view
    # the search tree (for hints and tests; dropped by jit when unused); None from a capped search
    tree: mctx.Tree | None
    # float32[B, A] the network's logits at the root, illegal moves masked, before any noise:
    # what the search improved on (policy surprise weighting reads it)
    prior_logits: chex.Array | None = None


def valued_rewards(rewards: jax.Array, over: jax.Array, draw_value: float) -> jax.Array:
    """Rewards float32[..., 2] of games `over` (bool[...]) with a draw ([0, 0]) paying
    `draw_value` to the first player and `-draw_value` to the second."""
    drawn = over & jnp.all(rewards == 0, axis=-1)
    draw = jnp.asarray([draw_value, -draw_value], jnp.float32)
    return jnp.where(drawn[..., None], draw, rewards)


def masked_logits(logits: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    return jnp.where(legal_action_mask, logits, MASKED)


def contempt_worth(contempt: float, mover: jax.Array, us: jax.Array) -> jax.Array:
    """What contempt adds to a draw's worth for `mover`: -contempt where it is `us` (the
    player the search moves for), +contempt for the other."""
    return jnp.where(mover == us, -contempt, contempt)


def evaluate(
    game: Game, net, params, states: State, config: SearchConfig | None = None, us=None
) -> tuple[jax.Array, jax.Array]:
    """The network's masked logits and value on `states`; with `config.tactics`, the value
    is the game's forced result where it has one (discounted as the search discounts); with
    `config.contempt`, the value moved by the draw head's chance of a draw as contempt values
    it for the player to move, `us` (int32[B], default the movers) being the search's side."""
    obs = jax.vmap(game.observe)(states)
    if config is not None and config.contempt:
        logits, value, draw = network_lib.apply_with_draws(net, params, obs)
        us = states.current_player if us is None else us
        worth = contempt_worth(config.contempt, states.current_player, us)
        value = jnp.clip(value + worth * draw, -1.0, 1.0)
    else:
        logits, value = network_lib.apply(net, params, obs)
    if config is not None and config.tactics:
        result, plies = jax.vmap(game.forced_result)(states)
        forced = result * config.discount ** jnp.maximum(plies - 1, 0).astype(jnp.float32)
        value = jnp.where(result != 0, forced, value)
    return masked_logits(logits, states.legal_action_mask), value


def recurrent_step(game: Game, net, config: SearchConfig, params, key, action, states):
    """mctx's recurrent function; with contempt, `params` is (the network's, `us` int32[B]:
    the side each tree's search moves for)."""
    del key  # the games and the network are deterministic
    params, us = params if config.contempt else (params, None)
    mover = states.current_player
    children = jax.vmap(game.step)(states, action)
    logits, value = evaluate(game, net, params, children, config, us)
    over = children.terminated
    rewards = valued_rewards(children.rewards, over, config.draw_value)
    reward = jnp.take_along_axis(rewards, mover[:, None], axis=1)[:, 0]
    if config.contempt:
        drawn = over & jnp.all(children.rewards == 0, axis=-1)
        reward = reward + jnp.where(drawn, contempt_worth(config.contempt, mover, us), 0.0)
    reward = jnp.where(states.terminated, 0.0, reward)
    output = mctx.RecurrentFnOutput(
        reward=reward,
        discount=jnp.where(over, 0.0, -config.discount),
        prior_logits=logits,
        value=jnp.where(over, 0.0, value),
    )
    return output, children


def puct_selection(rng_key, tree, node_index, depth, *, pb_c_init, pb_c_base):
    """mctx's PUCT rule, with every node's illegal actions masked (from its embedding, and at
    the root the search's `invalid_actions` too); in a finished game (no legal action) the
    least visited child, so that visits spread."""
    del depth
    visit_counts = tree.children_visits[node_index]
    node_visit = tree.node_visits[node_index]
    pb_c = pb_c_init + jnp.log((node_visit + pb_c_base + 1.0) / pb_c_base)
    prior_probs = jax.nn.softmax(tree.children_prior_logits[node_index])
    policy_score = jnp.sqrt(node_visit) * pb_c * prior_probs / (visit_counts + 1)
    value_score = mctx.qtransform_by_parent_and_siblings(tree, node_index)
    noise = 1e-7 * jax.random.uniform(rng_key, (tree.num_actions,))
    legal = tree.embeddings.legal_action_mask[node_index]
    # At the root, the moves the search was given (a player may prune some: Hex's dead cells).
    root = node_index == tree.ROOT_INDEX
    legal = jnp.where(root, legal & ~tree.root_invalid_actions, legal)
    score = jnp.where(legal, value_score + policy_score + noise, -jnp.inf)
    action = jnp.where(legal.any(), jnp.argmax(score), jnp.argmin(visit_counts))
    return action.astype(jnp.int32)


def make_search(game: Game, net, config: SearchConfig):
    """search(params, key, states: State[B], ply: int32[B] | None) -> SearchResult.

    `ply` (the plies played in each game) drives PUCT's temperature schedule; Gumbel ignores it.
    """
    recurrent_fn = functools.partial(recurrent_step, game, net, config)

    def search(params, key: jax.Array, states: State, ply: jax.Array | None = None):
        logits, value = evaluate(game, net, params, states, config)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=states)
        invalid = ~states.legal_action_mask
        # With contempt, the tree's nodes need the side the search moves for: the root's mover.
        tree_params = (params, states.current_player) if config.contempt else params
        if config.policy == "gumbel":
            out = mctx.gumbel_muzero_policy(
                tree_params,
                key,
                root,
                recurrent_fn,
                num_simulations=config.num_simulations,
                invalid_actions=invalid,
                max_num_considered_actions=config.max_considered_actions,
                gumbel_scale=config.gumbel_scale,
                max_depth=game.max_plies,
            )
            action, policy, tree = out.action, out.action_weights, out.search_tree
        else:
            action, policy, tree = _puct(
                config, tree_params, key, root, recurrent_fn, ply, game.max_plies
            )
        return SearchResult(
            action=action.astype(jnp.int32),
            policy=policy,
            value=tree.summary().value,
            tree=tree,
            prior_logits=logits,
        )

    return search


def full_search_count(full_share: float, games: int) -> int:
    """How many of `games` a capped search gives the full search; ValueError if none or all."""
    count = round(full_share * games)
    if not 0 < count < games:
        raise ValueError(
            f"full_search_share {full_share} of {games} self-play games leaves no game with a "
            "full search or none with a cheap one"
        )
    return count


def make_capped_search(
    game: Game, net, config: SearchConfig, full_share: float, cheap_simulations: int
):
    """Playout cap randomization (KataGo, Wu 2019): search(params, key, states, ply) as
    `make_search`'s, where a random `full_share` of the games (a fixed count, drawn anew each
    call) get the full search of `config` and the rest a cheap one of `cheap_simulations`. Both
    play their move; only a full search's policy is a training target: a cheap row's policy is
    all zeros, which the loss reads as "no policy target" (its value target still counts).
    The tree is not returned (two searches of two sizes)."""
    full_search = make_search(game, net, config)
    cheap_search = make_search(
        game, net, dataclasses.replace(config, num_simulations=cheap_simulations)
    )

    def search(params, key: jax.Array, states: State, ply: jax.Array | None = None):
        batch = states.terminated.shape[0]
        full_count = full_search_count(full_share, batch)
        order_key, full_key, cheap_key = jax.random.split(key, 3)
        order = jax.random.permutation(order_key, batch)
        rows = (order[:full_count], order[full_count:])

        def run(search_fn, key, rows):
            part = jax.tree.map(lambda x: x[rows], states)
            return search_fn(params, key, part, None if ply is None else ply[rows])

        full, cheap = run(full_search, full_key, rows[0]), run(cheap_search, cheap_key, rows[1])

        def join(full_part, cheap_part):
            whole = jnp.zeros((batch, *full_part.shape[1:]), full_part.dtype)
            return whole.at[rows[0]].set(full_part).at[rows[1]].set(cheap_part)

        return SearchResult(
            action=join(full.action, cheap.action),
            policy=join(full.policy, jnp.zeros_like(cheap.policy)),
            value=join(full.value, cheap.value),
            tree=None,
            prior_logits=join(full.prior_logits, cheap.prior_logits),
        )

    return search


def _puct(config: SearchConfig, params, key, root, recurrent_fn, ply, max_depth):
    noise_key, search_key, action_key = jax.random.split(key, 3)
    legal = root.embedding.legal_action_mask
    probs = jax.nn.softmax(root.prior_logits)
    noise = jax.random.dirichlet(noise_key, jnp.full(probs.shape[-1], config.dirichlet_alpha))
    mixed = (1 - config.dirichlet_fraction) * probs + config.dirichlet_fraction * noise
    root = root.replace(prior_logits=masked_logits(jnp.log(mixed + 1e-12), legal))
    selection = functools.partial(
        puct_selection, pb_c_init=config.pb_c_init, pb_c_base=config.pb_c_base
    )
    tree = mctx.search(
        params=params,
        rng_key=search_key,
        root=root,
        recurrent_fn=recurrent_fn,
        root_action_selection_fn=functools.partial(selection, depth=0),
        interior_action_selection_fn=selection,
        num_simulations=config.num_simulations,
        max_depth=max_depth,
        invalid_actions=~legal,
    )
    visits = tree.summary().visit_counts.astype(jnp.float32)  # [B, A]
    policy = visits / jnp.maximum(visits.sum(axis=-1, keepdims=True), 1.0)
    sampled = jax.random.categorical(action_key, masked_logits(jnp.log(policy + 1e-12), legal))
    best = jnp.argmax(jnp.where(legal, visits, -1.0), axis=-1)
    ply = jnp.zeros(visits.shape[0], jnp.int32) if ply is None else ply
    action = jnp.where(ply < config.temperature_plies, sampled, best)
    return action, policy, tree
