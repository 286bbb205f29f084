"""Game-quality metrics of one game, from its per-position win chances: pure functions.

The input is a chance matrix, one row per position (after setup, then after each turn, as
``sims.winchance.positions`` numbers them) and one column per seat, from either estimator
(the play-out oracle, ``sims.winchance``, or the learned model, ``sims.standing``); the last
row is normally the result itself. Optionally a points matrix of the same shape (each seat's
standing in points at each position, e.g. ``sims.standing.points_now``), the winners and the
final scores.

**A shared win** (R22: a tie still standing) is handled by treating its winners as one side:
the winner's chance at a position is the sum of the winners' chances (the chance that the
win goes to one of them, 1 at the result), and "the best rival" is the best seat outside
the side. With one winner every definition below reduces to the usual one.

The definitions (``W`` the winners, ``w_t = sum of p_{t,s} over s in W`` the winner's chance
at position ``t``, ``r_t = max of p_{t,s} over s not in W`` the best rival's, positions
``0..T``):

* **lead changes** (by chance, and by points): the leader at a position is the one seat
  with the highest value; a position where several seats share the highest value has no
  leader and is skipped. The count is the number of times the leader differs from the
  previous leader, over every row given (the result included: a lead taken on the last
  turn counts).
* **drama** (Ludii's ``Drama`` metric, Browne and Maire 2010, "Evolutionary Game Design",
  IEEE TCIAIG 2(1); Ludii's implementation ``metrics.multiple.metrics.Drama``): the mean,
  over the positions before the result (``t < T``), of how far the eventual winner was
  behind the leader, ``max(0, r_t - w_t)``; 0 for a game the winner led throughout. Ludii
  averages ``max_s p_{t,s} - p_{t,w}`` over the winners of a shared win; with one winner the
  two agree. (Browne's thesis also has a variant with the square root of the gap: it is
  not used here.)
* **decisiveness**: the first position from which the winner's chance stays above
  ``threshold`` (strictly) to the end, ``min t such that w_u > threshold for all u >= t``,
  and that position as a fraction of the game, ``t / T``. 0.5 by default: from there the
  winner was more likely to win than the whole table together. None when the last row is
  not above it (a series that does not end in the result).
* **excitement** (the sports "excitement index": the sum of the absolute changes of win
  probability over a game, Burke, Advanced NFL Stats 2010; Beuoy, inpredictable.com):
  ``sum over t >= 1 of (1/2) sum_s |p_{t,s} - p_{t-1,s}|``, the total-variation distance
  between consecutive rows summed over the game. With two seats it is the sports index of
  either seat (both seats' changes are equal and opposite); halving keeps it so at any
  player count.
* **comeback** (the sports "comeback factor", Beuoy, inpredictable.com: the inverse of the
  winner's lowest win probability): ``1 / max(min_t w_t, COMEBACK_FLOOR)``; 1 for a winner
  who was never in doubt. The floor (0.01: at most 100) keeps a chance estimated as exactly
  0 (a play-out oracle whose play-outs never saw the win) finite.
* **final margin**: the winner's final score minus the best final score of a seat outside
  ``W`` (0 when every seat shared the win; 0 too for a win on a tie-break, R22).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DECISIVE = 0.5  # the winner's chance must stay above this (an even chance against the table)
COMEBACK_FLOOR = 0.01  # a winner's lowest chance counts as at least this (comeback <= 100)


@dataclass(frozen=True)
class Quality:
    """The quality metrics of one game (definitions in the module doc). ``lead_changes_points``
    is None without a points matrix, ``final_margin`` without scores, ``decisive_at`` and
    ``decisive_fraction`` when the winner's chance does not end above the threshold."""

    positions: int
    lead_changes_chance: int
    lead_changes_points: int | None
    drama: float
    decisive_at: int | None
    decisive_fraction: float | None
    excitement: float
    comeback: float
    lowest_chance: float
    final_margin: int | float | None


def final_margin(scores: Sequence[int | float], winners: Sequence[int]) -> int | float:
    """The winners' score minus the best score outside them (0 if every seat won)."""
    rivals = [score for seat, score in enumerate(scores) if seat not in winners]
    if not rivals:
        return 0
    return max(scores[s] for s in winners) - max(rivals)


def quality(
    chances: Sequence[Sequence[float]] | np.ndarray,
    winners: Sequence[int],
    points: Sequence[Sequence[float]] | np.ndarray | None = None,
    scores: Sequence[int | float] | None = None,
    threshold: float = DECISIVE,
) -> Quality:
    """Every metric of one game (see the module doc for the definitions), computed on arrays:
    a study scores every game."""
    rows = np.asarray(chances, dtype=float)
    if rows.ndim != 2 or not len(rows):
        raise ValueError("quality: no positions" if not len(rows) else "quality: a matrix")
    seats = rows.shape[1]
    if not winners or any(not 0 <= s < seats for s in winners):
        raise ValueError(f"quality: winners {list(winners)} are not seats of a {seats}-seat game")
    if points is not None and len(points) != len(rows):
        raise ValueError("quality: the points matrix needs one row per position")
    side = list(winners)
    others = [s for s in range(seats) if s not in side]
    win = rows[:, side].sum(axis=1)
    rival = rows[:, others].max(axis=1) if others else np.zeros(len(rows))
    before = np.maximum(0.0, rival - win)[:-1]
    above = win > threshold
    at: int | None = None
    if above[-1]:
        below = np.flatnonzero(~above)
        at = int(below[-1]) + 1 if len(below) else 0
    last = len(rows) - 1
    lowest = float(win.min())
    return Quality(
        positions=len(rows),
        lead_changes_chance=_lead_changes(rows),
        lead_changes_points=None if points is None else _lead_changes(np.asarray(points, float)),
        drama=float(before.mean()) if len(before) else 0.0,
        decisive_at=at,
        decisive_fraction=None if at is None else (at / last if last else 0.0),
        excitement=float(np.abs(np.diff(rows, axis=0)).sum() / 2),
        comeback=1 / max(lowest, COMEBACK_FLOOR),
        lowest_chance=lowest,
        final_margin=None if scores is None else final_margin(scores, winners),
    )


def _lead_changes(rows: np.ndarray) -> int:
    """How many times the one seat with the highest value changes (positions where several
    share it have no leader and are skipped)."""
    top = rows == rows.max(axis=1, keepdims=True)
    single = top.sum(axis=1) == 1
    leaders = top.argmax(axis=1)[single]
    return int((leaders[1:] != leaders[:-1]).sum())
