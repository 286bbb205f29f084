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


def _p(p: float) -> str:
    return f"{p:.2g}" if p >= 0.001 else f"{p:.1e}"


def _rating_lines(analysis: Analysis) -> list[str]:
    """The strongest strategy per player count, and its lead as a tested contrast."""
    ratings, pairs = analysis.tables["ratings"], analysis.tables["pairwise"]
    contrasts = pairs[pairs["method"].str.startswith("rating")]
    lines = []
    for players, group in ratings.groupby("players"):
        for _, row in group[group["note"].str.contains("ahead of every")].iterrows():
            lines.append(
                f"At {players} players, **{row['strategy']}** {row['note']} (not a number: "
                "no rating can say by how much)."
            )
        rated = group[group["strength"].notna()]
        if len(rated) < 2:
            continue
        top, second = rated.iloc[0], rated.iloc[1]
        here = contrasts[(contrasts["players"] == players)]
        lead = here[
            (here["strategy"] == top["strategy"]) & (here["opponent"] == second["strategy"])
        ]
        text = (
            f"Strongest strategy at {players} players: **{top['strategy']}** (Plackett-Luce "
            f"strength {top['strength']:+.2f}, 95% CI {top['ci_low']:+.2f} to "
            f"{top['ci_high']:+.2f}; log-odds, 0 = mean of the non-random strategies; "
            f"{int(top['n_tables'])} tables)."
        )
        if not lead.empty:
            c = lead.iloc[0]
            text += (
                f" Its lead over {second['strategy']} is {c['difference']:+.2f} (95% CI "
                f"{c['ci_low']:+.2f} to {c['ci_high']:+.2f}, Holm-adjusted p={_p(c['p_adjusted'])}"
                f" over the {len(here)} pairs at {players} players): "
                + ("significant." if c["significant"] else "**not significant**.")
            )
        lines.append(text)
    return lines


def _pooling_line(analysis: Analysis) -> list[str]:
    pool = analysis.tables["rating_pooling"]
    if pool.empty:
        return []
    row = pool.iloc[0]
    test = (
        f"likelihood-ratio test of strategy x player count, chi-square {row['lr']:.1f}, "
        f"df={int(row['df'])}, p={_p(row['p_value'])}"
    )
    if not row["pooling_justified"]:
        return [
            f"Strength depends on the player count ({test}): read the ratings per player "
            "count; no pooled ranking is given."
        ]
    pooled = analysis.tables["ratings_pooled"].dropna(subset=["strength"])
    top = f"; pooled, the strongest is {pooled.iloc[0]['strategy']}" if len(pooled) else ""
    return [f"One rating fits every player count ({test}){top}."]


def _win_lines(analysis: Analysis) -> list[str]:
    """The best win rate per player count against the non-random field."""
    lines = []
    for players, group in analysis.tables["win_rates"].groupby("players"):
        alone = group[group["note"].str.startswith("the only strategy")]
        if len(alone) == len(group):
            names = ", ".join(alone["strategy"])
            lines.append(
                f"At {players} players every seat is {names}: its win rate is fixed by the "
                "seat count and says nothing about strength."
            )
            continue
        field = group[group["field"].notna()].sort_values("vs_field", ascending=False)
        if field.empty:
            continue
        best = field.iloc[0]
        head = (
            f"At {players} players, {best['strategy']} wins {_pct(best['rate'])} of its games "
            f"({_ci(best)}, n={int(best['n_games'])} games) against {_pct(best['field'])} if "
            "the non-random strategies were equally strong (`random` is left out of the field)"
        )
        if best["note"]:
            lines.append(f"{head}: {best['note']}.")
            continue
        verdict = "above" if best["significant"] else "**not significantly above**"
        lines.append(
            f"{head}: {verdict} it ({100 * best['vs_field']:+.1f} points, Holm-adjusted "
            f"p={_p(best['p_adjusted'])} over the strategies at {players} players)."
        )
    return lines


def strongest(analysis: Analysis) -> list[str]:
    """Per player count first; a pooled ranking only where the pooling test allows it."""
    return _rating_lines(analysis) + _pooling_line(analysis) + _win_lines(analysis)


def seat_order(analysis: Analysis) -> list[str]:
    table, tests = analysis.tables["seat_advantage"], analysis.tables["seat_tests"]
    lines = []
    for _, test in tests.iterrows():
        first = table[(table["players"] == test["players"]) & (table["seat"] == 0)].iloc[0]
        significant = bool(test["wins_significant"])
        score = (
            f"; scores by seat, blocked by game ({test['score_test']}): p={_p(test['score_p'])}"
            if test["score_test"]
            else ""
        )
        lines.append(
            f"Seat order at {int(test['players'])} players: the first seat wins "
            f"{_pct(first['rate'])} ({_ci(first)}, fair {_pct(first['fair'])}, "
            f"n={int(test['n_games'])} games); the difference between seats is "
            + (
                f"significant (chi-square of winning seats, one per game, p={_p(test['wins_p'])})"
                if significant
                else f"**not significant** (chi-square of winning seats, p={_p(test['wins_p'])})"
            )
            + score
            + "."
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
            f"minutes, {steals['mean']:.1f} steals (n={int(turns['n_games'])} games)"
        )
    lines = ["Game length by player count: " + "; ".join(parts) + "."]
    shares = analysis.tables["round_shares"]
    first = shares[shares["round"] == 1]
    for _, row in first.iterrows():
        lines.append(
            f"At {int(row['players'])} players, round 1 brings {_pct(row['mean'])} of the "
            f"destination points reached ({_ci(row)}, "
            f"n={int(row['n_games'])} games), round 2 the rest."
        )
    return lines


VARIANT_HEADLINE_METRICS = ("turns", "mean_score")


def _variant_method(rows) -> str:
    """How a variant was compared, with its n: "paired t on 240 deals (1440 game pairs) at
    2p, ..."."""
    parts = []
    for players, group in rows.groupby("players"):
        first = group.iloc[0]
        paired = first["method"] == "paired t"
        if paired:
            count = f"{int(first['n_deals'])} deals ({int(first['n_pairs'])} game pairs)"
        else:
            count = f"{int(min(first['n_games'], first['n_games_base']))} games each"
        parts.append(f"{count} at {players}p")
    return f"{rows.iloc[0]['method']} on " + ", ".join(parts)


def _unchanged(rows) -> bool:
    """Paired rows whose every difference is exactly 0: the variant changed no game."""
    return bool(
        (rows["method"] == "paired t").all()
        and (rows["difference"] == 0).all()
        and (rows["sd_difference"] == 0).all()
    )


def variants(analysis: Analysis) -> list[str]:
    """Per variant: its significant effects, or that there are none together with the
    smallest differences the study could detect; only at counts where it was played."""
    table = analysis.tables["variants"]
    if table.empty:
        return []
    lines = []
    for variant in sorted(set(table["variant"])):
        rows = table[table["variant"] == variant]
        hits = rows[rows["significant"]]
        how = f"({_variant_method(rows)}, {rows.iloc[0]['correction']} over all variants)"
        if _unchanged(rows):
            lines.append(
                f"Variant {variant}: every game pair played out identically {how}: the "
                "variant changed no game (the simulated strategies never meet the rule it changes)."
            )
            continue
        if hits.empty:
            sizes = [
                f"{r['metric'].replace('_', ' ')} ±{r['detectable']:.2g} at {r['players']}p"
                for _, r in rows[rows["metric"].isin(VARIANT_HEADLINE_METRICS)].iterrows()
                if pd.notna(r["detectable"])
            ]
            could = f"; it could have detected {', '.join(sizes)}" if sizes else ""
            lines.append(
                f"Variant {variant}: no significant difference from the base game {how}{could}."
            )
            continue
        parts = [
            f"{r['metric'].replace('_', ' ')} {r['difference']:+.2f} "
            f"({r['ci_low']:+.2f} to {r['ci_high']:+.2f}) at {r['players']}p"
            for _, r in hits.iterrows()
        ]
        lines.append(f"Variant {variant} {how}: " + "; ".join(parts[:4]) + ".")
    return lines


def headline(analysis: Analysis) -> list[str]:
    lines = strongest(analysis) + seat_order(analysis) + player_counts(analysis)
    lines += cards(analysis) + variants(analysis)
    if analysis.failures:
        lines.append(f"{analysis.failures} game(s) failed (a strategy error) and are left out.")
    return lines
