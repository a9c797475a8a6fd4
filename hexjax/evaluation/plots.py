"""PNG plots: a run's losses against time, scores (of one run or several) and Elo against
training minutes, and policy heatmaps on the board."""

from __future__ import annotations

import pathlib

import jax
import numpy as np

from hexjax.alphazero import network as network_lib
from hexjax.alphazero import search as search_lib


def _finish(plt, figure, axis, ylabel: str, path: pathlib.Path) -> pathlib.Path:
    """Label against minutes, save as PNG, close."""
    axis.set_xlabel("minutes")
    axis.set_ylabel(ylabel)
    axis.legend()
    axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def loss_curves(records: list[dict], out_dir) -> list[pathlib.Path]:
    """Write loss.png of a run's metrics records (one per iteration, as
    `hexjax.training.metrics.read_records` reads them) into `out_dir`: the losses, and under
    them what shows self-play collapsing; returns the files (none before the first update)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    trained = loss_records(records)  # nothing is drawn before the first optimizer step
    # AlphaZero and PPO log a policy and a value loss, DQN its TD loss.
    curves = _series(trained, ("policy_loss", "value_loss", "td_loss"))
    if not curves:
        return []
    # What shows self-play collapsing onto one line (AlphaZero runs log them).
    signs = _series(trained, ("first_player_win_rate", "value_accuracy"))
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = 2 if signs else 1
    figure, axes = plt.subplots(rows, 1, figsize=(7, 4 * rows), squeeze=False, sharex=True)
    losses = axes[0, 0]
    for name, points in curves.items():
        losses.plot(*zip(*points, strict=True), label=name.replace("_", " "))
    if not signs:
        return [_finish(plt, figure, losses, "loss", out_dir / "loss.png")]
    losses.legend()
    losses.grid(alpha=0.3)
    losses.set_ylabel("loss")
    _selfplay_panel(axes[1, 0], signs, trained)
    return [_finish(plt, figure, axes[1, 0], "rate", out_dir / "loss.png")]


def _series(records: list[dict], names) -> dict[str, list[tuple[float, float]]]:
    """{name: [(minutes, value)]} of the named fields that the records log."""
    series = {
        name: [(r["elapsed_seconds"] / 60, r[name]) for r in records if name in r] for name in names
    }
    return {name: points for name, points in series.items() if points}


def _selfplay_panel(axis, signs: dict, records: list[dict]) -> None:
    """First-player win rate and value accuracy (0-1), opening entropy on its own axis."""
    for name, points in signs.items():
        axis.plot(*zip(*points, strict=True), label=name.replace("_", " "))
    axis.set_ylim(0, 1.02)
    entropy = [
        (r["elapsed_seconds"] / 60, r["opening_entropy"]) for r in records if "opening_entropy" in r
    ]
    if entropy:
        twin = axis.twinx()
        twin.plot(*zip(*entropy, strict=True), color="C3", alpha=0.6, label="opening entropy")
        twin.set_ylabel("opening entropy (nats)")
        twin.set_ylim(bottom=0)
        twin.legend(loc="lower right")


def loss_records(records: list[dict]) -> list[dict]:
    """The records whose losses mean something: from the first optimizer step on (before the
    replay buffer fills, the iterations log a loss of 0 that trained nothing)."""
    return [r for r in records if r.get("updates", 1) > 0]


def score_curve(evaluations: list[dict], path) -> pathlib.Path:
    """Score against training minutes, one line per opponent with its 95% band.
    evaluations: [{"minutes": float, "results": {opponent: summary}}] (evaluate.py's)."""
    return score_curves({"": evaluations}, path)


def score_curves(runs: dict[str, list[dict]], path) -> pathlib.Path:
    """Several runs' `score_curve`s on one plot: a line per run and opponent, labelled
    "RUN vs OPPONENT" (just "vs OPPONENT" for a run labelled "")."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure, axis = plt.subplots(figsize=(7, 4))
    for run, evaluations in runs.items():
        names = sorted({name for e in evaluations for name in e["results"]})
        for name in names:
            rows = [(e["minutes"], e["results"][name]) for e in evaluations if name in e["results"]]
            rows.sort(key=lambda row: row[0])
            x = [minutes for minutes, _ in rows]
            label = f"{run} vs {name}" if run else f"vs {name}"
            axis.plot(x, [100 * r["score"] for _, r in rows], marker="o", label=label)
            axis.fill_between(
                x, [100 * r["low"] for _, r in rows], [100 * r["high"] for _, r in rows], alpha=0.2
            )
    axis.set_ylim(0, 100)
    return _finish(plt, figure, axis, "score %", path)


def elo_curve(points: list[dict], baselines: dict[str, float], path) -> pathlib.Path:
    """Elo against training minutes with ±2 standard errors, baselines as dashed lines.
    points: [{"minutes", "elo", "stderr"}]; baselines: {name: elo}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure, axis = plt.subplots(figsize=(7, 4))
    points = sorted(points, key=lambda p: p["minutes"])
    x = [p["minutes"] for p in points]
    axis.errorbar(
        x,
        [p["elo"] for p in points],
        yerr=[2 * p["stderr"] for p in points],
        marker="o",
        capsize=3,
        label="agent",
    )
    for index, (name, value) in enumerate(sorted(baselines.items(), key=lambda kv: kv[1])):
        axis.axhline(value, linestyle="--", color=f"C{index + 1}", label=name)
    return _finish(plt, figure, axis, "Elo (random = 0)", path)


def board_figure(game, state, panels: dict | None = None, title: str = ""):
    """A matplotlib Figure of the board of `state`, stones drawn (Hex as the rhombus it is):
    one panel per entry of `panels` (a float[num_actions] distribution shown as a heatmap over
    the cells), or the plain board without panels. Built without pyplot, so it neither needs
    nor changes a backend: notebooks display it, `policy_heatmaps` saves it."""
    from matplotlib.collections import PatchCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, RegularPolygon

    n = game.size
    rows, cols = np.divmod(np.arange(n * n), n)
    hexagonal = game.hexagonal
    # Hex cells sit on a sheared grid; square boards on the plain one (row 0 on top).
    x = cols + rows / 2 if hexagonal else cols.astype(float)
    y = -rows * (np.sqrt(3) / 2 if hexagonal else 1.0)
    board = np.asarray(state.board).reshape(-1)
    forbidden = np.asarray(game.forbidden_mask(state), bool).reshape(-1)  # renju, as crosses
    shown = panels or {"": None}
    width = 4.6 if panels else 0.45 * n + (n / 4 if hexagonal else 0) + 1
    figure = Figure(figsize=(width * len(shown), 4.2 if panels else 0.4 * n + 0.8))
    axes = figure.subplots(1, len(shown), squeeze=False)[0]
    # Cells as patches in data units so they tile exactly: pointy-top hexagons of width 1,
    # or unit squares.
    sides, radius, turn = (6, 1 / np.sqrt(3), 0.0) if hexagonal else (4, np.sqrt(0.5), np.pi / 4)
    for axis, (name, values) in zip(axes, shown.items(), strict=True):
        tiles = PatchCollection(
            [
                RegularPolygon((a, b), sides, radius=radius, orientation=turn)
                for a, b in zip(x, y, strict=True)
            ],
            cmap="viridis",
            edgecolor="grey",
            linewidth=0.4,
        )
        if values is None:
            tiles.set_facecolor(game.board_colour)
        else:
            tiles.set_array(np.asarray(values, float)[: n * n])
        axis.add_collection(tiles)
        for stone, colour in ((1, "black"), (2, "white")):
            for a, b in zip(x[board == stone], y[board == stone], strict=True):
                axis.add_patch(Circle((a, b), 0.32, facecolor=colour, edgecolor="grey"))
        axis.plot(x[forbidden], y[forbidden], "x", color="red", markersize=8, mew=2)
        if values is not None:
            extra = np.asarray(values, float)[n * n :]
            axis.set_title(name if not len(extra) else f"{name} (extra move {extra.sum():.2f})")
            figure.colorbar(tiles, ax=axis, fraction=0.046)
        # Coordinates as the game writes them (letters for columns, numbers for rows).
        for c in range(n):
            letters = game.action_to_string(c).rstrip("0123456789")
            axis.text(x[c], y[c] + 0.75, letters, ha="center", fontsize=7)
        for r in range(n):
            number = game.action_to_string(r * n).lstrip("abcdefghijklmnopqrstuvwxyz")
            axis.text(x[r * n] - 0.8, y[r * n], number, va="center", ha="right", fontsize=7)
        axis.set_xlim(x.min() - 1.3, x.max() + 1)
        axis.set_ylim(y.min() - 1, y.max() + 1.2)
        axis.set_aspect("equal")
        axis.axis("off")
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure


def policy_heatmaps(game, state, panels: dict, title: str, path) -> pathlib.Path:
    """`board_figure` with these panels, saved as a PNG at `path`."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    board_figure(game, state, panels, title).savefig(path, dpi=100)
    return path


def agent_heatmaps(
    game, net, params, search: search_lib.SearchConfig | None, states, out_dir, q_values=False
) -> list[pathlib.Path]:
    """On each position: the network's policy, and with a `search` config the search's policy,
    with the values; with `q_values` (a DQN's network) the legal Q-values rescaled to [0, 1].
    The first position is drawn as first_move.png, the others as position_K.png."""
    run_search = None if search is None else jax.jit(search_lib.make_search(game, net, search))
    written = []
    for index, state in enumerate(states):
        batch = jax.tree.map(lambda x: x[None], state)
        logits, value = network_lib.apply(net, params, jax.vmap(game.observe)(batch))
        legal = np.asarray(batch.legal_action_mask[0])
        prior = jax.nn.softmax(search_lib.masked_logits(logits, batch.legal_action_mask))
        panels = {"network policy": np.asarray(prior[0])}
        title = f"value {float(value[0]):+.2f} (network)"
        if run_search is not None:
            found = run_search(params, jax.random.key(0), batch, batch.step_count)
            panels["search policy"] = np.asarray(found.policy[0])
            title += f", {float(found.value[0]):+.2f} (search)"
        if q_values:
            q = np.tanh(np.asarray(logits[0]))
            panels = {"Q-values, (Q + 1) / 2": np.where(legal, (q + 1) / 2, 0.0)}
            title = f"best Q {float(q[legal].max()):+.2f}" if legal.any() else "game over"
        name = "first_move" if index == 0 else f"position_{index}"
        mover = "Black" if int(state.current_player) == 0 else "White"
        path = pathlib.Path(out_dir) / f"{name}.png"
        written.append(policy_heatmaps(game, state, panels, f"{mover} to move; {title}", path))
    return written
