"""Per-game greedy players: each checked against a plain-Python statement of its heuristic on
random positions, and on positions whose right move a person can see."""

import collections

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hexjax
from hexjax.evaluation import arena, players
from hexjax.evaluation.scores import summarize

HEX_NEIGHBOURS = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))


def stack(states):
    return jax.tree.map(lambda *xs: jnp.stack(xs), *states)


def greedy_moves(game, states, seed=0):
    return np.asarray(jax.jit(players.greedy_player(game))(jax.random.key(seed), stack(states)))


def random_positions(game, count, plies, seed):
    """`count` live positions after a random number of uniformly random plies in [low, high)."""
    rng = np.random.default_rng(seed)
    step = jax.jit(game.step)
    found = []
    while len(found) < count:
        state = game.new_state()
        for _ in range(int(rng.integers(*plies))):
            state = step(state, int(rng.choice(game.legal_actions(state))))
            if state.terminated:
                break
        if not state.terminated:
            found.append(state)
    return found


# --- Hex: connection distance ------------------------------------------------------------------


def hex_distance(board, player):
    """0-1 BFS from player's first edge to its second: own stones cost 0, empty cells 1, the
    opponent's stones are walls. Player 0 joins rows 0 and n-1, player 1 columns 0 and n-1."""
    n = len(board)
    own, other = player + 1, 2 - player
    cost = {}
    queue = collections.deque()
    for i in range(n):
        r, c = (0, i) if player == 0 else (i, 0)
        if board[r][c] != other:
            cost[(r, c)] = 0 if board[r][c] == own else 1
            queue.append((r, c))
    best = {}
    while queue:
        cell = queue.popleft()
        if cell in best and best[cell] <= cost[cell]:
            continue
        best[cell] = cost[cell]
        r, c = cell
        for dr, dc in HEX_NEIGHBOURS:
            nr, nc = r + dr, c + dc
            if 0 <= nr < n and 0 <= nc < n and board[nr][nc] != other:
                step = best[cell] + (0 if board[nr][nc] == own else 1)
                if step < cost.get((nr, nc), 10**9):
                    cost[(nr, nc)] = step
                    (queue.appendleft if board[nr][nc] == own else queue.append)((nr, nc))
    ends = [(n - 1, i) if player == 0 else (i, n - 1) for i in range(n)]
    return min((best[e] for e in ends if e in best), default=10**9)


def hex_best_moves(board, player):
    """The empty cells maximising (opponent's distance - own distance) after the move."""
    n = len(board)
    scores = {}
    for r in range(n):
        for c in range(n):
            if board[r][c] == 0:
                after = [row[:] for row in board]
                after[r][c] = player + 1
                own = hex_distance(after, player)
                other = hex_distance(after, 1 - player)
                scores[r * n + c] = float("inf") if own == 0 else min(other, 10**4) - own
    top = max(scores.values())
    return {cell for cell, score in scores.items() if score == top}


def test_hex_greedy_plays_a_move_of_the_plain_python_distance_argmax():
    game = hexjax.make("hex", size=5)
    states = random_positions(game, 24, plies=(0, 12), seed=1)
    moves = greedy_moves(game, states)
    for state, move in zip(states, moves, strict=True):
        board = np.asarray(state.board).tolist()
        assert move in hex_best_moves(board, int(state.current_player)), game.render(state)


def test_hex_greedy_connects_and_blocks_a_one_cell_gap():
    """Black's chain b1 b2 b3 on 4x4 reaches row 3; a4 and b4 join it to row 4."""
    game = hexjax.make("hex", size=4)
    black_to_move = game.from_moves("b1 d1 b2 d2 b3 d3")
    moves = greedy_moves(game, [black_to_move] * 8)
    assert set(moves.tolist()) <= {game.string_to_action("a4"), game.string_to_action("b4")}
    # White already holds b4 (and d1); White to move must take a4, the last joining cell:
    # it leaves Black 2 cells away and White's own row-4 path at 2 (score 0); any other move
    # leaves Black 1 away and White at best 2 (score -1).
    board = np.zeros((4, 4), np.int8)
    board[0:3, 1] = 1
    board[3, 1] = board[0, 3] = 2
    state = game.from_board(board, to_play=1)
    assert set(greedy_moves(game, [state] * 8).tolist()) == {game.string_to_action("a4")}


def test_hex_greedy_never_swaps():
    game = hexjax.make("hex", size=4, swap=True)
    state = game.from_moves("b2")
    moves = greedy_moves(game, [state] * 8)
    assert (moves < 16).all()


# --- Gomoku: win, block, pattern score ---------------------------------------------------------


def test_gomoku_greedy_wins_before_it_blocks_and_blocks_before_it_builds():
    game = hexjax.make("gomoku", size=9)
    # Black a1-d1 (four), White a9-d9 (four): Black to move wins at e1.
    both_four = game.from_moves("a1 a9 b1 b9 c1 c9 d1 d9")
    # White has four on row 9; Black has only three: Black must block e9.
    block = game.from_moves("a1 a9 b1 b9 c1 c9 h5 d9")
    moves = greedy_moves(game, [both_four, block] * 4)
    assert set(moves[0::2]) == {game.string_to_action("e1")}
    assert set(moves[1::2]) == {game.string_to_action("e9")}


def pattern_scores(board, mover, k, attack, defence):
    """Plain-Python pattern score of every empty cell (the greedy's rule, restated)."""
    n = len(board)
    own, other = mover + 1, 2 - mover
    scores = collections.Counter()
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(n):
            for c in range(n):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if not all(0 <= a < n and 0 <= b < n for a, b in cells):
                    continue
                values = [board[a][b] for a, b in cells]
                mine, theirs = values.count(own), values.count(other)
                value = (attack[mine] if theirs == 0 else 0) + (defence[theirs] if mine == 0 else 0)
                for a, b in cells:
                    if board[a][b] == 0:
                        scores[a * n + b] += value
    return scores


def test_gomoku_greedy_follows_the_pattern_score_when_nothing_is_urgent():
    from hexjax.evaluation import greedy

    game = hexjax.make("gomoku", size=9)
    attack, defence = greedy._weights(greedy._ATTACK, 5), greedy._weights(greedy._DEFENCE, 5)
    states = random_positions(game, 16, plies=(2, 10), seed=2)
    checked = 0
    for state, move in zip(states, greedy_moves(game, states), strict=True):
        board = np.asarray(state.board).tolist()
        scores = pattern_scores(board, int(state.current_player), 5, attack, defence)
        if max(scores.values()) >= defence[4]:  # a four somewhere: win or block decides
            continue
        assert scores[int(move)] == max(scores.values()), game.render(state)
        checked += 1
    assert checked >= 8


def test_renju_greedy_never_plays_a_forbidden_point():
    game = hexjax.make("gomoku", size=15, rule="renju")
    # Black to move: h8 would make a double three (h6 h7 . and f8 g8 .); White stones far away.
    state = game.from_moves("h6 a1 h7 a15 f8 o1 g8 o15")
    assert not state.legal_action_mask[game.string_to_action("h8")]
    moves = greedy_moves(game, [state] * 8)
    assert game.string_to_action("h8") not in set(moves)


# --- Othello: corners, edges, mobility ---------------------------------------------------------


def test_othello_greedy_takes_a_corner_when_one_is_legal():
    game = hexjax.make("othello", size=6)
    states = random_positions(game, 40, plies=(8, 24), seed=3)
    corners = {0, 5, 30, 35}
    checked = 0
    for state, move in zip(states, greedy_moves(game, states), strict=True):
        legal = set(np.flatnonzero(np.asarray(state.legal_action_mask)).tolist())
        if legal & corners:
            assert move in corners
            checked += 1
    assert checked >= 3


def test_othello_greedy_minimises_the_opponents_replies_among_inner_cells():
    game = hexjax.make("othello", size=8)
    state = game.new_state()  # the opening: four legal moves, all inner, all symmetric
    moves = greedy_moves(game, [state] * 16)
    assert set(moves) <= {19, 26, 37, 44} and len(set(moves)) > 1  # ties broken at random
    state = game.from_moves("d3 c5")  # now compare by the opponent's replies
    legal = game.legal_actions(state)
    replies = {a: int(np.asarray(game.step(state, a).legal_action_mask)[:64].sum()) for a in legal}
    (move,) = greedy_moves(game, [state])
    assert replies[int(move)] == min(replies.values())


@pytest.mark.parametrize(
    ("name", "options"),
    [("hex", {"size": 5}), ("gomoku", {"size": 7, "win_length": 4}), ("othello", {"size": 6})],
)
def test_greedy_beats_random_on_every_game(name, options):
    game = hexjax.make(name, **options)
    play = jax.jit(
        lambda key: arena.arena(
            game, players.greedy_player(game), players.random_player(game), key, 128, 2
        )
    )
    assert summarize(np.asarray(play(jax.random.key(0))))["score"] >= 0.9
