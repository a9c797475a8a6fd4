"""Game records as SGF (FF[4]), for other programs to open: Hex as HexGui writes it (GM[11]) and
Gomoku / renju (GM[4]).

Hex follows HexGui (its SgfWriter and SgfReader): `SZ[n]`, moves `B[..]` / `W[..]` in HexGui's
cell names, which are hexjax's own: column letter, then row number from 1 at the TOP ("a1" is
the top-left cell, "c3" the centre of 5x5). Black moves first and joins the top and bottom rows,
White the left and right columns. The swap is `W[swap-pieces]`: White takes Black's first stone,
reflected across the long diagonal, and Black moves next (HexGui's `swap-pieces`, hexjax's
`swap`). Reading also takes `swap` for it, LittleGolem's two-letter points ("cc": column, then
row, from "a" at the top left) and stops at a `resign`.

Gomoku uses SGF's two-letter points: column from "a" at the LEFT, then row from "a" at the TOP,
so hexjax's "a1" (bottom-left, rows count up from the bottom) on 15x15 is "ao" and the centre h8
is "hh". `RU[freestyle]`, `RU[standard]` or `RU[renju]` names the rule (SGF has no property of
its own for Gomoku's rules); reading without `RU` means freestyle. Five in a row only: SGF has no
way to say another length.

Both write `AP[hexjax]`, the players as `PB` / `PW` when given and, once the game is over,
`RE[B+]`, `RE[W+]` or `RE[0]` (a draw). Reading follows a record's main line (the first
variation at every branch) and refuses setup stones (`AB`, `AW`, `AE`), passes and moves out
of turn, with a message naming the move.
"""

from __future__ import annotations

import pathlib
import re
from typing import NamedTuple

import numpy as np

from hexjax.games import Game, sgf_games

__all__ = ["SgfRecord", "check_writable", "read_sgf", "write_arena_games", "write_sgf"]

_COLOURS = ("B", "W")


class SgfRecord(NamedTuple):
    game: Game  # the game the record is of (hexjax.make(...))
    actions: list[int]  # its moves, checked legal, in order
    black: str | None  # PB, the first player's name
    white: str | None  # PW


def write_sgf(game: Game, actions, black: str | None = None, white: str | None = None,
              result: str | None = None, comment: str | None = None) -> str:  # fmt: skip
    """The SGF text of a game of `game` with these moves (action indices, or move strings),
    ending in a newline. ValueError for a game SGF cannot hold, or an illegal move. `result`
    (e.g. "W+R", "B+F") is RE for a game that ended off the board (a resignation, a forfeit),
    and `comment` the root's C."""
    check_writable(game)
    actions = game.parse_moves(list(actions))
    state = game.from_moves(actions)  # checks every move, and gives the result
    root = [f"FF[4]GM[{game.sgf_number}]SZ[{game.size}]{game.sgf_properties()}AP[hexjax]"]
    for key, name in (("PB", black), ("PW", white)):
        if name:
            root.append(f"{key}[{_escape(name)}]")
    if result is not None:
        root.append(f"RE[{_escape(result)}]")
    elif bool(state.terminated):
        root.append(f"RE[{ {0: 'B+', 1: 'W+'}.get(int(state.winner), '0') }]")
    if comment:
        root.append(f"C[{_escape(comment)}]")
    moves = [f";{_COLOURS[ply % 2]}[{game.sgf_point(a)}]" for ply, a in enumerate(actions)]
    return "(;" + "".join(root) + "".join(moves) + ")\n"


def read_sgf(text: str) -> SgfRecord:
    """The first game of an SGF text: its game, checked moves and players. ValueError naming
    the problem (not SGF, another game, a bad or illegal move)."""
    nodes = _main_line(text)
    root = nodes[0]
    moves = _moves(nodes)
    game = _make_game(_single(root, "GM", "1"), _single(root, "SZ", None),
                      _single(root, "RU", None), [value for _, value in moves])  # fmt: skip
    actions: list[int] = []
    for colour, value in moves:
        label = f"move {len(actions) + 1} ({colour}[{value[:20]}])"
        if value == "resign":
            break
        try:
            actions.append(game.sgf_action(value))
        except ValueError as error:
            raise ValueError(f"{label}: {error}") from None
    try:
        game.from_moves(actions)
    except ValueError as error:
        raise ValueError(f"the record's {error}") from None
    return SgfRecord(game, actions, _single(root, "PB", None), _single(root, "PW", None))


def write_arena_games(game: Game, moves, directory, stem: str, first: str, second: str) -> None:
    """The arena's games (moves: int32[G, L], -1 after a game's end) as `directory`/`stem`-N.sgf,
    N from 1 in the arena's order: `first` plays Black in the first half, White in the second."""
    check_writable(game)
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    rows = np.asarray(moves)
    for index, row in enumerate(rows):
        names = (first, second) if index < len(rows) // 2 else (second, first)
        text = write_sgf(game, [int(a) for a in row if a >= 0], *names)
        (directory / f"{stem}-{index + 1}.sgf").write_text(text)


# --- writing --------------------------------------------------------------------------------


def check_writable(game: Game) -> None:
    """ValueError unless SGF can hold games of `game`."""
    if game.sgf_number is None:
        names = " and ".join(cls.name for cls in sgf_games().values())
        raise ValueError(f"SGF records cover {names}, not {game.name}")
    game.check_sgf()


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


# --- reading --------------------------------------------------------------------------------

_TOKENS = re.compile(r"\s*(?:([();])|([A-Za-z]+)\s*((?:\[(?:\\.|[^\]\\])*\]\s*)+))", re.DOTALL)
_VALUES = re.compile(r"\[((?:\\.|[^\]\\])*)\]", re.DOTALL)


def _main_line(text: str) -> list[dict[str, list[str]]]:
    """The nodes of the first game tree's main line, each {property: values}. A game tree's
    variations come after its own nodes, so the main line ends at the first ')'."""
    start = text.find("(")
    if start < 0 or not text[start + 1 :].lstrip().startswith(";"):
        raise ValueError("not an SGF record: it should start with '(;'")
    nodes: list[dict[str, list[str]]] = []
    position = start
    while position < len(text):
        match = _TOKENS.match(text, position)
        if match is None:
            raise ValueError(f"not valid SGF near {text[position : position + 20]!r}")
        position = match.end()
        mark, key, values = match.groups()
        if mark == ";":
            nodes.append({})
        elif mark == ")":
            break
        elif key is not None:
            if not nodes:
                raise ValueError(f"not valid SGF: property {key} outside a node")
            found = [v.replace("\\\n", "") for v in _VALUES.findall(values)]
            nodes[-1].setdefault(key.upper(), []).extend(re.sub(r"\\(.)", r"\1", v) for v in found)
    else:
        raise ValueError("not a complete SGF record: a game tree is not closed with ')'")
    if not nodes:
        raise ValueError("not an SGF record: no nodes")
    return nodes


def _moves(nodes: list[dict[str, list[str]]]) -> list[tuple[str, str]]:
    """(colour, value) of each move on the main line, checked to alternate from Black."""
    moves = []
    for index, node in enumerate(nodes):
        for key in ("AB", "AW", "AE"):
            if key in node:
                raise ValueError(f"node {index + 1}: setup stones ({key}) are not supported")
        played = [key for key in _COLOURS if key in node]
        if not played:
            continue
        if len(played) > 1 or len(node[played[0]]) > 1:
            raise ValueError(f"node {index + 1}: one move a node, got {_node_text(node)}")
        colour, value = played[0], node[played[0]][0].strip().lower()
        turn = _COLOURS[len(moves) % 2]
        if colour != turn:
            raise ValueError(f"move {len(moves) + 1} ({colour}[{value[:20]}]): {turn} is to move")
        moves.append((colour, value))
    return moves


def _single(node: dict[str, list[str]], key: str, default: str | None) -> str | None:
    values = node.get(key)
    return values[0].strip() if values else default


def _make_game(number: str, size: str | None, rule: str | None, moves: list[str]) -> Game:
    games = sgf_games()
    cls = games.get(int(number)) if number.isdigit() else None
    if cls is None:
        known = ", ".join(f"GM[{n}] {c.name.capitalize()}" for n, c in sorted(games.items())[::-1])
        raise ValueError(f"GM[{number}] is not a game hexjax reads ({known})")
    if size is None or not re.fullmatch(r"[0-9]+", size):
        raise ValueError(f"the board size should be SZ[n], got {'no SZ' if size is None else size}")
    return cls.from_sgf(int(size), rule, moves)


def _node_text(node: dict[str, list[str]]) -> str:
    return "".join(f"{k}" + "".join(f"[{v[:20]}]" for v in vs) for k, vs in node.items())[:60]
