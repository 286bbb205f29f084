"""All of a report's statistics, computed once from a results folder's tables."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from sims.plan import Sweep
from sims.results import Results

from . import designer, skill
from .big_cities import big_cities
from .destinations import card_balance_of
from .edit_effects import edit_effects_of
from .game_length import game_length
from .level import at_alpha
from .margins import margins_of
from .offers import COLUMNS as OFFER_COLUMNS
from .offers import SeatShares, offer_sums
from .points import round_shares, score_parts
from .quality import quality_effects, quality_summary
from .ratings import (
    leaders,
    pairwise,
    pooled_fit,
    pooled_pairwise,
    pooled_ratings,
    pooling_test,
    rating_fits,
    ratings,
)
from .seat_order import edge_heterogeneity, seat_advantage, seat_edge
from .swaps import lineup_swaps
from .sweeps import sweep_frames
from .variants import edge_changes, variant_effects, variant_strategies
from .wins import head_to_head, per_game_shares, win_rates


@dataclass
class Analysis:
    """The stats frames a report shows (each tidy, each downloadable)."""

    results: Results
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    planned_games: int | None = None  # the study's size; more than len(games) if stopped early
    margins: dict[str, float] = field(default_factory=dict)  # practical margins (margins.py)
    sweeps: list[Sweep] = field(default_factory=list)  # the study's sweeps
    sweep_tables: dict[str, pd.DataFrame] = field(default_factory=dict)  # metric -> frame
    edge_test: dict[str, Any] = field(default_factory=dict)  # edge across player counts
    # the study's checks (reports/robustness.py): each one's own analysis, by name
    checks: dict[str, Analysis] = field(default_factory=dict)

    @property
    def alpha(self) -> float:
        """The level its verdicts are read at (reports/level.py)."""
        return self.results.plan.level

    @property
    def partial_note(self) -> str:
        """A sentence for a report of a stopped run, else ''."""
        planned, have = self.planned_games, len(self.games)
        if planned is None or have >= planned:
            return ""
        return (
            f"Partial results: this folder holds {have:,} of the study's {planned:,} games "
            f"({have / planned:.0%}); the run was stopped before the end."
        )

    @property
    def games(self) -> pd.DataFrame:
        return self.results.games

    @property
    def seats(self) -> pd.DataFrame:
        return self.results.seats

    @property
    def failures(self) -> int:
        return int(self.games["failed"].sum())

    @property
    def strategies(self) -> list[str]:
        return sorted(self.seats["strategy"].unique())


def _base_rules(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of the printed game when the study has a "base" variant, else all rows."""
    if frame.empty:
        return frame
    variant = frame["variant"]
    return frame[variant == "base"] if "base" in set(variant.unique()) else frame


def swept_variants(sweeps: list[Sweep]) -> set[str]:
    """The variants a study's sweeps made (``NAME=VALUE``): reported in the sweep section
    only, never among the ordinary variants."""
    return {variant for sweep in sweeps for _, variant in sweep.points if variant != "base"}


def analyse(
    results: Results,
    planned_games: int | None = None,
    progress: Callable[[str], None] | None = None,
    summary_only: bool = False,
) -> Analysis:
    """Every statistic of the report; the headline strategy, seat and card statistics use the
    base rules, each variant's own are in the variant tables. ``progress`` is told the name of
    each stage as it starts (``cardgame report`` prints a line per stage). Verdicts are read
    at the level of the results' plan (reports/level.py: a look's share of 0.05 in a study
    played until settled). ``summary_only``: only what the summary's verdicts are read from
    (the judge of a look, reports/settled.py): no card table, designer tables or checks."""
    with at_alpha(results.plan.level):
        return _analyse(results, planned_games, progress, summary_only)


def _analyse(
    results: Results,
    planned_games: int | None,
    progress: Callable[[str], None] | None,
    summary_only: bool,
) -> Analysis:
    say = progress or (lambda stage: None)
    margins = margins_of(results.study)
    sweeps = list(results.plan.sweeps.values())
    swept = swept_variants(sweeps)
    seats, games = results.seats, results.games
    base = _base_rules(seats)
    tables: dict[str, pd.DataFrame] = {}
    # the offer rows are summed from their files by a thread while the seat statistics run
    # (reading Parquet and numpy's array work let go of the interpreter lock)
    stop = threading.Event()
    offers = pd.DataFrame()
    with ThreadPoolExecutor(max_workers=1) as pool:
        summing = (
            None
            if summary_only
            else pool.submit(
                offer_sums, results.destination_chunks(OFFER_COLUMNS), SeatShares(seats), stop
            )
        )
        try:
            _seat_tables(results, base, margins, tables, say, summary_only)
            if summing is not None:
                say("destination cards and big cities")
                offers = _base_rules(summing.result())
        except BaseException:
            stop.set()  # Ctrl-C or an error: the thread stops at its next chunk
            raise
    edition = results.plan.catalogue()  # the study's own cards (any edition)
    if not summary_only:
        tables["destinations"] = card_balance_of(offers, catalogue=edition)
        cities = list(edition.big_city_names)
        tables["big_cities"] = big_cities(base, cities)
    ordinary_games = games[~games["variant"].isin(list(swept))] if swept else games
    ordinary_seats = seats[~seats["variant"].isin(list(swept))] if swept else seats
    if ordinary_games["variant"].nunique() > 1:
        say("rule variants")
    tables["variants"] = variant_effects(
        ordinary_games, ordinary_seats, rules=results.study.get("variants"), margins=margins
    )
    tables.update(variant_tables(ordinary_games, ordinary_seats, tables, margins))
    tables["edit_effects"] = edit_effects_of(results, margins)
    if not summary_only:
        say("what designers ask: first seat, margins, cards and winning, meta-game")
        tables.update(designer_tables(base, offers, tables["head_to_head"], edition))
    tables.update(
        skill.skill_tables(base, results.study, tables["head_to_head"], tables["lineup_swaps"])
    )
    if results.quality is not None:
        say("game quality")
        tables["quality"] = quality_summary(games, results.quality)
        tables["quality_variants"] = quality_effects(
            games, results.quality, rules=results.study.get("variants"), margins=margins
        )
    frames = {}
    if sweeps:
        say("sweeps")
        cards = {sweep.card for sweep in sweeps if sweep.card is not None}
        swept_cards = results.destination_rows(cards)
        frames = sweep_frames(games, seats, swept_cards, sweeps, margins=margins)
    checks = {}
    for name, check in () if summary_only else results.checks().items():
        say(f"the {name} check")
        checks[name] = analyse(check, planned_games=check.plan.total_games)
    return Analysis(
        results,
        tables,
        planned_games,
        margins=margins,
        sweeps=sweeps,
        sweep_tables=frames,
        edge_test=edge_heterogeneity(tables["seat_edge"]),
        checks=checks,
    )


def _seat_tables(
    results: Results,
    base: pd.DataFrame,
    margins: dict[str, float],
    tables: dict[str, pd.DataFrame],
    say: Callable[[str], None],
    summary_only: bool = False,
) -> None:
    """The strategy, seat, points and game-length tables, into ``tables`` (``summary_only``:
    no ratings pooled over player counts, no seat and points tables beyond the edge)."""
    games = results.games
    say("strategies: win rates, ratings, pairwise verdicts")
    unit = per_game_shares(base)  # one row per game and strategy, read twice
    tables["win_rates"] = win_rates(base, margins, unit)
    tables["head_to_head"] = head_to_head(base)
    fits = rating_fits(base)
    tables["ratings"] = ratings(base, fits)
    tables["rating_pooling"] = pd.DataFrame() if summary_only else pooling_test(base, fits)
    pooled = pooled_fit(base) if len(tables["rating_pooling"]) else None
    tables["ratings_pooled"] = pooled_ratings(base, pooled)
    tables["pairwise"] = pairwise(base, margins, fits, unit)
    del unit
    tables["pairwise_pooled"] = (
        pooled_pairwise(base, margins, pooled) if pooled is not None else pd.DataFrame()
    )
    tables["lineup_swaps"] = lineup_swaps(base, results.study.get("pairing", "none"), margins)
    tables["leaders"] = pd.concat(
        [
            leaders(tables["ratings"], tables["pairwise"], tables["lineup_swaps"]),
            leaders(tables["ratings_pooled"], tables["pairwise_pooled"])
            if len(tables["pairwise_pooled"])
            else None,
        ],
        ignore_index=True,
    )
    say("seats, points and game length")
    tables["seat_edge"] = seat_edge(base, margins)
    tables["game_length"] = game_length(_base_rules(games))
    if summary_only:
        return
    tables["seat_advantage"], tables["seat_tests"] = seat_advantage(base)
    tables["score_parts"] = score_parts(base)
    tables["round_shares"] = round_shares(base)


def variant_tables(
    games: pd.DataFrame,
    seats: pd.DataFrame,
    tables: dict[str, pd.DataFrame],
    margins: dict[str, float],
) -> dict[str, pd.DataFrame]:
    """Every rule variant in full: per variant and player count the printed game's
    statistics (seat edge, ratings, length), which strategies it moves, and whether it fixes
    the first seat's edge (measured at tables of equal players where the study has them)."""
    if tables["variants"].empty:
        return {}
    edges, rating, length = [], [], []
    for variant in sorted(set(seats["variant"].unique())):
        mine = seats[seats["variant"] == variant]
        played = sorted(
            set(tables["variants"].loc[tables["variants"]["variant"] == variant, "players"])
        )
        if variant != "base":
            mine = mine[mine["players"].isin(played)]  # only where its rules differ
        if mine.empty:
            continue
        edges.append(seat_edge(mine, margins).assign(variant=variant))
        rating.append(ratings(mine).assign(variant=variant))
        length.append(
            game_length(
                games[
                    (games["variant"] == variant)
                    & games["players"].isin(set(mine["players"].unique()))
                ]
            ).assign(variant=variant)
        )
    variant_edge = pd.concat(edges, ignore_index=True)
    changes = tables["variants"]
    if (tables["seat_edge"]["tables"] == "equal players").any():
        equal = _equal_games(seats)
        changes = variant_effects(
            games.merge(equal, on=["cell", "game_index"]),
            seats.merge(equal, on=["cell", "game_index"]),
            margins=margins,
        )
    return {
        "variant_seat_edge": variant_edge,
        "variant_ratings": pd.concat(rating, ignore_index=True),
        "variant_length": pd.concat(length, ignore_index=True),
        "variant_strategies": variant_strategies(games, seats, margins=margins),
        "variant_edge_changes": edge_changes(changes, tables["seat_edge"], variant_edge),
    }


def _equal_games(seats: pd.DataFrame) -> pd.DataFrame:
    """The games (cell, game_index) whose seats all hold one non-random strategy."""
    distinct = seats.groupby(["cell", "game_index"])["strategy"].agg(["nunique", "first"])
    keep = distinct[(distinct["nunique"] == 1) & (distinct["first"] != "random")]
    return keep.reset_index()[["cell", "game_index"]]


def designer_tables(
    seats: pd.DataFrame,
    offers: pd.DataFrame,
    head_to_head: pd.DataFrame,
    catalogue: Any | None = None,
) -> dict[str, pd.DataFrame]:
    """What designers ask (reports/designer.py): base rules, per player count; ``offers``
    are the destination offers' sums (reports/offers.py); ``catalogue`` the study's cards
    (their labels; None: the printed ones)."""
    contribution = designer.card_contribution_of(offers, catalogue=catalogue)
    outcomes = designer.game_outcomes(seats)
    return {
        "first_seat": designer.first_seat_advantage(seats),
        "score_margins": designer.score_margins(seats, outcomes),
        "margin_distribution": designer.margin_distribution(seats, outcomes),
        "card_contribution": contribution,
        "card_contribution_shown": designer.top_and_bottom(contribution),
        "non_transitivity": designer.non_transitivity(head_to_head),
        "meta_game": designer.meta_game(seats),
    }
