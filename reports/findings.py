"""Headline findings, computed from the stats frames: plain sentences, each saying whether
the effect is significant."""

from __future__ import annotations

import pandas as pd

from cardgame import default_catalogue

from .analysis import Analysis


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci(row: pd.Series) -> str:
    """A row's 95% interval as percentages."""
    return f"CI {_pct(row['ci_low'])}-{_pct(row['ci_high'])}"


def strongest(analysis: Analysis) -> list[str]:
    ratings = analysis.tables["ratings"]
    lines = []
    if len(ratings) >= 2:
        top, second = ratings.iloc[0], ratings.iloc[1]
        clear = top["ci_low"] > second["ci_high"]
        lines.append(
            f"Strongest strategy: **{top['strategy']}** (Plackett-Luce strength "
            f"{top['strength']:.2f}, 95% CI {top['ci_low']:.2f} to {top['ci_high']:.2f}, "
            f"{int(top['games'])} tables). Its lead over {second['strategy']} "
            f"({second['strength']:.2f}) is "
            + (
                "significant: the intervals do not overlap."
                if clear
                else "**not significant**: the intervals overlap."
            )
        )
    wins = analysis.tables["win_rates"]
    for players, group in wins.groupby("players"):
        best = group.sort_values("rate", ascending=False).iloc[0]
        verdict = "above" if best["ci_low"] > best["fair"] else "not significantly above"
        lines.append(
            f"At {players} players, {best['strategy']} wins {_pct(best['rate'])} "
            f"({_ci(best)}, n={int(best['n'])}), "
            f"{verdict} the fair share of {_pct(best['fair'])}."
        )
    return lines


def seat_order(analysis: Analysis) -> list[str]:
    table, tests = analysis.tables["seat_advantage"], analysis.tables["seat_tests"]
    lines = []
    for _, test in tests.iterrows():
        first = table[(table["players"] == test["players"]) & (table["seat"] == 0)].iloc[0]
        significant = bool(test["wins_significant"])
        lines.append(
            f"Seat order at {int(test['players'])} players: the first seat wins "
            f"{_pct(first['rate'])} ({_ci(first)}, "
            f"fair {_pct(first['fair'])}); the difference between seats is "
            + (
                f"significant (chi-square p={test['wins_p']:.3g})."
                if significant
                else f"**not significant** (chi-square p={test['wins_p']:.2g})."
            )
        )
    return lines


def cards(analysis: Analysis) -> list[str]:
    table = analysis.tables["destinations"]
    flagged = table[table["flag"] != ""].copy()
    if flagged.empty:
        return [
            "No destination card is out of line with the points-per-card trend at this "
            "sample size (no card passes |z| > 3 with a gap of at least 2 points)."
        ]
    flagged["size"] = flagged["residual_z"].abs()
    catalogue = default_catalogue()
    lines = []
    for _, row in flagged.sort_values("size", ascending=False).head(3).iterrows():
        dest = catalogue.destination(int(row["destination_id"]))
        lines.append(
            f"Card #{dest.id} {dest.city_a} - {dest.city_b} ({dest.points} points, "
            f"{len(dest.colours)} trains) is {row['flag']}: {row['net_mean']:+.1f} net points "
            f"when kept against a trend of {row['trend']:+.1f} (z={row['residual_z']:+.1f}, "
            f"kept {int(row['kept'])} times)."
        )
    if len(flagged) > 3:
        lines.append(f"{len(flagged) - 3} more cards are flagged in the destinations table.")
    return lines


def player_counts(analysis: Analysis) -> list[str]:
    length = analysis.tables["game_length"]
    if length.empty:
        return []
    by = {(r["players"], r["metric"]): r for _, r in length.iterrows()}
    parts = []
    for players in sorted(length["players"].unique()):
        turns, minutes = by[(players, "turns")], by[(players, "sim_minutes")]
        steals = by[(players, "steals")]
        parts.append(
            f"{players} players: {turns['mean']:.0f} turns, {minutes['mean']:.0f} simulated "
            f"minutes, {steals['mean']:.1f} steals (n={int(turns['n'])})"
        )
    lines = ["Game length by player count: " + "; ".join(parts) + "."]
    shares = analysis.tables["round_shares"]
    first = shares[shares["round"] == 1]
    for _, row in first.iterrows():
        lines.append(
            f"At {int(row['players'])} players, round 1 brings {_pct(row['mean'])} of the "
            f"destination points reached ({_ci(row)}, "
            f"n={int(row['n'])} games), round 2 the rest."
        )
    return lines


def variants(analysis: Analysis) -> list[str]:
    table = analysis.tables["variants"]
    if table.empty:
        return []
    significant = table[table["significant"]]
    lines = []
    for variant in sorted(set(table["variant"])):
        hits = significant[significant["variant"] == variant]
        if hits.empty:
            lines.append(f"Variant {variant}: no significant difference from the base game.")
            continue
        parts = [
            f"{r['metric'].replace('_', ' ')} {r['difference']:+.2f} at {r['players']}p"
            for _, r in hits.iterrows()
        ]
        lines.append(f"Variant {variant}: " + "; ".join(parts[:4]) + ".")
    return lines


def headline(analysis: Analysis) -> list[str]:
    lines = strongest(analysis) + seat_order(analysis) + player_counts(analysis)
    lines += cards(analysis) + variants(analysis)
    if analysis.failures:
        lines.append(f"{analysis.failures} game(s) failed (a strategy error) and are left out.")
    return lines
