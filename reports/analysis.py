"""All of a report's statistics, computed once from a results folder's tables."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from cardgame import default_catalogue
from sims.results import Results

from . import stats


@dataclass
class Analysis:
    """The stats frames a report shows (each tidy, each downloadable)."""

    results: Results
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)

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


def analyse(results: Results) -> Analysis:
    """Every statistic of the report."""
    seats, games, destinations = results.seats, results.games, results.destinations
    base = seats[seats["variant"] == "base"] if "base" in set(seats["variant"]) else seats
    tables: dict[str, pd.DataFrame] = {}
    tables["win_rates"] = stats.win_rates(base)
    tables["head_to_head"] = stats.head_to_head(base)
    tables["ratings"] = stats.ratings(base)
    tables["seat_advantage"], tables["seat_tests"] = stats.seat_advantage(base)
    tables["score_parts"] = stats.score_parts(base)
    base_destinations = (
        destinations[destinations["variant"] == "base"]
        if "base" in set(destinations["variant"])
        else destinations
    )
    tables["destinations"] = stats.destination_balance(base_destinations)
    cities = list(default_catalogue().big_city_names)
    tables["big_cities"] = stats.big_cities(base, cities)
    base_games = games[games["variant"] == "base"] if "base" in set(games["variant"]) else games
    tables["game_length"] = stats.game_length(base_games)
    tables["round_shares"] = stats.round_shares(base)
    tables["variants"] = stats.variant_effects(games, seats)
    return Analysis(results, tables)
