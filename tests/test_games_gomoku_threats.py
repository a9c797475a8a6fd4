"""Gomoku's threat planes (`threats=True`) against a plain-Python reading of the board."""

import jax
import numpy as np
from support.playouts import random_playouts

import hexjax

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def oracle(board: np.ndarray, colour: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(win points, four points) of `colour` on `board` (0 empty, 1, 2), by trying each empty
    cell: a win point gets k of `colour` in some window of k cells in a line; a four point
    gets k - 1 of them and one empty cell in such a window."""
    n = board.shape[0]
    win = np.zeros((n, n), bool)
    four = np.zeros((n, n), bool)
    for r in range(n):
        for c in range(n):
            if board[r, c]:
                continue
            after = board.copy()
            after[r, c] = colour
            for dr, dc in DIRECTIONS:
                for start in range(-(k - 1), 1):  # windows through (r, c)
                    cells = [(r + (start + i) * dr, c + (start + i) * dc) for i in range(k)]
                    if not all(0 <= a < n and 0 <= b < n for a, b in cells):
                        continue
                    values = [after[a, b] for a, b in cells]
                    mine, empty = values.count(colour), values.count(0)
                    win[r, c] |= mine == k
                    four[r, c] |= mine == k - 1 and empty == 1
    return win, four


def test_planes_match_the_oracle_on_random_games():
    for size, k in ((9, 5), (7, 4)):
        game = hexjax.make("gomoku", size=size, win_length=k, threats=True)
        states, _ = random_playouts(game, jax.random.key(size), batch=6)
        observe = jax.jit(jax.vmap(jax.vmap(game.observe)))
        obs = np.asarray(observe(states))
        boards = np.asarray(states.board)
        movers = np.asarray(states.current_player)
        done = np.asarray(states.terminated)
        checked = 0
        for t in range(0, boards.shape[0], 3):
            for b in range(boards.shape[1]):
                planes = obs[t, b, ..., 3:]
                if done[t, b]:
                    assert not planes.any()
                    continue
                own, other = movers[t, b] + 1, 2 - movers[t, b]
                expected = [*oracle(boards[t, b], own, k), *oracle(boards[t, b], other, k)]
                for index, plane in enumerate(expected):
                    np.testing.assert_array_equal(planes[..., index], plane, f"{t} {b} {index}")
                checked += 1
        assert checked > 20


def test_a_broken_three_and_the_edge():
    """Black to move with X X . X X on the bottom row from a1: c1 fills the gap (five), and
    both c1 and f1 leave four of b1..f1 with one cell open. White's a2-a4 is closed below
    by Black's a1, so only the window a2..a6 counts."""
    game = hexjax.make("gomoku", size=9, threats=True)
    state = game.from_board(
        np.array([[0] * 9] * 5 + [[2] + [0] * 8] * 3 + [[1, 1, 0, 1, 1, 0, 0, 0, 0]]), to_play=0
    )
    obs = np.asarray(game.observe(state))
    cell = lambda name: np.unravel_index(game.string_to_action(name), (9, 9))  # noqa: E731
    assert np.argwhere(obs[..., 3]).tolist() == [list(cell("c1"))]  # c1 makes five at once
    fours = {game.action_to_string(int(r * 9 + c)) for r, c in np.argwhere(obs[..., 4])}
    assert fours == {"c1", "f1"}
    white_fours = {game.action_to_string(int(r * 9 + c)) for r, c in np.argwhere(obs[..., 6])}
    assert white_fours == {"a5", "a6"}
    assert not obs[..., 5].any()


def test_models_match_by_the_rules_not_the_planes():
    from hexjax.games import GameConfig

    plain = GameConfig("gomoku", 9)
    threats = GameConfig("gomoku", 9, threats=True)
    assert threats.as_played() == plain.as_played() and threats.canonical() != plain.canonical()
    assert GameConfig("hex", 7, threats=True).canonical() == GameConfig("hex", 7)
    assert threats.make().observation_shape == (9, 9, 7)
