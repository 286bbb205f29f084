"""What each rule variant's edits touched: an edited ticket, an edited big-city bonus, an
edited seat lever, each measured on the thing it changes, against the base game.

A variant that edits ticket #4 may leave the game's headline metrics (turns, score, seat 0's
share) unchanged while the ticket itself is kept far more often: the variant is reported on
what it edits, as a sweep of the same number is (reports/sweeps.py). Per variant, player count
and edited thing:

* a ticket (``destinations = { 4 = { points = 8 } }``): its keep rate when offered, its
  completion when kept, the net points it earns per game (0 in a game where nobody holds
  it), and its holders' win share (the mean win share of the seats that kept it);
* a big-city bonus (``big_cities = { Chicago = 20 }``): how often the bonus is won, its
  holders' win share, and how often each strategy wins it (in games where it is seated);
* a seat lever (``seat_extra_cards``, ``seat_extra_locomotives``): each seat's win share.

Each metric is averaged over the games of a deal (players, seed) in each rule set; in a
paired study (variant game i replays base game i) the difference is taken deal by deal over
the deals where both rule sets define it, with a Student t interval over deals ("paired t");
otherwise the two samples of deals are independent (Welch, "Welch t"). Each metric is one
family over every variant, edited thing and player count of the study: its intervals are
simultaneous (Bonferroni, level 1 - 0.05/``family``), and the verdict is read off that
interval against the metric's practical margin (``interval_verdict``), as for sweeps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from .destinations import card_label
from .level import current_alpha
from .margins import DEFAULT_MARGINS, interval_verdict

if TYPE_CHECKING:
    from sims.plan import Plan
    from sims.results import Results

KEYS = ["variant", "players", "cell", "seed", "game_index"]  # a game
SEAT_LEVERS = ("seat_extra_cards", "seat_extra_locomotives")
# metric -> (the words a table uses, {who} the strategy or seat; the words a summary cell
# uses; scale to points; the practical margin's name), in the order a report lists them
METRICS: dict[str, tuple[str, str, float, str]] = {
    "keep_rate": ("kept when offered", "kept", 100, "win_share"),
    "completion": ("completed when kept", "done", 100, "win_share"),
    "points_per_game": ("net points per game", "net", 1, "points_per_game"),
    "holder_win_share": ("holders' win share", "holders win", 100, "win_share"),
    "award_rate": ("bonus won", "won", 100, "win_share"),
    "won_by": ("won by {who}", "won by", 100, "win_share"),
    "seat_win_share": ("{who}'s win share", "win", 100, "win_share"),
}
COLUMNS = """
    variant players kind item edit metric who method deals base value difference family_low
    family_high family margin verdict
""".split()


# ------------------------------------------------------------------ what was edited
def edited(plan: Plan) -> pd.DataFrame:
    """Every edit of an ordinary variant (sweeps are left to their section) against base:
    one row per (variant, kind, item) with ``kind`` ticket, city or seat lever, ``item`` the
    ticket's id, the city or the lever, and ``edit`` in a designer's words."""
    rows: list[dict[str, Any]] = []
    base = plan.variants.get("base")
    if base is None:
        return pd.DataFrame(rows, columns=["variant", "kind", "item", "edit"])
    tickets, cities = dict(base.edits.destinations), dict(base.edits.big_cities)
    for name, variant in plan.variants.items():
        if name == "base" or variant.sweep is not None:
            continue
        for card, points in variant.edits.destinations:
            if tickets.get(card) != points:
                rows.append({"variant": name, "kind": "ticket", "item": card,
                             "edit": f"#{card} points {points}"})  # fmt: skip
        for city, bonus in variant.edits.big_cities:
            if cities.get(city) != bonus:
                before = cities.get(city, _printed_bonus(city))
                rows.append({"variant": name, "kind": "city", "item": city,
                             "edit": f"{city} bonus {before} -> {bonus}"})  # fmt: skip
        mine, theirs = variant.rules.to_dict(), base.rules.to_dict()
        for lever in SEAT_LEVERS:
            if mine.get(lever) != theirs.get(lever):
                shown = "/".join(map(str, mine[lever])), "/".join(map(str, theirs[lever]))
                rows.append({"variant": name, "kind": "seat", "item": lever,
                             "edit": f"{lever} {shown[1] or 'none'} -> {shown[0]}"})  # fmt: skip
    return pd.DataFrame(rows, columns=["variant", "kind", "item", "edit"])


def _printed_bonus(city: str) -> int | str:
    from cardgame import default_catalogue

    bonus = {b.city: b.points for b in default_catalogue().big_cities}
    return bonus.get(city, "printed")


# ------------------------------------------------------------------ per-deal values
def _finished(games: pd.DataFrame) -> pd.DataFrame:
    return games.loc[~games["failed"], KEYS]


def _deal_mean(frame: pd.DataFrame, column: str, extra: tuple[str, ...] = ()) -> pd.DataFrame:
    """``column`` averaged over the rows of each deal (players, seed) in each variant."""
    keys = ["variant", "players", "seed", *extra]
    return frame.groupby(keys, observed=True)[column].mean().rename("value").reset_index()


def ticket_values(
    destinations: pd.DataFrame, games: pd.DataFrame, seats: pd.DataFrame, card: int
) -> dict[str, pd.DataFrame]:
    """Per deal and variant: the ticket's keep rate (over its offers), completion (over the
    times it was kept), net points per game (over every finished game) and its holders' win
    share (over the seats that kept it)."""
    done = _finished(games)
    rows = destinations[destinations["destination_id"] == card].merge(done, on=KEYS)
    kept = rows[rows["kept"]].merge(seats[[*KEYS, "seat", "win_share"]], on=[*KEYS, "seat"])
    net = rows.groupby(KEYS, observed=True)["net_points"].sum()
    per_game = done.set_index(KEYS).join(net).fillna({"net_points": 0.0}).reset_index()
    return {
        "keep_rate": _deal_mean(rows.assign(x=rows["kept"].astype(float)), "x"),
        "completion": _deal_mean(kept.assign(x=kept["reached"].astype(float)), "x"),
        "points_per_game": _deal_mean(per_game.assign(x=per_game["net_points"].astype(float)), "x"),
        "holder_win_share": _deal_mean(kept, "win_share"),
    }


def city_values(games: pd.DataFrame, seats: pd.DataFrame, city: str) -> dict[str, pd.DataFrame]:
    """Per deal and variant: how often the city's bonus is won, its holders' win share, and
    how often a seat of each strategy wins it (games where the strategy is seated)."""
    s = seats.merge(_finished(games), on=KEYS)
    texts = s["big_cities"].fillna("").astype(str)
    s = s.assign(holds=texts.str.split("|").map(lambda won: city in won).astype(float))
    per_game = s.groupby(KEYS, observed=True)["holds"].max().rename("x").reset_index()
    by = s.groupby([*KEYS, "strategy"], observed=True)["holds"].max().rename("x").reset_index()
    return {
        "award_rate": _deal_mean(per_game, "x"),
        "holder_win_share": _deal_mean(s[s["holds"] > 0], "win_share"),
        "won_by": _deal_mean(by.rename(columns={"strategy": "who"}), "x", ("who",)),
    }


def seat_values(games: pd.DataFrame, seats: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per deal and variant: each seat's win share."""
    s = seats.merge(_finished(games), on=KEYS)
    s = s.assign(who=s["seat"].map(lambda k: f"seat {k}"))
    return {"seat_win_share": _deal_mean(s, "win_share", ("who",))}


# ------------------------------------------------------------------ comparisons
def compare(values: pd.DataFrame, variant: str, base: str = "base") -> list[dict[str, Any]]:
    """Per player count (and ``who``): the variant's and base's levels and the variant minus
    base, paired by deal where the two share deals, else over independent deals; with the
    pieces of an interval at any level (``estimate``, ``se``, ``df``)."""
    extra = ["who"] if "who" in values else []
    keys = ["players", "seed", *extra]
    mine = values[values["variant"] == variant].set_index(keys)["value"]
    theirs = values[values["variant"] == base].set_index(keys)["value"]
    out = []
    for group in sorted(set(mine.index.droplevel("seed")) & set(theirs.index.droplevel("seed"))):
        group = group if isinstance(group, tuple) else (group,)
        here = mine.xs(group, level=["players", *extra]) if extra else mine.xs(group[0])
        there = theirs.xs(group, level=["players", *extra]) if extra else theirs.xs(group[0])
        shared = here.index.intersection(there.index)
        if len(shared) >= 2:  # a paired study: the same deals in both rule sets
            diff = (here[shared] - there[shared]).to_numpy(float)
            estimate, df = float(diff.mean()), len(diff) - 1.0
            se = float(diff.std(ddof=1) / np.sqrt(len(diff)))
            method, deals = "paired t", len(diff)
            level, level_base = float(here[shared].mean()), float(there[shared].mean())
        else:
            a, b = here.to_numpy(float), there.to_numpy(float)
            if len(a) < 2 or len(b) < 2:
                continue
            va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
            estimate, se = float(a.mean() - b.mean()), float(np.sqrt(va + vb))
            df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)) if se else 1.0
            method, deals = "Welch t", len(a)
            level, level_base = float(a.mean()), float(b.mean())
        out.append({
            "players": int(group[0]), "who": group[1] if extra else "", "method": method,
            "deals": deals, "base": level_base, "value": level, "difference": estimate,
            "se": se, "df": df,
        })  # fmt: skip
    return out


def edit_effects(
    plan: Plan,
    games: pd.DataFrame,
    seats: pd.DataFrame,
    destinations: pd.DataFrame,
    margins: dict[str, float] | None = None,
    base: str = "base",
) -> pd.DataFrame:
    """One row per (variant, player count, edited thing, metric, who): the base and variant
    levels, the difference with its simultaneous interval (``family``), the margin and the
    verdict. ``destinations`` needs the edited tickets' rows only. Empty when no ordinary
    variant edits a ticket, a bonus or a seat lever."""
    margins = {**DEFAULT_MARGINS, **(margins or {})}
    edits = edited(plan)
    rows = []
    seat_cache: dict[str, pd.DataFrame] | None = None
    for edit in edits.itertuples():
        if edit.kind == "ticket":
            frames = ticket_values(destinations, games, seats, int(edit.item))
            item = card_label(int(edit.item))
            text = edit.edit
            before = _printed_points(destinations, int(edit.item), base)
            if before is not None:
                text = f"#{edit.item} points {before} -> {edit.edit.rsplit(' ', 1)[1]}"
        elif edit.kind == "city":
            frames, item, text = (
                city_values(games, seats, str(edit.item)),
                str(edit.item),
                edit.edit,
            )
        else:
            seat_cache = seat_cache or seat_values(games, seats)
            frames, item, text = seat_cache, str(edit.item), edit.edit
        for metric, values in frames.items():
            for row in compare(values, edit.variant, base):
                rows.append({"variant": edit.variant, "kind": edit.kind, "item": item,
                             "edit": text, "metric": metric, **row})  # fmt: skip
    table = pd.DataFrame(rows)
    if table.empty:
        return pd.DataFrame(columns=COLUMNS)
    table["family"] = table.groupby("metric")["metric"].transform("size")
    quantile = sps.t.ppf(1 - current_alpha() / (2 * table["family"]), table["df"].clip(lower=1.0))
    half = np.where(table["se"] > 0, quantile * table["se"], 0.0)
    table["family_low"] = table["difference"] - half
    table["family_high"] = table["difference"] + half
    table["margin"] = [float(margins[METRICS[m][3]]) for m in table["metric"]]
    table["verdict"] = [
        interval_verdict(lo, hi, m)
        for lo, hi, m in zip(
            table["family_low"], table["family_high"], table["margin"], strict=True
        )
    ]
    table["metric"] = pd.Categorical(table["metric"], list(METRICS), ordered=True)
    table = table.sort_values(["variant", "players", "kind", "item", "metric", "who"])
    return table.assign(metric=table["metric"].astype(str))[COLUMNS].reset_index(drop=True)


def _printed_points(destinations: pd.DataFrame, card: int, base: str) -> int | None:
    """The ticket's points in the base game, as its rows recorded them."""
    mine = destinations[
        (destinations["destination_id"] == card) & (destinations["variant"] == base)
    ]
    return int(mine["points"].mode().iloc[0]) if len(mine) else None


def edit_effects_of(results: Results, margins: dict[str, float] | None = None) -> pd.DataFrame:
    """``edit_effects`` of a results folder, reading only the edited tickets' rows."""
    edits = edited(results.plan)
    if edits.empty:
        return pd.DataFrame(columns=COLUMNS)
    cards = {int(i) for i in edits.loc[edits["kind"] == "ticket", "item"]}
    return edit_effects(
        results.plan, results.games, results.seats, results.destination_rows(cards), margins
    )


def touched_sentence(table: pd.DataFrame, variant: str) -> str:
    """What one variant's edits did to what they edit, in a sentence as strong as its
    intervals: per edited thing and player count, each metric's base and variant levels, and
    for a settled change its simultaneous interval."""
    rows = table[table["variant"] == variant]
    parts = []
    for item, mine in rows.groupby("item", sort=False):
        counts = []
        for players, at in mine.groupby("players", sort=True):
            said = []
            for row in at.itertuples():
                words, _, scale, _ = METRICS[row.metric]
                label = words.format(who=row.who)
                if scale == 100:
                    level = f"{100 * row.base:.0f}% -> {100 * row.value:.0f}%"
                else:
                    level = f"{row.base:.2f} -> {row.value:.2f}"
                if row.verdict == "different":
                    pts = " points" if scale == 100 else ""
                    said.append(
                        f"{label} {level} (**{row.difference * scale:+.1f}{pts}**, "
                        f"{row.family_low * scale:+.1f} to {row.family_high * scale:+.1f})"
                    )
                else:
                    said.append(f"{label} {level} ({row.verdict})")
            counts.append(f"at {int(players)} players " + ", ".join(said))
        thing = item if item.startswith("#") else "the seats" if item in SEAT_LEVERS else item
        parts.append(f"{thing}: " + "; ".join(counts))
    edits = ", ".join(dict.fromkeys(rows["edit"]))
    method = "on the same deals" if (rows["method"] == "paired t").all() else "over deals"
    return f"Variant {variant} ({edits}) against base {method}: " + ". ".join(parts) + "."
