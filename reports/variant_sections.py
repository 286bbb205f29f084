"""The report's sections on what a change of the rules does: the rule variants against the
printed game, and the sweeps of a printed number (the model: reports/document.py; the other
sections: reports/sections.py)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import pandas as pd

from . import figures, sweeps
from .analysis import Analysis
from .document import Block, Chart, Heading, Section, Table
from .edit_effects import touched_sentence
from .numbers import p_text

if TYPE_CHECKING:
    from sims.plan import Plan


def variants_section(analysis: Analysis) -> Section:
    """Each variant against the printed game: paired verdicts per metric, each variant's own
    statistics (first seat's edge, strengths, length), whether it fixes the first seat's edge
    and whether it moves the strategies."""
    t = analysis.tables
    effects = t["variants"]
    charts = [
        Chart(
            partial(figures.variant_effects, effects),
            "What each variant changes against the printed game, one panel per variant and "
            "metric, each on its own scale.",
            "Variant minus base, seat metrics averaged per game first. Paired studies: "
            "per-game differences averaged per deal (line-ups share deals), paired t over "
            "deals; unpaired studies: difference of means, Welch (the table's method column "
            "says which). Bars: the interval each verdict (different, practically equal, not "
            "yet known) is read from, Bonferroni over the variants and player counts of a "
            "metric (the equivalence interval for practically equal). Grey band: the "
            "practical margin.",
        )
    ]
    touched = t.get("edit_effects", pd.DataFrame())
    if len(touched):  # right after the headline effects: what each edit did to what it edits
        charts.append(
            Chart(
                partial(figures.edit_effects, touched),
                "What each variant's edits did to the ticket, big-city bonus or seats they edit, "
                "one panel per variant.",
                "Per edited thing and player count, the metric averaged over the games of a deal "
                "in each rule set, variant minus base deal by deal where the study is paired "
                "(paired t over deals), else Welch over deals; intervals simultaneous over every "
                "variant, edited thing and player count of a metric (Bonferroni, the table's "
                "family column), verdicts against the metric's practical margin. A ticket: kept "
                "when offered, completed when kept, net points per game, its holders' win "
                "share; a bonus: how often it is won, its holders' win share, how often each "
                "strategy wins it; a seat lever: each seat's win share.",
                lead=" ".join(
                    touched_sentence(touched, v) for v in sorted(set(touched["variant"]))
                ),
            )
        )
    if "variant_seat_edge" in t and not t["variant_seat_edge"].empty:
        charts.append(
            Chart(
                partial(figures.variant_seat_edge, t["variant_seat_edge"]),
                "Seat 0's edge over its fair share in the printed game and in each variant.",
                "Per rule set and player count: seat 0's win share minus 1/players, one value "
                "per game, Student t 95% intervals (tables of equal players where the study "
                "has them, else every table); grey band: the practical margin.",
            )
        )
    if "variant_ratings" in t and t["variant_ratings"]["strength"].notna().any():
        charts.append(
            Chart(
                partial(figures.variant_ratings, t["variant_ratings"]),
                "Each strategy's strength under each rule set, one panel per player count.",
                "Plackett-Luce strengths fitted separately per rule set and player count "
                "(log-odds, 0 = mean of the non-random strategies), Wald 95% intervals; "
                "whether a variant moves a strategy is tested pairwise by deal in "
                "variant_strategies.",
            )
        )
    designs = variant_designs(analysis.results.plan)
    tables = [Table("variant_designs", designs), Table("variants", effects)]
    if len(touched):
        tables.append(Table("edit_effects", touched))
    for name in ("variant_edge_changes", "variant_strategies", "variant_seat_edge",
                 "variant_ratings", "variant_length"):  # fmt: skip
        if name in t:
            tables.append(Table(name, t[name]))
    return Section(
        key="variants",
        title="What do the rule variants change?",
        intro="Each variant against the base game with the same strategies, shown only at "
        "the player counts where the variant changes the rules. In a paired study "
        '(pairing = "deals") variant game i replays base game i: the same train and '
        "destination shuffles at setup, the same line-up and the same seat order, so the "
        "deal is the unit of every variant comparison. " + _designs_sentence(designs),
        charts=charts,
        tables=tables,
        summary=[
            Heading("What each variant changes"),
            "Each variant's rules and card edits against the base game's, and the player "
            "counts it is played at (a variant that edits the cards is played at every count).",
            Table("variant_designs", designs),
            *touched_summary(touched),
            *variants_summary(effects, t),
        ],
    )


def touched_summary(touched: pd.DataFrame) -> list[Block]:
    """The Markdown summary's part on what each variant's edits touched."""
    if touched.empty:
        return []
    return [
        Heading("What each edit touched", 3),
        *[touched_sentence(touched, v) for v in sorted(set(touched["variant"]))],
        Table("edit_effects", touched,
              ["variant", "players", "item", "metric", "who", "method", "deals", "base", "value",
               "difference", "family_low", "family_high", "verdict"]),
    ]  # fmt: skip


def variant_designs(plan: Plan) -> pd.DataFrame:
    """What each variant of the study changes against base, in a designer's words: each rule
    setting that differs (base -> variant) and each card edit (``#4 points 8``), from the
    plan the run played. Sweep values are left to the sweeps' section."""
    base = plan.variants.get("base")
    printed = base.edits.describe() if base is not None else []
    rows = []
    for name, variant in plan.variants.items():
        if name == "base" or variant.sweep is not None or base is None:
            continue
        mine, theirs = variant.rules.to_dict(), base.rules.to_dict()
        rules = [f"{key} {_shown(theirs[key])} -> {_shown(value)}"
                 for key, value in mine.items() if value != theirs[key]]  # fmt: skip
        edits = [e for e in variant.edits.describe() if e not in printed]
        rows.append({
            "variant": name,
            "players": ", ".join(map(str, variant.players)),
            "rules": "; ".join(rules) or "as base",
            "cards": "; ".join(edits) or "as base",
        })  # fmt: skip
    return pd.DataFrame(rows, columns=["variant", "players", "rules", "cards"])


def _designs_sentence(designs: pd.DataFrame) -> str:
    """The designs table in one sentence, for the top of the section."""
    parts = []
    for row in designs.itertuples():
        changes = [x for x in (row.rules, row.cards) if x != "as base"]
        parts.append(f"{row.variant} ({row.players} players): {'; '.join(changes)}")
    return f"What each variant changes: {'. '.join(parts)}." if parts else ""


def _shown(value: object) -> str:
    """A rule setting as a designer reads it: on/off, a count per seat or player count."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, dict):
        return ", ".join(f"{k}p: {v}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return "/".join(map(str, value))
    return str(value)


def variants_summary(effects: pd.DataFrame, t: dict | None = None) -> list[Block]:
    """Variant effects: every headline comparison with its verdict, the units it rests on
    (deals in a paired study) and what would decide it; the first seat's edge and the
    strategies each variant moves."""
    methods = ", ".join(sorted(set(effects["method"])))
    shown = effects[effects["metric"].isin(["turns", "mean_score", "first_seat_win_share"])]
    shown = shown.assign(n=shown["n_deals"].where(shown["method"] == "paired t",
                                                  shown["n_games"]),
                         unit=(shown["method"] == "paired t").map({True: "deals",
                                                                  False: "games"}))  # fmt: skip
    blocks: list[Block] = [
        Heading("Variant effects"),
        f"Variant minus base ({methods}; Bonferroni over the variants and player counts of each "
        "metric), only at the player counts where a variant changes the rules. `n` counts "
        "the unit of the test (deals in a paired study); `detectable`: the smallest difference "
        "found with 80% power at 0.05 / the family size; `needed`: units to decide at the "
        "margin.",
        Table("variants", shown,
              ["variant", "players", "metric", "method", "n", "unit", "base", "value",
               "difference", "family_low", "family_high", "verdict", "detectable", "needed"]),
    ]  # fmt: skip
    t = t or {}
    changes = t.get("variant_edge_changes")
    if changes is not None and len(changes):
        blocks += [
            Heading("Does a variant fix the first seat's edge?", 3),
            Table("variant_edge_changes", changes,
                  ["variant", "players", "change", "base_edge", "variant_edge", "difference",
                   "family_low", "family_high", "tables"]),
        ]  # fmt: skip
    moved = t.get("variant_strategies")
    if moved is not None and len(moved):
        hits = moved[moved["verdict"] == "different"]
        blocks += [
            Heading("Does a variant change which strategy wins? (paired by deal, Bonferroni over "
                    "the "
                    "strategies of a variant and player count)", 3),
            Table("variant_strategies", hits,
                  ["variant", "players", "strategy", "base", "value", "difference", "family_low",
                   "family_high", "p_adjusted"])
            if len(hits)
            else "No evidence that any variant changes a strategy's win share "
            f"(smallest Bonferroni-adjusted {p_text(moved['p_adjusted'].min())}).",
        ]  # fmt: skip
    return blocks


def sweeps_section(analysis: Analysis) -> Section:
    """Each sweep: its sentence first, then its figure: each metric against the swept value
    on the same deals."""
    frames = analysis.sweep_tables
    charts, intro = [], []
    edition = analysis.results.plan.catalogue()  # the study's cards: its tickets' names
    for sweep in analysis.sweeps:
        text = sweeps.sentence(sweep, frames, edition)
        intro.append(text)
        printed = ", ".join(str(v) for v in sweep.printed)
        charts.append(
            Chart(
                partial(sweeps.sweep_figure, frames, sweep),
                f"Sweep {sweep.name}: each metric's change from the printed value ({printed}, "
                "dotted) at every swept value, one line per player count.",
                "Each value is a variant replaying the printed game's deals (same seed, "
                "line-up and seat order); per metric and player count, the value minus the "
                "printed value averaged per deal, Student t over deals, intervals simultaneous "
                "over the sweep's values and player counts (Bonferroni, the `family` column); "
                "verdicts against each metric's practical margin.",
                lead=text,
            )
        )
    tables = [Table(f"sweep_{metric}", frame) for metric, frame in frames.items()]
    summary: list[Block] = [Heading("Sweeps")]
    for sweep, text in zip(analysis.sweeps, intro, strict=True):
        rows = [
            frame[(frame["sweep"] == sweep.name) & ~frame["printed"]].assign(metric=metric)
            for metric, frame in frames.items()
            if metric != "win_share"
        ]
        rows = [r for r in rows if len(r)]
        summary += [Heading(f"Sweep {sweep.name}", 3), text]
        if rows:
            summary.append(
                Table("sweeps", pd.concat(rows, ignore_index=True),
                      ["metric", "value", "players", "deals", "difference", "ci_low", "ci_high",
                       "verdict"])
            )  # fmt: skip
    return Section(
        key="sweeps",
        title="What do the swept values change?",
        intro="A sweep plays one printed number at several values, each on the printed game's "
        "deals, so every value is compared with the printed one deal by deal. These values "
        "are shown here only, not among the rule variants.",
        charts=charts,
        tables=tables,
        summary=summary,
    )
