"""The policy-value network's two heads: the dense head fits one board size; the pooled head's
parameters fit every size of their game, its cell logits depend only on the cells' surroundings,
and an agent and a training run carry it from one size to another."""

import functools
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support.play_models import make_tiny_model

import hexjax
from hexjax.alphazero import network as network_lib
from hexjax.alphazero.config import PRESETS, TrainConfig
from hexjax.commands import export_model, train
from hexjax.games import GameConfig
from hexjax.play import Agent
from hexjax.training import models, restore
from hexjax.training.run_dir import RunDir

POOLED = network_lib.NetworkConfig("tiny", head="pooled")


def _shapes(config, game):
    net = network_lib.make_network(config, game.num_actions)
    shapes = jax.eval_shape(
        lambda key: network_lib.init_params(net, key, game.observation_shape), jax.random.key(0)
    )
    return jax.tree.map(lambda x: x.shape, shapes)


@pytest.mark.parametrize(
    "name, sizes, options",
    [("gomoku", (9, 15), {}), ("hex", (5, 11), {"swap": True}), ("othello", (6, 10), {})],
)
def test_pooled_parameters_are_the_same_at_every_size(name, sizes, options):
    small, large = (hexjax.make(name, size=size, **options) for size in sizes)
    assert _shapes(POOLED, small) == _shapes(POOLED, large)
    dense = network_lib.NetworkConfig("tiny")
    assert _shapes(dense, small) != _shapes(dense, large)  # its dense layers grow with the board


def test_pooled_cell_logits_depend_only_on_the_cells_around():
    """One block of two 3x3 convolutions after a 3x3 stem sees 3 cells around: a cell 3 or more
    from every edge scores the same on a 9x9 and a 15x15 board with the same stones around it."""
    small, large = hexjax.make("gomoku", size=9), hexjax.make("gomoku", size=15)
    net = network_lib.make_network(POOLED, small.num_actions)
    params = network_lib.init_params(net, jax.random.key(1), small.observation_shape)
    params = jax.tree.map(lambda x: x + 0.3 * jax.random.normal(jax.random.key(2), x.shape), params)
    moves = [(4, 4), (3, 5), (5, 5), (4, 3)]  # around the 9x9 centre; +3 rows and columns on 15
    state9 = small.from_moves([r * 9 + c for r, c in moves])
    state15 = large.from_moves([(r + 3) * 15 + (c + 3) for r, c in moves])
    logits9, _ = network_lib.apply(net, params, small.observe(state9)[None])
    large_net = network_lib.make_network(POOLED, large.num_actions)
    logits15, _ = network_lib.apply(large_net, params, large.observe(state15)[None])
    inner = [(r, c) for r in range(3, 6) for c in range(3, 6)]
    ours = np.array([logits9[0, r * 9 + c] for r, c in inner])
    theirs = np.array([logits15[0, (r + 3) * 15 + (c + 3)] for r, c in inner])
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
    assert np.ptp(ours) > 1e-3  # not a constant that would match anyway


@pytest.mark.parametrize("global_pooling", [False, True])
def test_global_pooling_lets_a_far_stone_reach_every_cell(global_pooling):
    """Without global pooling a corner cell's logit (pooled head, one block) sees 3 cells around
    it, so a stone in the far corner leaves it unchanged; with pooling in the block it moves."""
    game = hexjax.make("gomoku", size=9)
    config = network_lib.NetworkConfig("tiny", head="pooled", global_pooling=global_pooling)
    net = network_lib.make_network(config, game.num_actions)
    params = network_lib.init_params(net, jax.random.key(1), game.observation_shape)
    params = jax.tree.map(lambda x: x + 0.3 * jax.random.normal(jax.random.key(2), x.shape), params)
    # The same side to move; the second stone beside the centre or in the far corner (i9).
    near, far = game.from_moves([40, 41]), game.from_moves([40, 80])
    logits = [network_lib.apply(net, params, game.observe(s)[None])[0][0, 0] for s in (near, far)]
    assert (abs(float(logits[0] - logits[1])) > 1e-4) == global_pooling


def test_one_pooled_network_plays_two_sizes():
    game_config = GameConfig("hex", 5, swap=True)
    game = game_config.make()
    config = TrainConfig(game=game_config, network=POOLED)
    net = network_lib.make_network(POOLED, game.num_actions)
    params = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    agent = Agent.of_network(config, params, "a pooled network")
    for size in (5, 7):
        player = agent.at_size(size)
        state = player.game.from_moves("a1")
        found = player.move(state, simulations=4)
        assert found.policy.shape == (size * size + 1,)  # the cells and the swap
        assert bool(state.legal_action_mask[found.action])
    with pytest.raises(ValueError, match="size"):
        agent.at_size(1)


def test_the_dense_head_stays_on_its_size():
    agent = Agent.shipped("hex", size=7)
    assert agent.at_size(7) is agent
    with pytest.raises(ValueError, match="dense head, whose layers fit 7x7 only"):
        agent.at_size(9)


TINY = ["--preset", "tiny", "--game", "hex", "--iterations", "1", "--eval-every", "0",
        "--quiet"]  # fmt: skip


def test_a_run_starts_from_a_shipped_model(tmp_path, capsys, monkeypatch):
    directory = make_tiny_model(tmp_path / "models", "tiny4", "hex", 4)
    record = json.loads((directory / "tiny4.json").read_text())
    earlier = [{"run": "runs/h3", "game": "hex", "size": 3, "iterations": 9, "minutes": 1.0}]
    record["trained"] = {"iterations": 40, "minutes": 3.0, "started_from": earlier}
    (directory / "tiny4.json").write_text(json.dumps(record))
    loader = functools.partial(restore.from_model, directory=directory)
    monkeypatch.setattr(restore, "from_model", loader)
    workdir = tmp_path / "tuned"
    argv = [*TINY, "--board", "4", "--init-from", "model:tiny4", "--workdir", str(workdir)]
    assert train.main(argv) == 0
    assert json.loads((workdir / "config.json").read_text())["init_from"] == "model:tiny4"
    _, shipped = models.load("tiny4", directory)
    _, _, state, _ = restore.restore_trained(workdir)
    assert int(state.updates) == 0  # no step yet: the start itself
    same = jax.tree.map(lambda a, b: bool(jnp.array_equal(a, b)), shipped, state.params)
    assert all(jax.tree.leaves(same))
    chain = json.loads(RunDir(workdir).origin.read_text())
    assert chain == [
        {"run": "model:tiny4", "game": "hex", "size": 4, "iterations": 40, "minutes": 3.0},
        *earlier,
    ]
    # A name that is not shipped: refused before anything is written, the models listed.
    refused = tmp_path / "refused"
    argv = [*TINY, "--board", "4", "--init-from", "model:tiny9", "--workdir", str(refused)]
    assert train.main(argv) == 2
    error = capsys.readouterr().err
    assert "no model 'tiny9'" in error and "(models: tiny4)" in error
    assert not (refused / "config.json").exists()
    # The store sits beside the checkpoints: training reads a model with no loader handed in.
    params, chain = restore.starting_params("model:tiny4", shipped)
    assert chain[0]["run"] == "model:tiny4" and chain[1:] == earlier
    assert all(
        jax.tree.leaves(jax.tree.map(lambda a, b: bool(jnp.array_equal(a, b)), shipped, params))
    )


def test_a_run_starts_from_another_sizes_network(tmp_path, capsys, monkeypatch):
    origin, grown, refused = tmp_path / "seven", tmp_path / "nine", tmp_path / "dense"
    pooled = ["--network.head", "pooled"]
    # Another seed than the new run's: equal parameters can only have come from the origin.
    argv = [*TINY, *pooled, "--board", "3", "--seed", "1", "--workdir", str(origin)]
    assert train.main(argv) == 0
    argv = [*TINY, *pooled, "--board", "4", "--init-from", str(origin), "--workdir", str(grown)]
    assert train.main(argv) == 0
    assert json.loads((grown / "config.json").read_text())["init_from"] == str(origin.resolve())
    _, _, first, _ = restore.restore_trained(origin)
    _, config, second, _ = restore.restore_trained(grown)
    assert config.game.size == 4 and int(second.updates) == 0  # no step yet: the start itself
    same = jax.tree.map(lambda a, b: bool(jnp.array_equal(a, b)), first.params, second.params)
    assert all(jax.tree.leaves(same))
    # Where it started is kept beside the run and goes into a model exported from it.
    chain = json.loads(RunDir(grown).origin.read_text())
    assert [(r["run"], r["game"], r["size"], r["iterations"]) for r in chain] == [
        (str(origin.resolve()), "hex", 3, 1)
    ]
    models = tmp_path / "models"
    argv = ["--checkpoint", str(grown), "--name", "grown", "--directory", str(models)]
    assert export_model.main(argv) == 0
    exported = json.loads((models / "grown.json").read_text())
    trained = exported["trained"]
    assert trained["started_from"] == chain  # outside the working directory: as it was
    # Inside it, the model file names the origin relative to it, not by this machine's path.
    monkeypatch.chdir(tmp_path)
    assert export_model.main(argv) == 0
    exported = json.loads((models / "grown.json").read_text())
    assert exported["config"]["init_from"] == "seven"
    assert [r["run"] for r in exported["trained"]["started_from"]] == ["seven"]
    assert trained["minutes_in_all"] == pytest.approx(
        trained["minutes"] + chain[0]["minutes"], abs=0.1
    )
    RunDir(origin).origin.write_text("{not json")
    with pytest.raises(ValueError, match="origin.json is not JSON"):
        restore.origins(origin)
    assert PRESETS["tiny"].init_from == ""
    # A dense-head run cannot take it: the message names the layer and the way out.
    argv = [*TINY, "--board", "4", "--init-from", str(origin), "--workdir", str(refused)]
    assert train.main(argv) == 2
    error = capsys.readouterr().err
    assert "its network does not fit this run's" in error and "--network.head pooled" in error
    # Nor a network that reads other input planes (as --swap or --game.threats make them).
    pooled_config = network_lib.NetworkConfig(preset="tiny", head="pooled")
    net = network_lib.make_network(pooled_config, 3 * 3)
    params = network_lib.init_params(net, jax.random.key(0), (3, 3, 5))
    with pytest.raises(ValueError, match="reads 4 input planes, this run's 5: the games' options"):
        restore.starting_params(origin, params)
