"""The findings in full, computed from the stats frames: plain sentences, each as strong as
its test. A comparison is said to be *different*, *practically equal* (within its practical
margin, by the equivalence test) or *not yet known* (reports/margins.py); a test that does not
reject is worded "no evidence that ... (p = ...)", never as a fact; every correction names its
family. The summary at the top of the report (reports/answers.py) is the short form."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .analysis import Analysis
from .edit_effects import touched_sentence
from .margins import DIFFERENT, EQUAL
from .numbers import p_text


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci(row: pd.Series) -> str:
    """A row's 95% interval as percentages."""
    return f"CI {_pct(row['ci_low'])}-{_pct(row['ci_high'])}"


def _p(p: float) -> str:
    """A p-value as a reader wants it: two figures, or below 0.001 (no 0.0e+00: a p-value
    too small to print is no more informative than "below 0.001")."""
    return p_text(p)


def _count(value: float, unit: str) -> str:
    return f"{int(value):,} {unit}" if np.isfinite(value) else f"more {unit}"


@dataclass(frozen=True)
class Scale:
    """How a comparison's numbers read: multiplier, decimals and unit words."""

    factor: float
    digits: int
    unit: str

    def of(self, x: float, sign: bool = True) -> str:
        return f"{x * self.factor:{'+' if sign else ''}.{self.digits}f}"


POINTS = Scale(100, 1, " percentage points")  # win shares
LOG_ODDS = Scale(1, 2, " log-odds")
SCORE = Scale(1, 1, " points")
TURNS = Scale(1, 1, " turns")
PLAIN = Scale(1, 2, "")


def judged(row: pd.Series, scale: Scale, units: str = "games") -> str:
    """A comparison's verdict with the interval it is read off (reports/margins.py): for
    *different* the family interval (95%, Bonferroni over the family) that excludes 0; for
    *practically equal* the equivalence interval (TOST at 5%, Bonferroni) inside the margin;
    for *not yet known* the family interval and the sample needed to decide at the margin
    (80% power at 0.05 / family size)."""
    d = scale.of(row["difference"]) + scale.unit
    m = int(row["family_size"]) if np.isfinite(row.get("family_size", np.nan)) else 1
    over = f"Bonferroni over {m} comparisons" if m > 1 else "a single comparison"
    if row.get("family"):
        over += f": {row['family']}"
    interval = f"{scale.of(row['family_low'])} to {scale.of(row['family_high'])}"
    margin = f"±{scale.of(row['margin'], sign=False)}{scale.unit}"
    if row["verdict"] == DIFFERENT:
        return f"**different**: {d} (95% interval {interval}, {over}; {_p(row['p_adjusted'])})"
    if row["verdict"] == EQUAL:
        low, high = row.get("family_low", np.nan), row.get("family_high", np.nan)
        surely = ", though surely not zero" if low > 0 or high < 0 else ""
        return (
            f"**practically equal**{surely}: {d}; its equivalence interval "
            f"{scale.of(row['equiv_low'])} to {scale.of(row['equiv_high'])} lies within {margin} "
            f"(TOST at 5%, {over}; {_p(row['p_equivalence_adjusted'])})"
        )
    need = row.get("needed", np.nan)
    more = (
        f"; about {_count(need, units)} would decide at {margin} (80% power, level 0.05/{m})"
        if np.isfinite(need)
        else ""
    )
    return (
        f"**not yet known**: {d} (95% interval {interval}, {over}): no evidence of a "
        f"difference ({_p(row['p_adjusted'])}), nor that it lies within {margin}{more}"
    )


# ------------------------------------------------------------------ strategies
def _contrast(pairs: pd.DataFrame, players, a: str, b: str) -> pd.Series | None:
    from .ratings import RATING_METHOD

    here = pairs[
        (pairs["players"] == players)
        & (pairs["method"] == RATING_METHOD)
        & (pairs["strategy"] == a)
        & (pairs["opponent"] == b)
    ]
    return here.iloc[0] if len(here) else None


def _swap_contrast(analysis: Analysis, players, a: str, b: str) -> pd.Series | None:
    """The win-share line-up swap of ``a`` against ``b`` (a's share minus b's)."""
    from .ratings import swap_contrasts

    swaps = swap_contrasts(analysis.tables.get("lineup_swaps"))
    here = swaps[(swaps["players"] == players) & (swaps["strategy"] == a)]
    here = here[here["opponent"] == b]
    return here.iloc[0] if len(here) else None


def _h2h_record(analysis: Analysis, players, strategy: str) -> str:
    """The head-to-head record of a strategy that no rating can size."""
    h2h = analysis.tables["head_to_head"]
    here = h2h[(h2h["players"] == players) & (h2h["strategy"] == strategy)]
    if here.empty:
        return ""
    worst = here.sort_values("rate").iloc[0]
    return (
        f" (head-to-head: ahead of {worst['opponent']} in {_pct(worst['rate'])} of "
        f"{int(worst['n_games'])} games, {_p(worst['p_adjusted'])}, Holm over the pairs "
        f"at {players} players)"
    )


def strongest_lines(analysis: Analysis) -> list[str]:
    """Per player count: the strongest strategy only when separated from every other, else
    the strategies tied at the top, each with the contrast that decided it."""
    from .ratings import SWAP_BASIS as swap_basis

    lines = []
    leaders = analysis.tables.get("leaders", pd.DataFrame())
    pairs = analysis.tables["pairwise"]
    for _, row in leaders[leaders["players"] != "pooled"].iterrows():
        players = row["players"]
        names = row["leaders"].split(", ")
        if row["basis"] == "separation":
            lines.append(
                f"Strongest at {players} players: **{names[0]}**, which finished ahead of every "
                f"other strategy at all its tables (no finite rating can say by how much)"
                + _h2h_record(analysis, players, names[0])
                + "."
            )
            continue
        by_swaps = row["basis"] == swap_basis
        c = (
            _swap_contrast(analysis, players, names[0], row["runner_up"])
            if by_swaps
            else _contrast(pairs, players, names[0], row["runner_up"])
        )
        detail = (
            (judged(c, POINTS, "deals") if by_swaps else judged(c, LOG_ODDS, "tables"))
            if c is not None
            else ""
        )
        how = (
            "win share in line-ups that swap them against the same opponents, seats and deals"
            if by_swaps
            else "Plackett-Luce rating"
        )
        if row["verdict"] == DIFFERENT:
            lines.append(
                f"Strongest at {players} players: **{names[0]}**, separated from every other "
                f"strategy ({how}; against the next, {row['runner_up']}: {detail})."
            )
        else:
            word = "tied" if row["verdict"] == EQUAL else "not separated yet"
            lines.append(
                f"At {players} players no strategy is separated from the next: **{word}: "
                f"{', '.join(names)}** ({names[0]} against {row['runner_up']}: {detail}). "
                "None of them is named the strongest."
            )
    return lines


def pooling_lines(analysis: Analysis) -> list[str]:
    """The pooling test in words, and a pooled leader only with its own test."""
    pool = analysis.tables["rating_pooling"]
    if pool.empty:
        return []
    row = pool.iloc[0]
    test = (
        f"likelihood-ratio test of strategy x player count, chi-square {row['lr']:.1f}, "
        f"df={int(row['df'])}, {_p(row['p_value'])}"
    )
    if not row["pooling_justified"]:
        return [
            f"Strength depends on the player count ({test}): read the ratings per player "
            "count; no pooled ranking is given."
        ]
    text = (
        f"No evidence that strength depends on the player count ({test}); this does not show "
        "that one rating fits every count."
    )
    leaders = analysis.tables.get("leaders", pd.DataFrame())
    pooled = leaders[leaders["players"] == "pooled"]
    if len(pooled):
        lead = pooled.iloc[0]
        if lead["verdict"] == DIFFERENT:
            text += (
                f" Pooled, **{lead['leaders']}** is separated from the next "
                f"({lead['runner_up']}: {lead['difference']:+.2f} log-odds, 95% interval "
                f"{lead['family_low']:+.2f} to {lead['family_high']:+.2f}, "
                f"{_p(lead['p_adjusted'])}, Bonferroni over the pooled pairs)."
            )
        else:
            text += f" Pooled, no strategy is separated from the next: {lead['leaders']}."
    return [text]


def win_lines(analysis: Analysis) -> list[str]:
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
        row = best.copy()
        row["difference"], row["ci_low"], row["ci_high"] = (
            best["vs_field"],
            best["vs_field_ci_low"],
            best["vs_field_ci_high"],
        )
        lines.append(f"{head}; against the field: {judged(row, POINTS)}.")
    return lines


def strongest(analysis: Analysis) -> list[str]:
    """Per player count first; a pooled ranking only with its own test."""
    return (
        strongest_lines(analysis)
        + pooling_lines(analysis)
        + win_lines(analysis)
        + disagreements(analysis)
    )


def disagreements(analysis: Analysis) -> list[str]:
    """Where the head-to-head table (finished ahead where two met) separates a pair that the
    rating difference (fitted over every table) does not, or the reverse: said, with why."""
    from .ratings import RATING_METHOD

    h2h, pairs = analysis.tables["head_to_head"], analysis.tables["pairwise"]
    if pairs.empty or h2h.empty:
        return []
    ratings = pairs[pairs["method"] == RATING_METHOD]
    keys = ["players", "strategy", "opponent"]
    both = ratings.merge(
        h2h[[*keys, "rate", "n_games", "p_adjusted", "significant"]], on=keys, suffixes=("", "_h2h")
    )
    both = both[both["significant_h2h"].astype(bool) != (both["verdict"] == DIFFERENT)]
    lines = []
    for _, c in both.head(4).iterrows():
        h2h_says = bool(c["significant_h2h"])
        lines.append(
            f"At {c['players']} players, {c['strategy']} against {c['opponent']}: the "
            f"head-to-head table {'separates' if h2h_says else 'does not separate'} them "
            f"({_pct(c['rate'])} ahead in {int(c['n_games_h2h'])} games where both sat, "
            f"{_p(c['p_adjusted_h2h'])}, Holm over the pairs) while the rating difference "
            f"{'does not' if h2h_says else 'does'} ({c['difference']:+.2f} log-odds, "
            f"{_p(c['p_adjusted'])}, Bonferroni): the head-to-head counts only the games "
            "where the two met, the rating draws on every table of that player count."
        )
    return lines


# ------------------------------------------------------------------ seats
def seat_order(analysis: Analysis) -> list[str]:
    """The first seat's edge per player count (verdict against the margin, Bonferroni over the
    player counts together), whether seats differ at all, and whether the edge differs
    between player counts."""
    edge, tests = analysis.tables["seat_edge"], analysis.tables["seat_tests"]
    lines = []
    for _, row in edge.iterrows():
        where = (
            "at tables of equal players"
            if row["tables"] == "equal players"
            else "over every table (strategies rotate through the seats)"
        )
        test = tests[tests["players"] == row["players"]]
        wins = ""
        if len(test):
            t = test.iloc[0]
            said = "seats differ" if t["wins_significant"] else "no evidence that seats differ"
            how = (
                "Wald test of equal seats, the games of a deal clustered"
                if str(t["score_test"]).endswith("clustered by deal")
                else "chi-square of the winning seat, one per game"
            )
            wins = (
                f" Across all seats: {said} in wins ({how}, {_p(t['wins_p_adjusted'])}, Holm "
                "over the player counts)."
            )
        lines.append(
            f"Seat order at {int(row['players'])} players ({int(row['n_games']):,} games "
            f"{where}): seat 0 (plays first, R6) wins {_pct(row['rate'])} against a fair "
            f"{_pct(row['fair'])}; its edge is {judged(row, POINTS)}.{wins}"
        )
    test = analysis.edge_test
    if test:
        said = "it differs" if test["p_value"] < 0.05 else "no evidence that it differs"
        lines.append(
            f"Does the first seat's edge differ between {test['counts']} players? {said} "
            f"(Cochran's Q = {test['q']:.2f}, df = {int(test['df'])}, {_p(test['p_value'])})."
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
        f"(Holm-adjusted {_p(row['p_holm'])}).{fix}"
    )


def _detectable_clause(tested: pd.DataFrame) -> str:
    """What "none found" could have found: the net points when kept by which a typical
    tested card (the median) would have to miss its class to be flagged with 80% power, and
    how many cards could not be found over-rewarded at all (completed nearly always)."""
    below = tested["detectable_below"].fillna(np.inf).median()
    above = tested["detectable_above"]
    if not np.isfinite(below):
        return (
            "None found is no evidence of balance: most cards were kept too few times to be "
            "flagged however far below their class they fell."
        )
    text = (
        f"None found is not balance shown: a typical card would have been flagged (80% power) "
        f"only {below:.1f} net points when kept below its class"
    )
    if above.notna().any():
        text += f", or {above.median():.1f} above"
    blind = int(above.isna().sum())
    if blind:
        text += (
            f"; {blind} of {len(tested)} cards could not be found over-rewarded at all (their "
            "class completes them so often there is no room above)"
        )
    return text + "."


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
                f"At {_players(players)}, no evidence that any destination card is out of line "
                f"with cards of its printed points and trains beyond the card-to-card spread "
                f"({len(tested)} cards tested; Holm 5% over every card and player count; "
                f"spread tau={tested['tau'].iloc[0]:.2f} on the logit of completion). "
                + _detectable_clause(tested)
            )
    tested = table[table["tested"] & (table["flag"] == "")]
    if not tested.empty:
        near = tested.loc[tested["p"].idxmin()]
        lines.append(
            f"Closest to a flag: {near['label']} at {_players(near['players'])}, "
            f"{near['excess']:+.1f} net points against its class (raw {_p(near['p'])}, "
            f"Holm-adjusted {_p(near['p_holm'])})."
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
        steals, each = by[(players, "steals")], by.get((players, "turns_per_player"))
        own = f" ({each['mean']:.1f} per player)" if each is not None else ""
        parts.append(
            f"{players} players: {turns['mean']:.0f} turns of all seats together{own}, "
            f"{minutes['mean']:.0f} simulated minutes, {steals['mean']:.1f} steals "
            f"(n={int(turns['n_games'])} games)"
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


VARIANT_HEADLINE_METRICS = ("first_seat_win_share", "turns", "mean_score")
METRIC_WORDS = {
    "first_seat_win_share": ("seat 0's win share", POINTS),
    "turns": ("game length", TURNS),
    "mean_score": ("mean score", SCORE),
    "sim_minutes": ("simulated minutes", Scale(1, 1, " minutes")),
    "steals": ("steals", Scale(1, 2, " steals")),
    "unreached_per_seat": ("unreached destinations per seat", PLAIN),
}


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
    """Per variant: each headline metric's verdict per player count (where it is played),
    whether it fixes the first seat's edge and whether it moves the strategies."""
    table = analysis.tables["variants"]
    if table.empty:
        return []
    lines = []
    for variant in sorted(set(table["variant"])):
        rows = table[table["variant"] == variant]
        how = f"({_variant_method(rows)}; {rows.iloc[0]['correction']})"
        if _unchanged(rows):
            lines.append(
                f"Variant {variant}: every game pair played out identically {how}: the "
                "variant changed no game (the simulated strategies never meet the rule it changes)."
            )
            continue
        parts = []
        for _, r in rows[rows["metric"].isin(VARIANT_HEADLINE_METRICS)].iterrows():
            words, scale = METRIC_WORDS[r["metric"]]
            units = "deals" if r["method"] == "paired t" else "games per rule set"
            parts.append(f"{words} at {r['players']}p {judged(r, scale, units)}")
        lines.append(f"Variant {variant} against the printed game {how}: " + "; ".join(parts) + ".")
        lines += _variant_extras(analysis, variant)
    return lines


def _variant_extras(analysis: Analysis, variant: str) -> list[str]:
    """The first seat's edge (fixed, reduced, worsened, unchanged) and the strategies a
    variant moves."""
    out = []
    changes = analysis.tables.get("variant_edge_changes", pd.DataFrame())
    mine = changes[changes["variant"] == variant] if len(changes) else changes
    if len(mine):
        words = {"not yet known": "is not yet known to change"}
        parts = [
            f"{words.get(r['change'], r['change'])} the first seat's edge at "
            f"{r['players']} players "
            f"({POINTS.of(r['base_edge'])} points in the printed game, "
            f"{POINTS.of(r['variant_edge'])} with the variant, measured over "
            f"{'tables of equal players' if r['tables'] == 'equal players' else 'every table'})"
            for _, r in mine.iterrows()
        ]
        out.append(f"Variant {variant} " + "; ".join(parts) + ".")
    moved = analysis.tables.get("variant_strategies", pd.DataFrame())
    mine = moved[moved["variant"] == variant] if len(moved) else moved
    if len(mine):
        parts = []
        for players, group in mine.groupby("players"):
            hits = group[group["verdict"] == DIFFERENT]
            if len(hits):
                moved = ", ".join(
                    f"{r['strategy']} {POINTS.of(r['difference'])} points"
                    for _, r in hits.iterrows()
                )
                parts.append(f"at {players} players it changes which strategy wins: {moved}")
            else:
                parts.append(
                    f"at {players} players no evidence that it changes which strategy wins "
                    f"(smallest {_p(group['p_adjusted'].min())}, Bonferroni over its "
                    f"{len(group)} strategies)"
                )
        out.append(f"Variant {variant}: " + "; ".join(parts) + ".")
    touched = analysis.tables.get("edit_effects", pd.DataFrame())
    if len(touched) and (touched["variant"] == variant).any():
        out.append(touched_sentence(touched, variant))
    return out


def sweep_lines(analysis: Analysis) -> list[str]:
    """One sentence per sweep (reports/sweeps.py)."""
    from .sweeps import sentence

    edition = analysis.results.plan.catalogue()  # the study's cards: its tickets' names
    return [sentence(sweep, analysis.sweep_tables, edition) for sweep in analysis.sweeps]


@dataclass
class _Group:
    key: str
    lines: list[str]


def headline(analysis: Analysis) -> list[str]:
    """The findings that answer the study's question first (study_kinds.QUESTIONS)."""
    from .study_kinds import order_sections, study_info

    groups = {
        "strongest": strongest(analysis),
        "seats": seat_order(analysis),
        "players": player_counts(analysis),
        "destinations": cards(analysis),
        "variants": variants(analysis),
        "sweeps": sweep_lines(analysis),
        "designers": designers_ask(analysis),
    }
    info = study_info(analysis.results.study, analysis.seats, analysis.results.plan.description)
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
    family = int(rows["p_value"].notna().sum())
    for _, r in rows.iterrows():
        verdict = (
            "an edge" if r["significant"] else f"no evidence of an edge ({_p(r['p_adjusted'])})"
        )
        parts.append(
            f"at {int(r['players'])} players ({r['strategy']} at every seat) seat 0 wins "
            f"{_pct(r['rate'])} against a fair {_pct(r['fair'])}: "
            f"{100 * r['advantage']:+.1f} percentage points (95% CI "
            f"{100 * r['adv_ci_low']:+.1f} to {100 * r['adv_ci_high']:+.1f}, t-test over "
            f"{int(r['n_games'])} games, Holm {_p(r['p_adjusted'])}: {verdict}; "
            f"detectable with 80% power at level 0.05/{family}: {100 * r['mde']:.1f} "
            "percentage points)"
        )
    return [
        "First-seat advantage among equal players (one family: every player count and "
        "mirrored strategy, Holm): " + "; ".join(parts) + "."
    ]


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
            + (
                f"95% {_pct(r['ci_low'])}-{_pct(r['ci_high'])}, "
                if r["ci_high"] - r["ci_low"] < 0.9
                else "interval nearly 0-100%: the data do not pin its weight, "
            )
            + f"positive in {_pct(r['share_positive'])} of draws)"
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
            "Holm over the pairs of a player count; no cycle found is no evidence of one, "
            "not proof that none exists): " + "; ".join(parts) + "."
        )
    return lines


def designers_ask(analysis: Analysis) -> list[str]:
    """The findings of the 'What designers ask' section."""
    return first_seat_equals(analysis) + margins(analysis) + meta_game_line(analysis)
