"""Rule variants: each variant's difference from the base game per player count and
metric, paired by deal in a paired study (docs/data.md), Benjamini-Hochberg over the table."""

from __future__ import annotations

import pandas as pd
from scipy import stats as sps

from .differences import paired_difference, welch_difference
from .intervals import ALPHA, GAME

VARIANT_COLUMNS = [
    "variant", "players", "metric", "method", "n_games", "n_games_base", "n_pairs", "n_deals",
    "base",
    "value", "difference", "ci_low", "ci_high", "sd_difference", "p_value", "q_value",
    "significant", "detectable", "correction",
]  # fmt: skip
VARIANT_CORRECTION = "Benjamini-Hochberg"


def _per_game_mean(seats: pd.DataFrame, column: str) -> pd.DataFrame:
    """The seats of a game averaged: the game, not the seat, is the unit of a comparison."""
    return seats.groupby(["variant", "players", *GAME], as_index=False)[column].mean()


def _variant_metrics(games: pd.DataFrame, seats: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """One value per finished game for each metric: columns variant, players, value, and
    (when the tables have them) cell, game_index, seed and ``match`` (the line-up part of
    the cell key, which a variant game shares with its base game)."""
    ok = games[~games["failed"]]
    ids = [c for c in (*GAME, "seed") if c in ok]
    if set(GAME) <= set(ok):
        seats = seats.merge(ok[GAME], on=GAME)  # seats of finished games only
    frames = {
        metric: ok[["variant", "players", *ids, metric]]
        for metric in ("turns", "sim_minutes", "steals")
    }
    frames["mean_score"] = _per_game_mean(seats, "score")
    frames["first_seat_win_share"] = seats[seats["seat"] == 0][
        ["variant", "players", *GAME, "win_share"]
    ]
    frames["unreached_per_seat"] = _per_game_mean(seats, "unreached")
    out = {}
    for metric, frame in frames.items():
        frame = frame.rename(columns={frame.columns[-1]: "value"})
        if "seed" in ok and "seed" not in frame and set(GAME) <= set(ok):
            frame = frame.merge(ok[[*GAME, "seed"]], on=GAME)
        frame = frame.assign(value=frame["value"].astype(float))
        if "cell" in frame:
            frame = frame.assign(match=frame["cell"].str.split("/", n=1).str[1])
        out[metric] = frame
    return out


def _pairs(here: pd.DataFrame, there: pd.DataFrame) -> pd.DataFrame | None:
    """Variant and base games matched by (line-up, game index) when every match shares its
    seed (a paired study: same deal, same seating); None when the games are independent."""
    if not {"seed", "match", "game_index"} <= set(here):
        return None
    joined = here.merge(there, on=["match", "game_index"], suffixes=("", "_base"))
    if joined.empty or not (joined["seed"] == joined["seed_base"]).all():
        return None
    return joined


def _same_as_base(rules: dict | None, variant: str, base: str, players: int) -> bool:
    """Whether the study's rules (the manifest's ``variants``) make ``variant`` the base game
    at ``players``: results made before variants were limited to their counts hold such
    games, and their differences are noise."""
    from cardgame import Rules
    from sims.study import same_rules_at

    if not rules or variant not in rules or base not in rules:
        return False
    try:
        mine, theirs = ({k: v for k, v in rules[x].items() if k != "players"}
                        for x in (variant, base))  # fmt: skip
        return same_rules_at(Rules.from_dict(mine), Rules.from_dict(theirs), players)
    except Exception:  # rules this version cannot read: keep the rows
        return False


def variant_effects(
    games: pd.DataFrame, seats: pd.DataFrame, base: str = "base", rules: dict | None = None
) -> pd.DataFrame:
    """Each variant's difference from the base game per player count and metric (turns,
    simulated minutes, steals, mean score, seat 1's win share, destinations left unreached
    per seat), only at player counts where the variant was played.

    Paired studies (docs/data.md) compare game i of the variant with game i of the base
    game (same deal, line-up and seating). Line-ups of a player count replay the same deals,
    so the pair differences are averaged per deal (``seed``) and the deal is the unit: mean
    difference with a t interval and paired t-test over ``n_deals`` (``method`` "paired t";
    ``n_pairs`` counts the game pairs). Otherwise the games are independent samples:
    Welch interval and test ("Welch t"). Seat metrics are averaged per game first. Many
    differences are tested at once, so ``significant`` is Benjamini-Hochberg q < 0.05 over
    the whole table (``q_value``). ``detectable`` is the smallest difference the test finds
    with 80% power at the 5% level, so "no significant difference" comes with its size.
    ``rules`` (the manifest's variants) drops counts where a variant equals base."""
    if base not in set(games["variant"]) or games["variant"].nunique() < 2:
        return pd.DataFrame(columns=VARIANT_COLUMNS)
    metrics = _variant_metrics(games, seats)
    rows = []
    for variant in sorted(set(games["variant"]) - {base}):
        for players in sorted(set(games["players"])):
            for metric, frame in metrics.items():
                at = frame[frame["players"] == players]
                here, there = at[at["variant"] == variant], at[at["variant"] == base]
                if here.empty or there.empty or _same_as_base(rules, variant, base, players):
                    continue  # the variant is not played (or changes nothing) at this count
                pairs = _pairs(here, there)
                if pairs is not None:
                    # line-ups of a player count share their deals: the deal is the unit
                    per_deal = (pairs["value"] - pairs["value_base"]).groupby(pairs["seed"])
                    result = paired_difference(per_deal.mean())
                    result["n_deals"], result["n_pairs"] = result["n_pairs"], len(pairs)
                    method = "paired t"
                else:
                    result = {**welch_difference(here["value"], there["value"]), "n_deals": 0}
                    method = "Welch t"
                rows.append(
                    {
                        "variant": variant, "players": players, "metric": metric,
                        "method": method, "n_games": len(here), "n_games_base": len(there),
                        "base": float(there["value"].mean()),
                        "value": float(here["value"].mean()), **result,
                    }
                )  # fmt: skip
    if not rows:
        return pd.DataFrame(columns=VARIANT_COLUMNS)
    table = pd.DataFrame(rows)
    # a metric that never varies gives no p-value: it counts as no evidence (p = 1)
    p_values = table["p_value"].fillna(1.0).to_numpy()
    table["q_value"] = sps.false_discovery_control(p_values, method="bh")
    table["significant"] = table["q_value"] < ALPHA
    table["correction"] = VARIANT_CORRECTION
    return table[VARIANT_COLUMNS]
