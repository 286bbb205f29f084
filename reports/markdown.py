"""A Markdown summary of the report, for pasting into an issue or a forum post."""

from __future__ import annotations

import math

import pandas as pd

from . import skill
from .analysis import Analysis
from .findings import headline
from .study_kinds import (
    RULINGS,
    alone_everywhere,
    cited_rulings,
    for_people,
    knowledge_sentence,
    strategy_intents,
    study_info,
)


def _cell(value: object) -> str:
    if value is pd.NA:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.3g}"
    return str(value).replace("|", "/")


def table(frame: pd.DataFrame, columns: list[str]) -> str:
    """A GitHub-flavoured Markdown table of ``columns``."""
    frame = for_people(frame)  # seats from 1, counts as integers
    head = "| " + " | ".join(columns) + " |"
    rule = "| " + " | ".join("---" for _ in columns) + " |"
    rows = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in frame[columns].to_numpy()]
    return "\n".join([head, rule, *rows])


def _pooling(t: dict[str, pd.DataFrame]) -> list[str]:
    """The pooled rating, only beside its likelihood-ratio test."""
    test = t["rating_pooling"]
    if test.empty:
        return []
    row = test.iloc[0]
    parts = [
        "### Pooling the player counts",
        f"Likelihood-ratio test of strategy x player count: chi-square {row['lr']:.1f}, "
        f"df={int(row['df'])}, p={row['p_value']:.2g}.",
    ]
    if row["pooling_justified"]:
        parts.append(
            table(
                t["ratings_pooled"],
                ["rank", "strategy", "strength", "ci_low", "ci_high", "n_tables"],
            )
        )
    else:
        parts.append("Strength depends on the player count: no pooled ranking is given.")
    return parts


def _swap_parts(swaps: pd.DataFrame) -> list[str]:
    """Paired studies: line-ups that differ by one strategy, compared on the same deals."""
    if swaps.empty:
        return []
    return [
        "## Swapping one strategy on the same deals (paired t over deals, Holm per player "
        "count)",
        table(
            swaps[swaps["metric"] == "win_share"],
            ["players", "strategy", "opponent", "n_contexts", "n_deals", "difference",
             "ci_low", "ci_high", "p_adjusted", "detectable"],
        ),
    ]  # fmt: skip


def _significant_pairs(pairs: pd.DataFrame) -> str:
    hits = pairs[pairs["significant"].astype(bool)]
    if hits.empty:
        return "No pair differs significantly after Holm's correction."
    return table(
        hits,
        [
            "players",
            "strategy",
            "opponent",
            "difference",
            "ci_low",
            "ci_high",
            "p_adjusted",
            "method",
        ],
    )


DESTINATION_COLUMNS = [
    "card",
    "points",
    "cards",
    "kept",
    "completion",
    "net_mean",
    "expected",
    "excess",
    "p_holm",
    "suggested_points",
    "plays_like_points",
    "flag",
]


def destination_parts(destinations: pd.DataFrame) -> list[str]:
    """The destination cards per player count: flagged cards (number and cities), then the
    cards dominated on paper."""
    parts = ["## Destination cards"]
    if destinations.empty:
        return [*parts, "No destination card was offered."]
    frame = destinations.assign(card=destinations["label"])
    for column in ("suggested_points", "plays_like_points"):  # integers; empty when none
        frame[column] = frame[column].map(lambda v: "" if pd.isna(v) else str(int(v)))
    for players, group in frame.groupby("players", sort=True):
        flagged = group[group["flag"] != ""].sort_values("p_holm")
        name = f"{int(players)} players" if players else "All player counts"
        if not group["tested"].any():
            parts.append(f"{name}: too few cards kept 20 times to test.")
        elif flagged.empty:
            parts.append(f"{name}: no card out of line ({int(group['tested'].sum())} tested).")
        else:
            parts += [f"### {name}: cards out of line", table(flagged, DESTINATION_COLUMNS)]
    beaten = frame.drop_duplicates("destination_id")
    beaten = beaten[beaten["dominated_by"] != ""]
    if not beaten.empty:
        parts += [
            "### Dominated on paper (another card needs a subset of their trains for at "
            "least their points)",
            table(
                beaten.rename(columns={"dominated_by": "dominated by"}),
                ["card", "points", "dominated by"],
            ),
        ]
    return parts


def _strategy_parts(t: dict[str, pd.DataFrame]) -> list[str]:
    """Ratings, pooling, win rates and significant pairs (where strategies meet)."""
    return [
        "## Strategy ratings per player count (Plackett-Luce)",
        "Strength on the log-odds scale; 0 = mean of the non-random strategies.",
        table(
            t["ratings"],
            ["players", "rank", "strategy", "strength", "ci_low", "ci_high", "n_tables", "note"],
        ),
        *_pooling(t),
        "## Win rates",
        "Share of its games won; `field`: its share if the non-random strategies were equally "
        "strong; `p_adjusted`: Holm over the strategies of a player count.",
        table(
            t["win_rates"],
            [
                "players",
                "strategy",
                "rate",
                "ci_low",
                "ci_high",
                "n_games",
                "n_seats",
                "field",
                "p_adjusted",
            ],
        ),
        "## Significant pairwise differences (Holm per player count and method)",
        _significant_pairs(t["pairwise"]),
        *_swap_parts(t["lineup_swaps"]),
    ]


def render(analysis: Analysis) -> str:
    t = analysis.tables
    study = analysis.results.study
    info = study_info(study, analysis.seats)
    intents = strategy_intents(sorted(analysis.strategies), study.get("strategies"))
    parts = [
        f"# Ticket to Ride: The Card Game - {info.name} study",
        *([f"*{info.description}*"] if info.description else []),
        f"**Question:** {info.question}",
        "\n".join(f"- `{name}`: {text}" for name, text in intents.items()),
        knowledge_sentence(analysis.seats, study.get("strategies")),
        f"Study `{study.get('name')}`: {len(analysis.games):,} games, "
        f"{analysis.failures} failed. The game is the unit: rates are over games (Wilson 95% "
        "intervals), seat means are clustered by game, seat tests blocked by game; pairwise "
        "comparisons are Holm-corrected tests of the difference. `n_games`, `n_seats` and "
        "`n_tables` say what each count counts.",
        *([f"**{analysis.partial_note}**"] if analysis.partial_note else []),
        "## Headline findings",
        "\n".join(f"- {line}" for line in headline(analysis)),
    ]
    if alone_everywhere(analysis.seats):
        parts.append(
            "## Strategies\n\nEvery seat plays the same strategy: no rating, win rate or "
            "pairwise comparison to show."
        )
    else:
        parts += _strategy_parts(t)
    parts += [
        "## Seat advantage",
        "Seat 1 plays first (R6).",
        table(
            t["seat_advantage"],
            ["players", "seat", "n_games", "rate", "ci_low", "ci_high", "fair"],
        ),
        table(
            t["seat_tests"],
            ["players", "n_games", "wins_p", "wins_significant", "score_test", "score_p"],
        ),
    ]
    parts += destination_parts(t["destinations"])
    if not t["variants"].empty:
        parts += variant_parts(t["variants"])
    parts += designer_parts(analysis)
    parts += skill_parts(analysis)
    cited = [n for n in cited_rulings("\n".join(parts)) if n in RULINGS]
    if cited:
        parts += ["## Rulings cited", "\n".join(f"- **R{n}**: {RULINGS[n]}" for n in cited)]
    return "\n\n".join(parts) + "\n"


def designer_parts(analysis: Analysis) -> list[str]:
    """The 'What designers ask' tables (their findings are in the headline list)."""
    from .findings import players_know

    t = analysis.tables
    parts = ["## What designers ask", players_know(analysis)]
    seat = t["first_seat"][t["first_seat"]["n_games"] > 0]
    if not seat.empty:
        parts += [
            "### First-seat advantage among equal players (t over games)",
            table(
                seat.astype(object),
                ["players", "strategy", "n_games", "rate", "advantage", "adv_ci_low",
                 "adv_ci_high", "p_value", "mde"],
            ),
        ]  # fmt: skip
    if not t["score_margins"].empty:
        parts += [
            "### Score margins and tie-breaks (one per game)",
            table(
                t["score_margins"].astype(object),
                ["players", "n_games", "median_margin", "mean_margin", "ci_low", "ci_high",
                 "tie_rate", "tie_ci_low", "tie_ci_high", "shared"],
            ),
        ]  # fmt: skip
    if not t["card_contribution_shown"].empty:
        parts += [
            "### Cards and winning: completed minus failed, top and bottom (Newcombe, Holm)",
            table(
                t["card_contribution_shown"].astype(object),
                ["players", "label", "n_completed", "n_failed", "difference", "ci_low",
                 "ci_high", "p_adjusted"],
            ),
        ]  # fmt: skip
    if not t["meta_game"].empty:
        parts += [
            "### Equilibrium mix of the 2-player meta-game (game-level bootstrap)",
            table(
                t["meta_game"].astype(object),
                ["strategy", "weight", "boot_mean", "ci_low", "ci_high", "share_positive"],
            ),
        ]
    return parts


def variant_parts(effects) -> list[str]:
    """Variant effects: the significant ones with their intervals, and for every variant and
    player count the smallest difference the study could detect (80% power, 5% level)."""
    significant = effects[effects["significant"]]
    methods = ", ".join(sorted(set(effects["method"])))
    return [
        "## Variant effects",
        f"Variant minus base ({methods}; Benjamini-Hochberg over all variant comparisons), "
        "only at the player counts where a variant changes the rules.",
        table(
            significant,
            [
                "variant",
                "players",
                "metric",
                "method",
                "n_pairs",
                "base",
                "value",
                "difference",
                "ci_low",
                "ci_high",
                "q_value",
            ],
        )
        if not significant.empty
        else "None of the variants differs significantly.",
        "Smallest difference each comparison could detect:",
        table(
            effects[effects["metric"].isin(["turns", "mean_score", "first_seat_win_share"])],
            [
                "variant",
                "players",
                "metric",
                "method",
                "n_games",
                "n_pairs",
                "difference",
                "detectable",
                "significant",
            ],
        ),
    ]


def skill_parts(analysis: Analysis) -> list[str]:
    """The skill ladder (reports/skill.py), only for a skill study: every number with its
    interval and sample size."""
    t = analysis.tables
    if "skill_pairs" not in t:
        return []
    pairs, share, memory = t["skill_pairs"], t["skill_share"], t["memory_value"]
    ranking, agreement = t["skill_ranking"], t["skill_agreement"]
    pair = skill.memory_pair(analysis.strategies, analysis.results.study.get("strategies"))
    parts = [
        "## The skill ladder",
        "### How often the stronger of a pair finishes ahead",
        "Share of the games both sat in that the first finished ahead (R22 order, a tie "
        "one half), Wilson 95% interval over games, score test of 50% with Holm's "
        "correction over the pairs of a player count. " + skill.pair_sentence(pairs),
        table(pairs, ["players", "strategy", "opponent", "n_games", "rate", "ci_low", "ci_high",
                      "p_adjusted"]) if not pairs.empty else "",
        "### How much of the score spread is skill",
        "Share of the variance of seat scores explained by the seated strategy (between over "
        "total sum of squares), 95% interval from a bootstrap over games.",
        *(skill.share_sentence(row) for _, row in share.iterrows()),
        table(share, ["players", "scope", "n_games", "n_strategies", "share", "ci_low",
                      "ci_high"]) if not share.empty else "Scores never varied: no share.",
        "### The value of memory",
        skill.memory_sentence(memory, pair),
    ]  # fmt: skip
    if not memory.empty:
        parts.append(
            table(memory, ["players", "measure", "unit", "n", "value", "ci_low", "ci_high",
                           "p_value"])
        )  # fmt: skip
    parts.append("### Does the heuristics' ranking hold against search players?")
    if ranking.empty:
        parts.append("No scripted strategy met both scripted and search opponents.")
        return [p for p in parts if p]
    parts += [
        "Share of head-to-head comparisons won (per game, Wilson over games) against "
        "scripted opponents and against the search seats, random left out; rank 1 = best.",
        table(ranking, ["players", "strategy", "rank_scripted", "rate_scripted",
                        "n_games_scripted", "rank_search", "rate_search", "search_ci_low",
                        "search_ci_high", "n_games_search"]),
        *(skill.tau_sentence(row) for _, row in agreement.iterrows()),
    ]  # fmt: skip
    return [p for p in parts if p]
