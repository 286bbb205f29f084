"""The looks of a study played until it is answered (``stop = "settled"``, ``--until settled``).

Such a study is played in rounds: its own games first, then every cell's games doubled, and
so on up to ``max_games`` (the last look uses the largest whole multiple of the first that
fits). After each look the report's summary is read; the run stops at the first look where
every question with a verdict is settled (different, or practically equal), or at the last.

Stopping when the answers look settled makes the usual 95% intervals too narrow: a
question looked at four times has four chances to come out wrong. The levels here make the
verdicts hold under that optional stopping, whatever the rule that stops:

- **alpha spending** (Lan and DeMets 1983), with the spending function of the family of
  Hwang, Shih and DeCani (1990), ``gamma = -4``: alpha(t) = alpha (1 - e^(-gamma t)) /
  (1 - e^(-gamma)), where t is a look's share of the last look's games. It spends little
  early (a look at an eighth of the games is read at 0.0006) and keeps most of the level
  for the last look (0.044 of 0.05 with four looks), so a study that runs to its cap loses
  almost nothing against one planned at that size;
- each look's verdicts are read at its **increment** alpha(t_k) - alpha(t_(k-1)) (with the
  report's Bonferroni correction within each question's family, as always), so by the union
  bound the chance that a question's verdict is wrong at any look, hence at the look where
  the run stopped, is at most alpha. This needs no model of how the looks' statistics are
  correlated, which exact group-sequential boundaries need and which a summary of many tests
  of different kinds (ratings, paired swaps, equivalence tests) does not have; the price is
  a little conservatism.

The looks and their levels are fixed before the first game from the study alone, so they
never depend on the data; the manifest keeps them, and the look the run stopped at.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .plan import Plan

PLANNED, SETTLED = "planned", "settled"
STOPS = (PLANNED, SETTLED)
ALPHA = 0.05  # the level each question's verdicts hold at over all the looks
SPENDING_GAMMA = -4.0  # Hwang-Shih-DeCani: negative spends late, like O'Brien-Fleming
MAX_LOOKS = 12  # a cap 2048 times the first look at most: more is a typo
DEFAULT_CAP_FACTOR = 8  # --until settled without --max-games: up to 8 times the study


def spent(t: float, alpha: float = ALPHA, gamma: float = SPENDING_GAMMA) -> float:
    """The level spent by the share ``t`` (0 to 1) of the last look's games."""
    t = min(max(t, 0.0), 1.0)
    return alpha * (1.0 - math.exp(-gamma * t)) / (1.0 - math.exp(-gamma))


def look_factors(first: int, max_games: int) -> tuple[int, ...]:
    """Each look's games as a multiple of the first look's ``first``: doubling, then the
    largest whole multiple that fits ``max_games``; at most ``MAX_LOOKS`` looks."""
    if first < 1 or max_games < first:
        raise ValueError(f"max_games {max_games} is below the first look's {first} games")
    factors = [1]
    while len(factors) < MAX_LOOKS and first * factors[-1] * 2 <= max_games:
        factors.append(factors[-1] * 2)
    last = max_games // first
    if len(factors) < MAX_LOOKS and last > factors[-1]:
        factors.append(last)
    return tuple(factors)


def look_levels(factors: tuple[int, ...], alpha: float = ALPHA) -> tuple[float, ...]:
    """The level each look's verdicts are read at: the spending function's increments."""
    shares = [f / factors[-1] for f in factors]
    spent_by = [spent(t, alpha) for t in shares]
    return tuple(b - a for a, b in zip([0.0, *spent_by[:-1]], spent_by, strict=True))


def looks_line(plan: Plan) -> str:
    """Where a study played until settled stopped, and what its last look left open."""
    at = f"look {plan.look + 1} of {len(plan.look_factors)} ({plan.total_games:,} games)"
    left = plan.open_questions
    if left is None:
        return f"Stopped at {at}, before it was judged."
    if not left:
        return f"Settled at {at}: every question of the summary has its answer."
    shown = "; ".join(left[:6]) + (f"; and {len(left) - 6} more" if len(left) > 6 else "")
    return f"The cap ({plan.max_games:,} games) stopped it at {at}, open: {shown}."


def games_line(plan: Plan) -> str:
    """The games a run will play, in a few words: "21,840 games", or for a study played
    until settled "21,840 games, up to 43,680 until settled"."""
    if not plan.until_settled:
        return f"{plan.total_games:,} games"
    last = plan.at_look(len(plan.look_factors) - 1).total_games
    return f"{plan.total_games:,} games, up to {last:,} until settled"
