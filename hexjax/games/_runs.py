"""Runs of stones on a square board, counted on the host: for composed positions and for the
cells to highlight after a win (the jitted rules count runs their own way)."""

from __future__ import annotations

import numpy as np

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # along a row, a column, both diagonals


def longest_runs(board: np.ndarray) -> np.ndarray:
    """Host helper: the lengths of the maximal runs on `board`, a list per colour (index 1, 2)."""
    n = board.shape[0]
    runs: list[list[int]] = [[], [], []]
    for dr, dc in DIRECTIONS:
        for r in range(n):
            for c in range(n):
                colour = int(board[r, c])
                pr, pc = r - dr, c - dc
                if colour == 0 or (0 <= pr < n and 0 <= pc < n and board[pr, pc] == colour):
                    continue  # empty, or not the first stone of its run
                length = 0
                while 0 <= r + length * dr < n and 0 <= c + length * dc < n:
                    if board[r + length * dr, c + length * dc] != colour:
                        break
                    length += 1
                runs[colour].append(length)
    return runs


def winning_lines(board: np.ndarray, colour: int, length: int, exact: bool) -> np.ndarray:
    """Host helper: bool[n, n], the stones of `colour` in runs of `length` or more (with
    `exact`: of exactly `length`, as standard Gomoku and renju's Black count a win). The host
    twin of `_threats.line_cells` (a front end's reply at a win should not wait for its
    compile); tests/test_games_winning_line.py holds the two equal."""
    n = board.shape[0]
    marked = np.zeros((n, n), bool)
    for dr, dc in DIRECTIONS:
        for r in range(n):
            for c in range(n):
                pr, pc = r - dr, c - dc
                if board[r, c] != colour or (
                    0 <= pr < n and 0 <= pc < n and board[pr, pc] == colour
                ):
                    continue  # not the first stone of a run
                run = []
                while 0 <= r + len(run) * dr < n and 0 <= c + len(run) * dc < n:
                    rr, cc = r + len(run) * dr, c + len(run) * dc
                    if board[rr, cc] != colour:
                        break
                    run.append((rr, cc))
                if len(run) == length or (len(run) > length and not exact):
                    marked[tuple(np.transpose(run))] = True
    return marked
