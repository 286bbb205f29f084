"""Headline findings, computed from the stats frames: plain sentences, each saying whether
the effect is significant."""

from __future__ import annotations

import pandas as pd

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


def _card_line(row: pd.Series) -> str:
    """One flagged card: what it earns, what its class earns, the fix."""
    fixes = []
    if not pd.isna(row["plays_like_points"]):
        points = int(row["plays_like_points"])
        fixes.append(f"it earns what a typical {points}-point card of its trains earns")
    if not pd.isna(row["suggested_points"]):
        fixes.append(
            f"at {int(row['suggested_points'])} printed points it would pay what its class "
            "pays (if completed as often as now)"
        )
    elif row["excess"] < 0:
        fixes.append("no printed value makes it pay: it is completed too rarely")
    fix = (" " + "; ".join(fixes).capitalize() + ".") if fixes else ""
    return (
        f"At {_players(row['players'])}, card {row['label']} ({int(row['points'])} points, "
        f"{int(row['cards'])} trains) is {row['flag']}: {row['net_mean']:+.1f} net points when "
        f"kept (95% CI {row['net_ci_low']:+.1f} to {row['net_ci_high']:+.1f}; kept "
        f"{int(row['kept'])} times in {int(row['kept_games'])} games), completed "
        f"{_pct(row['completion'])}, against {row['expected']:+.1f} and "
        f"{_pct(row['expected_completion'])} for cards of its points and trains "
        f"(Holm-adjusted p={row['p_holm']:.2g}).{fix}"
    )


def _players(players: int) -> str:
    return f"{int(players)} players" if players else "all player counts"


def cards(analysis: Analysis) -> list[str]:
    """Per player count: the flagged cards (or that none is), then the dominated cards."""
    table = analysis.tables["destinations"]
    lines = []
    for players, group in table.groupby("players", sort=True):
        tested = group[group["tested"]]
        if len(tested) < 5:
            lines.append(
                f"At {_players(players)}, too few cards were kept 20 times or more "
                f"({len(tested)} of {len(group)}) to judge the destination cards."
            )
            continue
        flagged = group[group["flag"] != ""].sort_values("p_holm")
        for _, row in flagged.head(3).iterrows():
            lines.append(_card_line(row))
        if len(flagged) > 3:
            lines.append(
                f"At {_players(players)}, {len(flagged) - 3} more cards are flagged in the "
                "destinations table."
            )
        if flagged.empty:
            lines.append(
                f"At {_players(players)}, no destination card is out of line with cards of "
                f"its printed points and trains beyond the card-to-card spread "
                f"({len(tested)} cards tested; Holm 5% over every card and player count; "
                f"spread tau={tested['tau'].iloc[0]:.2f} on the logit of completion)."
            )
    tested = table[table["tested"] & (table["flag"] == "")]
    if not tested.empty:
        near = tested.loc[tested["p"].idxmin()]
        lines.append(
            f"Closest to a flag: {near['label']} at {_players(near['players'])}, "
            f"{near['excess']:+.1f} net points against its class (raw p={near['p']:.2g}, "
            f"Holm-adjusted {near['p_holm']:.2g})."
        )
    beaten = table.drop_duplicates("destination_id")
    beaten = beaten[beaten["dominated_by"] != ""]
    if not beaten.empty:
        pairs = "; ".join(f"{r['label']} by {r['dominated_by']}" for _, r in beaten.iterrows())
        lines.append(
            f"Dominated on paper ({len(beaten)} cards; another card needs a subset of their "
            f"trains for at least their points): {pairs}."
        )
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
