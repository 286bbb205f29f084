"""Rule variants: each variant's difference from the base game per player count and
metric, paired by deal in a paired study (docs/data.md), with its verdict against the
metric's practical margin; Bonferroni over the variants and player counts of each metric."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .differences import paired_difference, welch_difference
from .intervals import GAME
from .level import current_alpha
from .margins import DEFAULT_MARGINS, judge, mde

VARIANT_COLUMNS = """
    variant players metric method n_games n_games_base n_pairs n_deals base value difference ci_low
    ci_high sd_difference p_value p_adjusted significant detectable correction df
""".split()
VARIANT_CORRECTION = "Bonferroni over the variants and player counts of the metric"
# each metric's practical margin (reports/margins.py)
METRIC_MARGINS = {
    "turns": "turns",
    "sim_minutes": "minutes",
    "steals": "steals",
    "mean_score": "score",
    "first_seat_win_share": "win_share",
    "unreached_per_seat": "unreached",
}


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
    from cardgame.rules import same_rules_at

    if not rules or variant not in rules or base not in rules:
        return False
    try:
        mine, theirs = (
            {k: v for k, v in rules[x].items() if k != "players"} for x in (variant, base)
        )
        return same_rules_at(Rules.from_dict(mine), Rules.from_dict(theirs), players)
    except Exception:  # rules this version cannot read: keep the rows
        return False


def variant_effects(
    games: pd.DataFrame,
    seats: pd.DataFrame,
    base: str = "base",
    rules: dict | None = None,
    margins: dict[str, float] | None = None,
    metrics: dict[str, pd.DataFrame] | None = None,
    metric_margins: dict[str, str] | None = None,
) -> pd.DataFrame:
    """Each variant's difference from the base game per player count and metric (turns,
    simulated minutes, steals, mean score, seat 0's win share, destinations left unreached
    per seat), only at player counts where the variant was played.

    Paired studies (docs/data.md) compare game i of the variant with game i of the base
    game (same deal, line-up and seating). Line-ups of a player count replay the same deals,
    so the pair differences are averaged per deal (``seed``) and the deal is the unit: mean
    difference with a t interval and paired t-test over ``n_deals`` (``method`` "paired t";
    ``n_pairs`` counts the game pairs). Otherwise the games are independent samples:
    Welch interval and test ("Welch t"). Seat metrics are averaged per game first. Each
    metric is one family: ``p_adjusted`` is Bonferroni over its variants and player counts, and
    ``verdict`` its interval against the metric's practical margin (reports/margins.py),
    with ``needed`` deals (or games) to decide where not yet known. ``detectable`` is the
    smallest difference the test finds with 80% power at 0.05 / the family size.
    ``rules`` (the manifest's variants) drops counts where a variant equals base.
    ``metrics`` (one value per game, as ``_variant_metrics`` makes them) and
    ``metric_margins`` (metric -> its margin's name) compare other per-game metrics."""
    if base not in set(games["variant"].unique()) or games["variant"].nunique() < 2:
        return judge(pd.DataFrame(columns=VARIANT_COLUMNS), 0.0, [])
    if metrics is None:
        metrics = _variant_metrics(games, seats)
    margin_of = metric_margins or METRIC_MARGINS
    rows = []
    for variant in sorted(set(games["variant"].unique()) - {base}):
        for players in sorted(set(games["players"].unique())):
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
                        "variant": variant,
                        "players": players,
                        "metric": metric,
                        "method": method,
                        "n_games": len(here),
                        "n_games_base": len(there),
                        "base": float(there["value"].mean()),
                        "value": float(here["value"].mean()),
                        **result,
                    }
                )
    if not rows:
        return judge(pd.DataFrame(columns=VARIANT_COLUMNS), 0.0, [])
    table = pd.DataFrame(rows)
    # a metric that never varies gives no p-value: it counts as no evidence (p = 1)
    table["p_value"] = table["p_value"].fillna(1.0)
    table["units"] = table["n_deals"].where(table["method"] == "paired t", table["n_games"])
    margins = margins or DEFAULT_MARGINS
    parts = [
        judge(
            part,
            margins[margin_of[metric]],
            [],
            df="df",
            n="units",
            family_name=f"{metric}: every variant and player count",
        )
        for metric, part in table.groupby("metric", sort=False)
    ]
    table = pd.concat(parts).sort_index()
    table["significant"] = table["p_adjusted"] < current_alpha()
    table["correction"] = VARIANT_CORRECTION
    family = table.groupby("metric")["p_value"].transform("size")
    table["detectable"] = [mde(se, m) for se, m in zip(table["se"], family, strict=True)]
    extra = [c for c in table.columns if c not in VARIANT_COLUMNS]
    return table[VARIANT_COLUMNS + extra]


STRATEGY_COLUMNS = """
    variant players strategy method n_deals base value difference ci_low ci_high p_value df
""".split()


def variant_strategies(
    games: pd.DataFrame,
    seats: pd.DataFrame,
    base: str = "base",
    margins: dict[str, float] | None = None,
) -> pd.DataFrame:
    """Does a variant change which strategy wins? Per variant, player count and strategy:
    the strategy's win share (its seats' shares summed per game) in the variant minus in the
    base game, paired by deal where the study is paired (the same deal, line-up and seat
    order; averaged per deal, t over deals), else Welch over games. Each (variant, player
    count) is one family of strategies (Bonferroni); a *different* strategy means the variant moves
    the balance between strategies (the variant x strategy interaction on the paired deals)."""
    from .wins import per_game_shares

    columns = STRATEGY_COLUMNS
    if base not in set(games["variant"].unique()) or games["variant"].nunique() < 2:
        return judge(pd.DataFrame(columns=columns), 0.0, [])
    ok = games.loc[~games["failed"], [*GAME, "seed"]]
    seats = seats.merge(ok, on=GAME)
    variant_of = seats.drop_duplicates(GAME).set_index(GAME)["variant"]
    unit = per_game_shares(seats)
    unit = unit[unit["fair"] < 1]  # a strategy alone at its table says nothing
    unit = unit.join(variant_of, on=GAME).merge(ok, on=GAME)
    unit["match"] = unit["cell"].str.split("/", n=1).str[1]
    rows = []
    for (variant, players), here in unit[unit["variant"] != base].groupby(["variant", "players"]):
        there = unit[(unit["variant"] == base) & (unit["players"] == players)]
        for strategy, mine in here.groupby("strategy", sort=True):
            theirs = there[there["strategy"] == strategy]
            joined = mine.merge(
                theirs, on=["match", "game_index", "strategy"], suffixes=("", "_base")
            )
            paired = len(joined) and (joined["seed"] == joined["seed_base"]).all()
            if paired:
                per_deal = (joined["win"] - joined["win_base"]).groupby(joined["seed"]).mean()
                result = paired_difference(per_deal)
                method, n = "paired t", result["n_pairs"]
            else:
                result = welch_difference(mine["win"], theirs["win"])
                method, n = "Welch t", 0
            rows.append(
                {
                    "variant": variant,
                    "players": int(players),
                    "strategy": strategy,
                    "method": method,
                    "n_deals": n,
                    "n_games": len(mine),
                    "base": float(theirs["win"].mean()) if len(theirs) else np.nan,
                    "value": float(mine["win"].mean()),
                    **{k: result[k] for k in ("difference", "ci_low", "ci_high", "p_value", "df")},
                }
            )
    table = pd.DataFrame(rows, columns=[*columns, "n_games"])
    if table.empty:
        return judge(table, 0.0, [])
    table["units"] = table["n_deals"].where(table["method"] == "paired t", table["n_games"])
    margin = (margins or DEFAULT_MARGINS)["win_share"]
    return judge(
        table,
        margin,
        ["variant", "players"],
        df="df",
        n="units",
        family_name="the strategies of one variant and player count",
    )


def edge_changes(
    variants: pd.DataFrame, base_edge: pd.DataFrame, variant_edge: pd.DataFrame
) -> pd.DataFrame:
    """Per variant and player count: does it fix, reduce, worsen or not change the first
    seat's edge? From the paired difference of seat 0's win share (``variants``, its
    verdict against the win-share margin) and each rule set's own edge (``seat_edge`` of
    the base game and of the variant): *does not change* when the difference is practically
    equal to 0; *fixes* when it is different and the variant's own edge is practically
    equal to 0 while the base game's is not; *reduces* / *worsens* when different and the
    variant's edge is smaller / larger in size; else *not yet known*."""
    from .margins import DIFFERENT, EQUAL

    rows = []
    shares = variants[variants["metric"] == "first_seat_win_share"] if len(variants) else variants
    for _, row in shares.iterrows():
        players = row["players"]
        base = base_edge[base_edge["players"] == players]
        mine = variant_edge[
            (variant_edge["variant"] == row["variant"]) & (variant_edge["players"] == players)
        ]
        base_e = base.iloc[0] if len(base) else None
        mine_e = mine.iloc[0] if len(mine) else None
        if row["verdict"] == EQUAL:
            change = "does not change"
        elif row["verdict"] != DIFFERENT or base_e is None or mine_e is None:
            change = "not yet known"
        elif mine_e["verdict"] == EQUAL and base_e["verdict"] != EQUAL:
            change = "fixes"
        elif abs(mine_e["difference"]) < abs(base_e["difference"]):
            change = "reduces"
        else:
            change = "worsens"
        rows.append({
            "variant": row["variant"], "players": int(players), "change": change,
            "base_edge": base_e["difference"] if base_e is not None else np.nan,
            "variant_edge": mine_e["difference"] if mine_e is not None else np.nan,
            "difference": row["difference"], "family_low": row["family_low"],
            "family_high": row["family_high"], "equiv_low": row["equiv_low"],
            "equiv_high": row["equiv_high"],
            "verdict": row["verdict"], "tables": base_e["tables"] if base_e is not None else "",
        })  # fmt: skip
    return pd.DataFrame(rows, columns=["variant", "players", "change", "base_edge",
                                       "variant_edge", "difference", "family_low",
                                       "family_high", "equiv_low", "equiv_high", "verdict",
                                       "tables"])  # fmt: skip
