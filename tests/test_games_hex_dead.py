"""Hex's dead and captured cells (hexjax/games/_hex_dead.py) against their definitions
(tests/support/hex_dead_oracle.py: every filling of the other empty cells), and the root moves a
search is given (`Hex.moves_to_search`) against minimax: a won position keeps a winning move."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support.hex_dead_oracle import captured_by_definition, winning_moves
from support.hex_dead_oracle import dead_cells as dead_by_definition

import hexjax
from hexjax.games._hex_cells import neighbour_table
from hexjax.games._hex_dead import (
    PATTERNS,
    captured_pairs,
    dead_cells,
    inferior_cells,
    pattern_dead,
)

RING = ((-1, 0), (-1, 1), (0, 1), (1, 0), (1, -1), (0, -1))  # round the hexagon
CENTRE = (1, 1)  # of a 3x3 board: its six neighbours all on the board


@functools.cache
def found():
    return jax.jit(dead_cells)


def dead(board) -> set[tuple[int, int]]:
    return {tuple(map(int, cell)) for cell in np.argwhere(np.asarray(found()(jnp.asarray(board))))}


def ring_board(ring: str, x: int, turn: int = 0) -> np.ndarray:
    """A 3x3 board with the centre's neighbours set by `ring` (X: colour x, O: the other),
    started `turn` places round; the corners (0,0) and (2,2) empty."""
    board = np.zeros((3, 3), np.int8)
    for k, mark in enumerate(ring):
        r, c = RING[(k + turn) % 6]
        if mark != ".":
            board[CENTRE[0] + r, CENTRE[1] + c] = x if mark == "X" else 3 - x
    return board


@pytest.mark.parametrize("pattern", PATTERNS)
def test_each_pattern_kills_the_cell_in_every_turn_and_colour(pattern):
    for x in (1, 2):
        for turn in range(6):
            for ring in (pattern, pattern[::-1]):
                board = ring_board(ring, x, turn)
                assert CENTRE in dead(board), (ring, x, turn)
                assert CENTRE in dead_by_definition(board)


@pytest.mark.parametrize("ring", ["X.X.X.", "X.O.X."])
def test_rings_short_of_a_pattern_leave_the_cell_alive(ring):
    """Near misses, each colour and turn: the definition says the centre still matters (other
    near misses can be dead on a board this small, through its edges), and so do the patterns."""
    for x in (1, 2):
        for turn in range(6):
            board = ring_board(ring, x, turn)
            assert CENTRE not in dead_by_definition(board)
            assert CENTRE not in dead(board)


def random_boards(size: int, count: int, seed: int, most_empty: int = 10):
    """Boards with 4 to `most_empty` empty cells, mostly alternating colours (live and won
    alike)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        board = np.zeros((size, size), np.int8)
        empty = int(rng.integers(4, most_empty + 1))
        for index, cell in enumerate(rng.permutation(size * size)[: size * size - empty]):
            board.flat[cell] = 1 + index % 2 if rng.random() < 0.8 else rng.integers(1, 3)
        yield board


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_every_cell_found_is_dead_by_definition(size):
    """Sound on every board (edges and corners included, filled rounds included), and finds a
    good share of what the definition says on live boards."""
    game = hexjax.make("hex", size=size)
    truly = caught = 0
    for board in random_boards(size, 50, seed=size):
        expected = dead_by_definition(board)
        got = dead(board)
        assert got <= expected, (board, got - expected)
        if not bool(game.from_board(board, 0).terminated):
            truly, caught = truly + len(expected), caught + len(got)
    print(f"{size}x{size}: {caught} of the {truly} dead cells of live boards found")
    assert caught >= 0.3 * truly > 0, (caught, truly)


def test_filling_dead_cells_finds_more():
    """(4,4) is dead only once its dead neighbour (4,3) is filled: the second round finds it."""
    board = np.array(
        [[2, 2, 1, 0, 2], [2, 2, 1, 0, 2], [1, 2, 0, 0, 1], [2, 0, 0, 1, 1], [0, 1, 1, 0, 0]],
        np.int8,
    )
    table = jnp.asarray(neighbour_table(5))
    first_round = np.asarray(pattern_dead(jnp.asarray(board.reshape(-1)), table))
    assert not first_round[4 * 5 + 4] and first_round[4 * 5 + 3]
    assert dead(board) == dead_by_definition(board) == {(0, 3), (4, 0), (4, 3), (4, 4)}


@pytest.mark.parametrize("size", [3, 4, 5])
def test_every_captured_pair_found_is_captured_by_definition(size):
    """One round of `captured_pairs` on random boards: each pair found (two neighbouring cells
    given one colour) is captured by that colour, by the definition; and some are found."""
    table = neighbour_table(size)
    pairs_of = jax.jit(lambda flat: captured_pairs(flat, jnp.asarray(table)))
    checked = 0
    for board in random_boards(size, 80, seed=20 + size):
        owners, partners = map(np.asarray, pairs_of(jnp.asarray(board.reshape(-1))))
        assert ((owners == 0) | (board.reshape(-1) == 0)).all()
        for cell in np.flatnonzero(owners):
            partner = int(partners[cell])
            assert partner in table[cell] and partners[partner] == cell
            assert owners[partner] == owners[cell]
            a, b = divmod(int(cell), size), divmod(partner, size)
            assert captured_by_definition(board, a, b, int(owners[cell])), (board, a, b)
            checked += 1
    assert checked >= 6


@pytest.mark.parametrize("size", [4, 5])
def test_a_won_position_keeps_a_winning_move_to_search(size):
    """Dead cells and the opponent's captured cells left out, filled rounds included: wherever
    the mover has a winning move (minimax), one is among the moves to search; and captured
    cells prune some moves the dead cells alone keep."""
    game = hexjax.make("hex", size=size)
    moves = jax.jit(game.moves_to_search)
    inferior = jax.jit(inferior_cells)
    pruned_more = owns = 0
    for board in random_boards(size, 60, seed=40 + size, most_empty=9):
        for mover in (0, 1):
            state = game.from_board(board, mover)
            if bool(state.terminated):
                continue
            searched = np.asarray(moves(state)).reshape(size, size)
            assert searched.any()
            winning = winning_moves(board, mover)
            if winning:
                assert any(searched[cell] for cell in winning), (board, mover, winning)
            dead_only = (board == 0) & ~np.asarray(found()(jnp.asarray(board)))
            pruned_more += int((dead_only & ~searched).any())
            dead_cells_, captured = map(np.asarray, inferior(jnp.asarray(board)))
            own = (captured == mover + 1) & ~dead_cells_
            assert searched[own].all()  # the mover's own pairs stay: they may join its chain
            owns += int(own.any())
    assert pruned_more >= 3 and owns >= 3


def test_moves_to_search_leave_out_dead_cells_and_keep_a_move():
    game = hexjax.make("hex", size=5)
    state = game.new_state()
    assert (np.asarray(game.moves_to_search(state)) == np.asarray(state.legal_action_mask)).all()
    board = np.zeros((5, 5), np.int8)
    board[1, 2] = board[1, 3] = board[2, 3] = board[3, 2] = 1  # (2,2)'s ring: X X X X . .
    board[4, 4] = board[0, 0] = board[4, 0] = 2
    state = game.from_board(board, 1)
    searched = np.asarray(game.moves_to_search(state))
    legal = np.asarray(state.legal_action_mask)
    cells = [r * 5 + c for r, c in dead(board)]
    assert 2 * 5 + 2 in cells
    assert not searched[cells].any() and (searched <= legal).all()
    # A live position always keeps a move: were every empty cell dead, the loser's colour on
    # all of them would leave the winner joined already.
    moves = jax.jit(jax.vmap(game.moves_to_search))
    states = jax.tree.map(
        lambda *x: jnp.stack(x), *[game.from_board(b, 0) for b in random_boards(5, 40, seed=9)]
    )
    live = ~np.asarray(states.terminated)
    assert live.sum() > 10 and np.asarray(moves(states))[live].any(axis=1).all()


def test_the_swap_stays_a_move_to_search():
    game = hexjax.make("hex", size=5, swap=True)
    state = game.from_moves("c3")
    searched = np.asarray(game.moves_to_search(state))
    assert searched[-1] and (searched == np.asarray(state.legal_action_mask)).all()
