"""Exported programs: traced once, read back by a later start, exported again when damaged or
when what they depend on changes."""

import os
import pathlib

import jax.numpy as jnp
import numpy as np
from support.play_models import make_tiny_model

import hexjax
from hexjax.games import host_compile
from hexjax.play import compile_cache
from hexjax.play.agent import Agent


def test_programs_are_traced_once_read_back_and_replaced_when_damaged(tmp_path, monkeypatch):
    monkeypatch.setattr(compile_cache, "_folder", tmp_path)
    (tmp_path / "exported").mkdir()
    traced = []

    def step(tree, scale):
        traced.append(1)
        return {"sum": tree["a"] + tree["b"] * scale, "pair": (tree["a"], scale)}

    def arguments():  # new arrays each time: a donated argument is deleted
        return {"a": jnp.ones(3), "b": jnp.arange(3.0)}, jnp.float32(2)

    args = arguments()

    def check(run):
        out = run(*arguments())
        np.testing.assert_array_equal(out["sum"], [1.0, 3.0, 5.0])
        assert out["pair"][1] == 2.0 and out["pair"][0].shape == (3,)

    check(compile_cache.compiled("step", step, args))
    [path] = (tmp_path / "exported").iterdir()
    check(compile_cache.compiled("step", step, args, donate=(0,)))
    assert len(traced) == 1  # read back: not traced again
    check(compile_cache.compiled("step", step, args, key="another model"))
    assert len(traced) == 2 and len(list((tmp_path / "exported").iterdir())) == 2
    path.write_bytes(b"damaged")
    check(compile_cache.compiled("step", step, args))
    assert len(traced) == 3 and path.read_bytes() != b"damaged"
    # Not enabled: compiled as before, nothing written.
    monkeypatch.setattr(compile_cache, "_folder", None)
    check(compile_cache.compiled("step", step, args, key="off"))
    assert len(list((tmp_path / "exported").iterdir())) == 2


def test_games_host_functions_go_through_the_installed_compiler(tmp_path, monkeypatch):
    """With the cache on, a game's start position, step and renju's reading are exported
    programs, read back by a later start (a new game object) without tracing. Inside a traced
    function (renju's start reads its board) they stay a jit."""
    monkeypatch.setattr(compile_cache, "_folder", tmp_path)
    (tmp_path / "exported").mkdir()
    asked, exports = [], []
    export = compile_cache._export
    monkeypatch.setattr(compile_cache, "_export", lambda *a: exports.append(1) or export(*a))

    def compiler(name, fn, args, key):
        asked.append((name, key))
        return compile_cache.compiled(name, fn, args, key=key)

    monkeypatch.setattr(host_compile, "_compiler", compiler)
    moves = "c4 a1 d4 a2 e5 g1 e6 g2"  # Black to play; e4 would make two open threes
    for _ in range(2):  # the second: a later start, the programs read back
        game = hexjax.make("gomoku", size=7, rule="renju")
        state = game.from_moves(moves)
        black, white = game.parse_moves(moves)[::2], game.parse_moves(moves)[1::2]
        board = np.asarray(state.board).reshape(-1)
        assert (board[black] == 1).all() and (board[white] == 2).all() and (board > 0).sum() == 8
        assert int(state.current_player) == 0 and int(state.step_count) == 8
        double_three = game.parse_move("e4")
        assert not state.legal_action_mask[double_three] and state.legal_action_mask.sum() == 40
        forbidden = game.forbidden_points(np.asarray(state.board).reshape(7, 7))
        assert forbidden.reshape(-1)[double_three] and forbidden.sum() == 1
    assert sorted({name for name, _ in asked}) == ["forbidden", "new_state", "step"], asked
    assert {key for _, key in asked} == {repr(game)}
    assert len(exports) == 2  # the later start read them back (the start position: below)
    assert len(list(tmp_path.glob("exported/new_state-*.result"))) == 1


def test_a_program_without_arguments_is_kept_as_its_result(tmp_path, monkeypatch):
    """A start position is a constant: kept as its value, computed once, read back by a later
    start, computed again when damaged."""
    monkeypatch.setattr(compile_cache, "_folder", tmp_path)
    (tmp_path / "exported").mkdir()
    traced = []

    def start():  # a new function each start, as a new game object gives (no jit cache)
        def position():
            traced.append(1)
            return {"board": jnp.zeros((2, 2), jnp.int8), "player": jnp.int32(1)}

        return compile_cache.compiled("new_state", position, (), key="game")()

    for _ in range(2):
        value = start()
        np.testing.assert_array_equal(value["board"], np.zeros((2, 2)))
        assert value["board"].dtype == jnp.int8 and int(value["player"]) == 1
    assert len(traced) == 1
    [path] = tmp_path.glob("exported/new_state-*.result")
    path.write_bytes(b"damaged")
    assert int(start()["player"]) == 1
    assert len(traced) == 2 and path.read_bytes() != b"damaged"


def test_measured_numbers_are_remembered_by_key_and_ignored_when_damaged(tmp_path, monkeypatch):
    monkeypatch.setattr(compile_cache, "_folder", None)
    compile_cache.remember("rate", "a search", 100.0)  # the cache off: nothing kept
    assert compile_cache.recall("rate", "a search") is None
    monkeypatch.setattr(compile_cache, "_folder", tmp_path)
    (tmp_path / "measured").mkdir()
    assert compile_cache.recall("rate", "a search") is None
    compile_cache.remember("rate", "a search", 1234.5)
    compile_cache.remember("rate", "another search", 10.0)
    assert compile_cache.recall("rate", "a search") == 1234.5
    assert compile_cache.recall("rate", "another search") == 10.0
    for damaged in (b"not a number", b"-3", b"NaN"):
        for path in (tmp_path / "measured").iterdir():
            path.write_bytes(damaged)
        assert compile_cache.recall("rate", "a search") is None


def test_an_agents_first_search_turns_the_cache_on(tmp_path, monkeypatch):
    """The Python API gets the front ends' cache: an agent's first search turns it on in JAX's
    folder (the tests' own), its programs exported there; HEXJAX_COMPILATION_CACHE=off keeps
    it off."""
    monkeypatch.setattr(compile_cache, "_folder", None)
    monkeypatch.setattr(host_compile, "_compiler", None)
    directory = make_tiny_model(tmp_path, "hex3", "hex", 3)
    monkeypatch.setenv(compile_cache.OFF_VARIABLE, "off")
    Agent.from_model("hex3", directory).prepare()
    assert compile_cache._folder is None
    monkeypatch.delenv(compile_cache.OFF_VARIABLE)
    Agent.from_model("hex3", directory).prepare()
    folder = compile_cache._folder
    assert folder == pathlib.Path(os.environ["JAX_COMPILATION_CACHE_DIR"])
    assert list((folder / "exported").glob("grow-*"))
