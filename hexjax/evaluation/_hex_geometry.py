"""The Hex solver's board as bit masks (Python ints, bit r * n + c for cell (r, c)): neighbours
and edges, the ziggurat edge templates, the centre-first move order, and the bit helpers the
search uses (`hex_solver.py`)."""

from __future__ import annotations

_REVERSED_BYTES = bytes(int(f"{value:08b}"[::-1], 2) for value in range(256))


def lowest_two(cells: int) -> int:
    """The two lowest cells of `cells` (which holds at least two)."""
    lowest = cells & -cells
    rest = cells ^ lowest
    return lowest | (rest & -rest)


def fitting_template(templates: list[tuple[int, int]], stones: int, free: int) -> int:
    """The carrier of the first (stone, carrier) template with its stone among `stones` and
    its carrier inside `free`, or 0."""
    for stone, carrier in templates:
        if stone & stones and not carrier & ~free:
            return carrier
    return 0


class Geometry:
    """Bit masks of an n x n board: bit r * n + c is cell (r, c)."""

    def __init__(self, size: int) -> None:
        n = size
        self.size = n
        self.full = (1 << n * n) - 1
        top = (1 << n) - 1
        first_column = sum(1 << r * n for r in range(n))
        self.not_first_column = self.full & ~first_column
        self.not_last_column = self.full & ~(first_column << n - 1)
        # (start edge, end edge) of player 0 (rows) and player 1 (columns).
        self.edges = ((top, top << n * (n - 1)), (first_column, first_column << n - 1))
        self.move_order = _centre_first_cells(n)
        # Per player: (stone, carrier) of each ziggurat to its start edge, and to its end edge.
        self.ziggurats = tuple(
            (_ziggurats(n, player, towards_end=False), _ziggurats(n, player, towards_end=True))
            for player in (0, 1)
        )

    def rotate(self, cells: int) -> int:
        """`cells` turned half a turn: (r, c) -> (n-1-r, n-1-c), i.e. bit i -> bit n*n-1-i."""
        # Reverse all 56 bits of 7 bytes (n*n <= 49), then drop the unused low bits.
        reversed_bits = cells.to_bytes(7, "little").translate(_REVERSED_BYTES)
        return int.from_bytes(reversed_bits, "big") >> 56 - self.size * self.size

    def neighbours(self, cells: int) -> int:
        """The cells adjacent to any cell of `cells` (the set itself included)."""
        n = self.size
        # (r, c+1) and (r-1, c+1) land one column right: drop what wrapped into column 0.
        right = ((cells << 1) | (cells >> n - 1)) & self.not_first_column
        # (r, c-1) and (r+1, c-1) land one column left: drop what wrapped into column n-1.
        left = ((cells >> 1) | (cells << n - 1)) & self.not_last_column
        return (right | left | cells >> n | cells << n | cells) & self.full

    def flood(self, seed: int, passable: int) -> int:
        """All cells of `passable` joined to `seed` through `passable`."""
        n, right_mask, left_mask = self.size, self.not_first_column, self.not_last_column
        reached = seed & passable
        while True:
            # As in `neighbours`, inline: this loop is the solver's hot spot.
            grown = (
                reached
                | ((reached << 1 | reached >> n - 1) & right_mask)
                | ((reached >> 1 | reached << n - 1) & left_mask)
                | reached >> n
                | reached << n
            ) & passable
            if grown == reached:
                return reached
            reached = grown

    def connected(self, stones: int, player: int) -> bool:
        start, end = self.edges[player]
        return bool(self.flood(stones & start, stones) & end)

    def path_lengths(self, stones: int, empty: int, player: int) -> dict[int, int]:
        """Empty cell -> the fewest empty cells on a path of `player`'s through it."""
        start, end = self.edges[player]
        from_start = self._distances(stones, empty, start)
        from_end = self._distances(stones, empty, end)
        return {
            cell: from_start[cell] + from_end[cell] - 1
            for cell in from_start.keys() & from_end.keys()
        }

    def _distances(self, stones: int, empty: int, edge: int) -> dict[int, int]:
        """Empty cell -> the fewest empty cells (itself included) on a path from `edge` to it."""
        distances = {}
        reached = self.flood(stones & edge, stones)
        touching = edge | self.neighbours(reached)
        step = 0
        while new := touching & empty & ~reached:
            step += 1
            cells = new
            while cells:
                lowest = cells & -cells
                distances[lowest.bit_length() - 1] = step
                cells ^= lowest
            reached = self.flood(reached | new, reached | new | stones)
            touching = self.neighbours(reached)
        return distances


# Edge template IIIa, the ziggurat: a stone on row 2 joins row 0 through these 8 empty cells
# (offsets from the stone). X answers O at (0, -1) (0, 0) (-1, -1) or (-1, 0) [row 0 in
# (-2, -1) (-2, 0), row 1 in (-1, -1) (-1, 0)] with (-1, 1), then bridges to the edge through
# (-2, 1) (-2, 2); O at (-1, 1) or (-2, 2) with (-1, 0) and (-2, 0) (-2, 1); O at (-2, 1) with
# (-1, -1), bridged to the stone by (-1, 0) (0, -1) and to the edge by (-2, -1) (-2, 0).
_ZIGGURAT = ((0, -1), (-1, -1), (-1, 0), (-1, 1), (-2, -1), (-2, 0), (-2, 1), (-2, 2))


def _ziggurats(n: int, player: int, towards_end: bool) -> list[tuple[int, int]]:
    """(stone bit, carrier mask) of every ziggurat joining a stone to one of `player`'s edges."""
    # The ziggurat and its mirror image (dr, dc) -> (dr, -dc - dr), which keeps hex adjacency.
    shapes = (_ZIGGURAT, tuple((dr, -dc - dr) for dr, dc in _ZIGGURAT))
    found = []
    for shape in shapes:
        # A half turn points the shape at the end edge; transposing points it at a column.
        offsets = [(-dr, -dc) if towards_end else (dr, dc) for dr, dc in shape]
        if player == 1:
            offsets = [(dc, dr) for dr, dc in offsets]
        for r in range(n):
            for c in range(n):
                line = r if player == 0 else c
                if (n - 1 - line if towards_end else line) != 2:
                    continue
                cells = [(r + dr, c + dc) for dr, dc in offsets]
                if all(0 <= rr < n and 0 <= cc < n for rr, cc in cells):
                    carrier = sum(1 << rr * n + cc for rr, cc in cells)
                    found.append((1 << r * n + c, carrier))
    return found


def _centre_first_cells(n: int) -> tuple[int, ...]:
    """Cell indices by distance from the centre, measured on the hexagonal grid."""

    def distance(cell: int) -> float:
        r, c = divmod(cell, n)
        # Cell centres of the rhombus: each row shifted half a cell right.
        x, y = c + r / 2 - (n - 1) * 0.75, (r - (n - 1) / 2) * 0.866
        return x * x + y * y

    return tuple(sorted(range(n * n), key=distance))
