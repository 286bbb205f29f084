"""Headline findings, computed from the stats frames: plain sentences, each saying whether
the effect is significant."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from . import power
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
                + _lead_power(c)
            )
        lines.append(text)
    return lines


def _lead_power(contrast: pd.Series) -> str:
    """The smallest rating difference its n could detect, from the contrast's own SE."""
    se = power.se_from_ci(contrast["ci_low"], contrast["ci_high"])
    return (
        f" The {int(contrast['n_games']):,} games at this player count detect a difference of "
        f"{power.mde_from_se(se):.2f} log-odds or more at 80% power (5% level, two-sided)."
    )


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
        mde = power.mde_rate(float(best["field"]), int(best["n_games"]))
        lines.append(
            f"{head}: {verdict} it ({100 * best['vs_field']:+.1f} percentage points, Holm-adjusted "
            f"p={_p(best['p_adjusted'])} over the strategies at {players} players; "
            f"{int(best['n_games']):,} games detect {100 * mde:.1f} percentage points or more "
            "at 80% power)."
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
            + f"; {int(test['n_games']):,} games detect a first-seat edge of "
            f"{100 * power.mde_rate(float(first['fair']), int(test['n_games'])):.1f} percentage "
            "points or more at 80% power."
        )
    return lines


def _players_word(players: int) -> str:
    return f"{int(players)} players"


PRACTICAL_FACTOR = 10  # needing 10 times the games run: the gap seen is too small to matter


def _rating_size(analysis: Analysis) -> list[str]:
    """The leading pair not separated and the MDE above the gap seen: games needed."""
    lines = []
    pairs = analysis.tables["pairwise"]
    contrasts = pairs[pairs["method"].str.startswith("rating")] if len(pairs) else pairs
    ratings = analysis.tables["ratings"].dropna(subset=["strength"])
    for players, group in ratings.groupby("players"):
        if len(group) < 2:
            continue
        top, second = group.iloc[0], group.iloc[1]
        lead = contrasts[
            (contrasts["players"] == players)
            & (contrasts["strategy"] == top["strategy"])
            & (contrasts["opponent"] == second["strategy"])
        ]
        if lead.empty or bool(lead.iloc[0]["significant"]):
            continue
        c = lead.iloc[0]
        se = power.se_from_ci(c["ci_low"], c["ci_high"])
        mde, n = power.mde_from_se(se), int(c["n_games"])
        if not mde > abs(c["difference"]):
            continue  # powered for the gap seen (or no SE), yet not separated after correction
        needed = power.n_for_difference(se, n, c["difference"])
        if needed is None:
            continue
        label = (
            "the top two are not separated, and the gap seen is too small to chase"
            if needed > PRACTICAL_FACTOR * n
            else "too small a study to rank the top two"
        )
        lines.append(
            f"**At {_players_word(players)}, {label}:** {top['strategy']} and "
            f"{second['strategy']} are not separated and the gap seen ({c['difference']:.2f} "
            f"log-odds, 95% CI {c['ci_low']:+.2f} to {c['ci_high']:+.2f}) is below the "
            f"{mde:.2f} that {n:,} games can detect. About {needed:,} games at "
            f"{players} players (with the same line-ups) would detect a gap of that size at "
            "80% power (5% level, two-sided; before the Holm correction over the pairs)."
        )
    return lines


def _seat_size(analysis: Analysis) -> list[str]:
    """For a study of one strategy: is the first seat's edge measured well enough?"""
    table, tests = analysis.tables["seat_advantage"], analysis.tables["seat_tests"]
    lines = []
    for _, test in tests.iterrows():
        first = table[(table["players"] == test["players"]) & (table["seat"] == 0)].iloc[0]
        n, fair, rate = int(test["n_games"]), float(first["fair"]), float(first["rate"])
        mde = power.mde_rate(fair, n)
        if bool(test["wins_significant"]) or not mde > abs(rate - fair):
            continue
        needed = power.games_for_rate(fair, rate)
        bound = 100 * max(fair - first["ci_low"], first["ci_high"] - fair)
        need = (
            f"About {needed:,} games would detect a first-seat edge of that size at 80% power."
            if needed
            else "No edge was seen at all."
        )
        negligible = needed is None or needed > PRACTICAL_FACTOR * n
        label = "no first-seat edge of practical size" if negligible else "too few games"
        lines.append(
            f"**Seat order at {_players_word(test['players'])}, {label}:** the first seat's "
            f"win rate is {100 * (rate - fair):+.1f} percentage points from its fair share, below "
            f"the {100 * mde:.1f} that {n:,} games can detect; its 95% interval rules out an "
            f"edge of more than {bound:.1f} percentage points either way. {need}"
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


@dataclass
class _Group:
    key: str
    lines: list[str]


def headline(analysis: Analysis) -> list[str]:
    """The findings that answer the study's question first (study_kinds.QUESTIONS)."""
    from .study_kinds import order_sections, study_info

    groups = {
        "strongest": strongest(analysis) + _rating_size(analysis),
        "seats": seat_order(analysis) + _seat_size(analysis),
        "players": player_counts(analysis),
        "destinations": cards(analysis),
        "variants": variants(analysis),
        "designers": designers_ask(analysis),
    }
    info = study_info(analysis.results.study, analysis.seats)
    ordered = order_sections([_Group(k, v) for k, v in groups.items()], info.order)
    lines = [line for group in ordered for line in group.lines]
    if analysis.failures:
        lines.append(f"{analysis.failures} game(s) failed (a strategy error) and are left out.")
    return lines


# ------------------------------------------------------------------ what designers ask
def players_know(analysis: Analysis) -> str:
    """The designer section's reminder of what the players know (R9), and any memory
    settings of the study (``study_kinds.knowledge_sentence`` is the full statement)."""
    strategies = analysis.results.study.get("strategies", {}) or {}
    memory = sorted(
        f"{label} ({', '.join(f'{k}={v}' for k, v in spec.get('knobs', {}).items())})"
        for label, spec in strategies.items()
        if any("memory" in k or "recall" in k for k in spec.get("knobs", {}))
    )
    base = (  # the full statement, with the rulebook's words, opens the report
        "The simulated players have perfect recall of their own circulation pile (R9; see "
        "what the simulated players know, at the top). "
    )
    if memory:
        return (
            "The simulated players have perfect recall of their own circulation pile (R9) "
            "unless their knobs give them a human-like memory (see what the simulated players "
            "know, at the top). Memory settings in this study: " + "; ".join(memory) + "."
        )
    return base + (
        "No strategy in this study has a memory setting: completion rates, margins and the "
        "meta-game are those of players with perfect memory."
    )


def first_seat_equals(analysis: Analysis) -> list[str]:
    """The first seat's advantage at mirror tables, per player count, or that there are none."""
    table = analysis.tables.get("first_seat", pd.DataFrame())
    rows = table[table["n_games"] > 0] if not table.empty else table
    if rows.empty:
        return [
            "First-seat advantage among equal players: this study has no table where every "
            "seat holds the same non-random strategy, so it cannot say (the seat-order "
            "figures mix unequal strategies; the player-counts study answers this)."
        ]
    parts = []
    for _, r in rows.iterrows():
        verdict = "significant" if r["significant"] else "**not significant**"
        parts.append(
            f"at {int(r['players'])} players ({r['strategy']} at every seat) seat 1 wins "
            f"{_pct(r['rate'])} against a fair {_pct(r['fair'])}: "
            f"{100 * r['advantage']:+.1f} percentage points (95% CI "
            f"{100 * r['adv_ci_low']:+.1f} to {100 * r['adv_ci_high']:+.1f}, t-test over "
            f"{int(r['n_games'])} games, p={_p(r['p_value'])}, {verdict}; detectable with 80% "
            f"power: {100 * r['mde']:.1f} percentage points)"
        )
    return ["First-seat advantage among equal players: " + "; ".join(parts) + "."]


def margins(analysis: Analysis) -> list[str]:
    """Typical winning margin and how often R22's tie-break decides, per player count."""
    table = analysis.tables.get("score_margins", pd.DataFrame())
    if table.empty:
        return []
    parts = [
        f"{int(r['players'])} players: median {r['median_margin']:g} points (95% CI "
        f"{r['median_ci_low']:g}-{r['median_ci_high']:g}), mean {r['mean_margin']:.1f} "
        f"({r['ci_low']:.1f}-{r['ci_high']:.1f}); top score tied in {_pct(r['tie_rate'])} "
        f"of games (Wilson {_pct(r['tie_ci_low'])}-{_pct(r['tie_ci_high'])}, "
        f"{int(r['tied_top'])} of {int(r['n_games'])}: {int(r['by_reached'])} decided by "
        f"destinations reached, {int(r['by_big_cities'])} by big cities, "
        f"{int(r['shared'])} shared)"
        for _, r in table.iterrows()
    ]
    return [
        "Winner's margin over the runner-up, one per game, and how often R22's tie-break "
        "decides: " + "; ".join(parts) + "."
    ]


def meta_game_line(analysis: Analysis) -> list[str]:
    """The equilibrium mix of the 2-player meta-game with its bootstrap uncertainty, and the
    non-transitivity check."""
    lines = []
    table = analysis.tables.get("meta_game", pd.DataFrame())
    if not table.empty:
        shown = table[(table["weight"] > 0.005) | (table["share_positive"] >= 0.1)]
        parts = [
            f"{r['strategy']} {_pct(r['weight'])} (bootstrap mean {_pct(r['boot_mean'])}, "
            f"95% {_pct(r['ci_low'])}-{_pct(r['ci_high'])}, positive in "
            f"{_pct(r['share_positive'])} of draws)"
            for _, r in shown.iterrows()
        ]
        rest = ", ".join(table.loc[~table.index.isin(shown.index), "strategy"])
        lines.append(
            "Equilibrium mix of the 2-player meta-game (Nash of P(A ahead of B) - 0.5, linear "
            f"programming; {int(table['draws'].iloc[0])} game-level bootstrap draws): "
            + "; ".join(parts)
            + (f"; positive in under 10% of draws: {rest}" if rest else "")
            + "."
        )
    cycles = analysis.tables.get("non_transitivity", pd.DataFrame())
    if not cycles.empty:
        parts = [
            f"{int(r['players'])} players: {r['cycles']} ({int(r['n_links_significant'])} of "
            f"{int(r['n_pairs'])} pairs significant)"
            for _, r in cycles.iterrows()
        ]
        lines.append(
            "Non-transitivity (cycles A>B>C>A of the head-to-head, every link significant, "
            "Holm over the pairs of a player count): " + "; ".join(parts) + "."
        )
    return lines


def designers_ask(analysis: Analysis) -> list[str]:
    """The findings of the 'What designers ask' section."""
    return first_seat_equals(analysis) + margins(analysis) + meta_game_line(analysis)
