"""Players adapted to the design: before a study is played, each scripted strategy's knobs are
fitted to each design of the study (a variant, a sweep's value), so that a verdict on an
edited design is the verdict for players who noticed the edit, not for players tuned to the
printed cards.

For one strategy (a label of the study) and one design: a budgeted, seeded search over the
strategy's knobs, CMA-ES (the ``cma`` package: a well-kept, small implementation of the
standard optimiser for a handful of continuous knobs under noise, with an ask-and-tell loop
the games drive, seeds of its own and box bounds; ints are searched as reals and rounded).
The objective is the strategy's mean win share in the study's line-ups that hold it and
another strategy, at the design's player counts, the other seats at their study knobs. Every
candidate of a generation plays the same deals (common random numbers: they are ranked on
equal terms), each deal in one of the line-up's seat orders in turn. The search starts from
the study's knobs (a configured strategy from its own). Its result, the distribution's mean,
is then confirmed on held-out deals, paired with the start: the adapted knobs are used only
where they beat the start there (the lower end of a 95% interval of the paired difference
above 0); else the start stays, and the adaptation says so.

Everything runs in the study's own process, one game after another, from seeds derived from
the study's: the same adapted knobs on any worker count, backend or engine.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

from .match import GameSpec, native_loop, play_game
from .plan import Plan
from .seeding import cell_token, game_seed
from .strategy import StrategySpec, strategy_class
from .study_settings import ADAPTABLE

# what may move, and how far: (low, high) per knob; a family's knobs outside this are kept
BOUNDS: dict[str, tuple[float, float]] = {
    "card_share": (0.1, 0.9),
    "future_cards": (0.0, 1.5),
    "city_weight": (0.0, 6.0),
    "steal_bonus": (0.0, 6.0),
    "hunt_value": (0.0, 4.0),
    "column_value": (0.0, 4.0),
    "min_useful": (1, 4),
    "extra_cards": (0, 4),
    "min_column": (2, 5),
    "loco_pick_missing": (1, 6),
    "ticket_turns": (1, 8),
    "slack": (0, 4),
}
DEALS_PER_CANDIDATE = 100  # games each candidate of a generation plays (the same deals)
HOLDOUT_SHARE = 4  # the held-out games (start and adapted on each deal): the budget over this
Z95 = 1.959963984540054  # the two-sided 95% normal quantile


@dataclass(frozen=True)
class Adaptation:
    """What the search found for one strategy on one design, and whether it is used."""

    variant: str
    label: str
    start: dict[str, Any]
    adapted: dict[str, Any]
    used: bool
    start_share: float  # held-out mean win share of the start
    adapted_share: float  # ... and of the adapted knobs, on the same deals
    low: float  # 95% interval of the paired difference (adapted minus start)
    high: float
    games: int  # the search's and the hold-out's games

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "label": self.label,
            "start": self.start,
            "adapted": self.adapted,
            "used": self.used,
            "start_share": self.start_share,
            "adapted_share": self.adapted_share,
            "low": self.low,
            "high": self.high,
            "games": self.games,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Adaptation:
        return cls(**data)

    def sentence(self) -> str:
        """The result in words, for the command line and the manifest's reader."""
        where = f"{self.label} on {self.variant}"
        moved = ", ".join(
            f"{k} {_shown(self.start.get(k))} -> {_shown(v)}"
            for k, v in self.adapted.items()
            if v != self.start.get(k)
        )
        held = (
            f"held-out win share {self.start_share:.1%} -> {self.adapted_share:.1%} "
            f"(difference {self.low:+.1%} to {self.high:+.1%})"
        )
        if self.used:
            return f"{where}: adapted ({moved or 'no knob moved'}); {held}"
        return f"{where}: the start stays (the search's knobs did not beat it held out: {held})"


def adaptable(spec: StrategySpec) -> bool:
    """A scripted strategy with knobs to search (not random, search or one's own classes)."""
    return spec.base in ADAPTABLE


def adapt_plan(plan: Plan, say: Any = None) -> list[Adaptation]:
    """Every adaptation the plan asks for: each adaptable label on each design."""
    out = []
    named = plan.adapt_strategies or tuple(plan.strategies)
    labels = [label for label in named if adaptable(plan.strategies[label])]
    for variant in plan.variants:
        for label in labels:
            found = adapt_one(plan, variant, label)
            if found is not None:
                out.append(found)
                if say is not None:
                    say(found.sentence())
    return out


def adapt_one(plan: Plan, variant: str, label: str) -> Adaptation | None:
    """The search and its hold-out for one strategy on one design (None: the strategy meets
    no other strategy on that design, so there is nothing to adapt against)."""
    cells = [
        c
        for c in plan.cells
        if c.variant == variant and label in c.lineup and len(set(c.lineup)) > 1
    ]
    if not cells:
        return None
    spec = plan.strategies[label]
    cls = strategy_class(spec.base)
    defaults = cls.Knobs()
    start = {
        k: dict(spec.knobs).get(k, getattr(defaults, k)) for k in BOUNDS if hasattr(defaults, k)
    }
    names = sorted(start)
    budget = plan.adapt_budget
    holdout = max(2, budget // (2 * HOLDOUT_SHARE))  # deals, each played by both knobs
    search = budget - 2 * holdout
    arena = _Arena(plan, variant, label, cells)

    import numpy as np

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cma warns that matplotlib is missing: not needed
        import cma

    x0 = [_unit(k, start[k]) for k in names]
    seed = cell_token(f"{plan.seed}/adapt/{variant}/{label}") % (2**31 - 2) + 1
    options = {"bounds": [0.0, 1.0], "seed": seed, "verbose": -9, "tolfun": 0, "tolx": 1e-6}
    es = cma.CMAEvolutionStrategy(x0, 0.25, options)
    played, generation = 0, 0
    while played + es.popsize * DEALS_PER_CANDIDATE <= search and not es.stop():
        candidates = es.ask()
        deals = arena.deals("search", generation, DEALS_PER_CANDIDATE)
        losses = [-np.mean(arena.shares(_knobs(names, x), deals)) for x in candidates]
        es.tell(candidates, losses)
        played += len(candidates) * DEALS_PER_CANDIDATE
        generation += 1
    adapted = _knobs(names, es.result.xfavorite)
    deals = arena.deals("holdout", 0, holdout)
    mine = np.array(arena.shares(adapted, deals))
    theirs = np.array(arena.shares(start, deals))
    diff = mine - theirs
    half = Z95 * float(diff.std(ddof=1)) / math.sqrt(len(diff)) if len(diff) > 1 else math.inf
    low, high = float(diff.mean()) - half, float(diff.mean()) + half
    return Adaptation(
        variant,
        label,
        start,
        adapted,
        low > 0.0,
        float(theirs.mean()),
        float(mine.mean()),
        low,
        high,
        played + 2 * holdout,
    )


class _Arena:
    """The games a candidate plays: the design's line-ups holding the label, each deal in one
    of the line-up's seat orders in turn, the other seats at their study knobs."""

    def __init__(self, plan: Plan, variant: str, label: str, cells: list[Any]) -> None:
        self.plan, self.variant, self.label = plan, variant, label
        self.cells = cells
        self.seatings = [c.seatings() for c in cells]

    def deals(self, purpose: str, step: int, count: int) -> list[tuple[int, int, tuple[str, ...]]]:
        """``count`` deals: (cell, seed, seat order), spread over the cells in turn."""
        out = []
        for j in range(count):
            i = j % len(self.cells)
            order = self.seatings[i][(j // len(self.cells)) % len(self.seatings[i])]
            key = f"adapt/{purpose}/{self.variant}/{self.label}/{step}"
            seed = game_seed(self.plan.seed, key, j)
            out.append((i, seed, order))
        return out

    def shares(self, knobs: dict[str, Any], deals: list[Any]) -> list[float]:
        """The label's win share in each deal (its seats' shares averaged) with ``knobs``."""
        spec = self.plan.strategies[self.label]
        mine = StrategySpec(self.label, spec.base, tuple(sorted(knobs.items())))
        native = native_loop() if self.plan.engine != "python" else None
        out = []
        for index, (i, seed, order) in enumerate(deals):
            cell = self.cells[i]
            seats = tuple(mine if s == self.label else self.plan.strategies[s] for s in order)
            game = GameSpec(self.plan.name, cell.key, cell.variant, cell.rules, cell.players,
                            seats, index, seed, catalogue=cell.catalogue)  # fmt: skip
            share = _native_share(native, game, self.label) if native is not None else None
            if share is None:
                outcome = play_game(game, None, decision_seconds=0.0, engine=self.plan.engine)
                rows = [r for r in outcome.seats if r["strategy"] == self.label]
                share = sum(r["win_share"] for r in rows) / len(rows) if rows else 0.0
            out.append(share)
        return out


def _native_share(native: Any, game: GameSpec, label: str) -> float | None:
    """``label``'s win share in ``game`` played on the native core, as ``play_game`` plays it
    there, without the rows it would write (an adaptation reads only this share: it costs
    what the game costs); None where ``play_game`` must play it (a seat without a native twin,
    a failed game)."""
    twins = [native.twin(game, seat) for seat in range(game.players)]
    if any(twin is None for twin in twins):
        return None
    start, clock = native.start(game.game(), None)
    played, _, _, failed = native.play_native(start, twins, clock, None, offer_rows=False)
    if failed is not None:
        return None
    winners, _ = native.final_scores(played)
    shares = [
        1.0 / len(winners) if seat in winners else 0.0
        for seat, spec in enumerate(game.seats)
        if spec.label == label
    ]
    return sum(shares) / len(shares) if shares else 0.0


def _unit(name: str, value: float) -> float:
    low, high = BOUNDS[name]
    return min(1.0, max(0.0, (float(value) - low) / (high - low)))


def _knobs(names: list[str], x: Any) -> dict[str, Any]:
    """Knob values from a point of the unit box (ints rounded)."""
    out: dict[str, Any] = {}
    for name, u in zip(names, x, strict=True):
        low, high = BOUNDS[name]
        value = low + min(1.0, max(0.0, float(u))) * (high - low)
        out[name] = round(value) if isinstance(low, int) else round(value, 4)
    return out


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
