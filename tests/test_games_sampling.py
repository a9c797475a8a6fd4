"""The random legal-action sampler: only legal actions, each equally likely."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexjax.games import random_legal_action


@pytest.mark.parametrize("num_actions", [1, 2, 4, 10, 26, 122, 362])
def test_samples_are_legal_and_uniform(num_actions):
    rng = np.random.default_rng(num_actions)
    mask = rng.random(num_actions) < 0.3
    mask[rng.integers(num_actions)] = True
    draws = 40_000
    masks = jnp.broadcast_to(jnp.asarray(mask), (draws, num_actions))
    actions = np.asarray(jax.jit(random_legal_action)(jax.random.key(0), masks))
    assert mask[actions].all()
    counts = np.bincount(actions, minlength=num_actions)[mask]
    expected = draws / mask.sum()
    # Chi-square against the uniform distribution over legal actions (p > 1e-6).
    chi2 = ((counts - expected) ** 2 / expected).sum()
    dof = max(mask.sum() - 1, 1)
    assert chi2 < dof + 10 * np.sqrt(2 * dof) + 20


def test_unbatched_and_edge_cells():
    mask = jnp.zeros(122, bool).at[121].set(True)
    assert int(random_legal_action(jax.random.key(1), mask)) == 121
    mask = jnp.zeros(122, bool).at[0].set(True)
    assert int(random_legal_action(jax.random.key(2), mask)) == 0


def test_different_keys_give_different_choices():
    mask = jnp.ones((1, 121), bool)
    keys = jax.random.split(jax.random.key(3), 50)
    actions = jax.vmap(lambda k: random_legal_action(k, mask)[0])(keys)
    assert len(set(np.asarray(actions).tolist())) > 30
