"""All of a report's statistics, computed once from a results folder's tables."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from cardgame import default_catalogue
from sims.results import Results

from . import designer, skill
from .big_cities import big_cities
from .destinations import card_balance
from .game_length import game_length
from .points import round_shares, score_parts
from .ratings import pairwise, pooled_ratings, pooling_test, ratings
from .seat_order import seat_advantage
from .swaps import lineup_swaps
from .variants import variant_effects
from .wins import head_to_head, win_rates


@dataclass
class Analysis:
    """The stats frames a report shows (each tidy, each downloadable)."""

    results: Results
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    planned_games: int | None = None  # the study's size; more than len(games) if stopped early

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
    return frame[frame["variant"] == "base"] if "base" in set(frame["variant"]) else frame


def analyse(results: Results, planned_games: int | None = None) -> Analysis:
    """Every statistic of the report; strategy, seat and card statistics use base rules."""
    seats, games, destinations = results.seats, results.games, results.destinations
    base = _base_rules(seats)
    tables: dict[str, pd.DataFrame] = {}
    tables["win_rates"] = win_rates(base)
    tables["head_to_head"] = head_to_head(base)
    tables["ratings"] = ratings(base)
    tables["rating_pooling"] = pooling_test(base)
    tables["ratings_pooled"] = pooled_ratings(base)
    tables["pairwise"] = pairwise(base)
    tables["lineup_swaps"] = lineup_swaps(base, results.study.get("pairing", "none"))
    tables["seat_advantage"], tables["seat_tests"] = seat_advantage(base)
    tables["score_parts"] = score_parts(base)
    tables["destinations"] = card_balance(_base_rules(destinations))
    cities = list(default_catalogue().big_city_names)
    tables["big_cities"] = big_cities(base, cities)
    tables["game_length"] = game_length(_base_rules(games))
    tables["round_shares"] = round_shares(base)
    tables["variants"] = variant_effects(games, seats, rules=results.study.get("variants"))
    tables.update(designer_tables(base, _base_rules(destinations), tables["head_to_head"]))
    tables.update(
        skill.skill_tables(base, results.study, tables["head_to_head"], tables["lineup_swaps"])
    )
    return Analysis(results, tables, planned_games)


def designer_tables(
    seats: pd.DataFrame, destinations: pd.DataFrame, head_to_head: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """What designers ask (reports/designer.py): base rules, per player count."""
    contribution = designer.card_contribution(destinations, seats)
    return {
        "first_seat": designer.first_seat_advantage(seats),
        "score_margins": designer.score_margins(seats),
        "margin_distribution": designer.margin_distribution(seats),
        "card_contribution": contribution,
        "card_contribution_shown": designer.top_and_bottom(contribution),
        "non_transitivity": designer.non_transitivity(head_to_head),
        "meta_game": designer.meta_game(seats),
    }
