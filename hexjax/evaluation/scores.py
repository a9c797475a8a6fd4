"""Score summaries of a match: the mean score with its Wilson interval, per colour too."""

from __future__ import annotations

import math

import numpy as np

# The normal quantile of a two-sided 95% interval.
Z_95 = 1.959964


def wilson_interval(score: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a mean score over `games` games (draws count half, so the
    variance of a score with draws is overstated: the interval errs wide). Unlike the normal
    approximation it does not shrink to a point at 0/n or n/n."""
    if games == 0:
        return 0.0, 1.0
    spread = z * z / games
    centre = (score + spread / 2) / (1 + spread)
    half = z / (1 + spread) * math.sqrt(score * (1 - score) / games + spread / (4 * games))
    return max(0.0, centre - half), min(1.0, centre + half)


def summarize(scores) -> dict:
    """Wins, draws, losses, the mean score and its 95% Wilson score interval. For arena scores
    (an even count, `first` Black in the first half) also the score with each colour, its
    interval, and whether the two intervals are apart (`colours_differ`)."""
    scores = np.asarray(scores, np.float64)
    count = len(scores)
    mean = float(scores.mean()) if count else 0.0
    low, high = wilson_interval(mean, count)
    summary = {
        "games": count,
        "wins": int((scores == 1).sum()),
        "draws": int((scores == 0.5).sum()),
        "losses": int((scores == 0).sum()),
        "score": mean,
        "low": low,
        "high": high,
    }
    if count and count % 2 == 0:
        for colour, half in (("black", scores[: count // 2]), ("white", scores[count // 2 :])):
            summary[f"as_{colour}"] = float(half.mean())
            interval = wilson_interval(float(half.mean()), len(half))
            summary[f"{colour}_low"], summary[f"{colour}_high"] = interval
        # The colours' intervals do not overlap: one score would hide a weak side.
        summary["colours_differ"] = bool(
            summary["black_high"] < summary["white_low"]
            or summary["white_high"] < summary["black_low"]
        )
    return summary
