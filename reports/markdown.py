"""A Markdown summary of the report, for pasting into an issue or a forum post."""

from __future__ import annotations

import math

import pandas as pd

from .analysis import Analysis
from .findings import headline


def _cell(value: object) -> str:
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.3g}"
    return str(value).replace("|", "/")


def table(frame: pd.DataFrame, columns: list[str]) -> str:
    """A GitHub-flavoured Markdown table of ``columns``."""
    head = "| " + " | ".join(columns) + " |"
    rule = "| " + " | ".join("---" for _ in columns) + " |"
    rows = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in frame[columns].to_numpy()]
    return "\n".join([head, rule, *rows])


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


def render(analysis: Analysis) -> str:
    t = analysis.tables
    study = analysis.results.study
    parts = [
        "# Ticket to Ride: The Card Game - balance summary",
        f"Study `{study.get('name')}`: {len(analysis.games):,} games, "
        f"{analysis.failures} failed. Intervals are 95% (Wilson for rates, t for means).",
        *([f"**{analysis.partial_note}**"] if analysis.partial_note else []),
        "## Headline findings",
        "\n".join(f"- {line}" for line in headline(analysis)),
        "## Strategy ratings (Plackett-Luce)",
        table(t["ratings"], ["rank", "strategy", "strength", "ci_low", "ci_high", "n"]),
        "## Win rates",
        table(t["win_rates"], ["players", "strategy", "rate", "ci_low", "ci_high", "n", "fair"]),
        "## Seat advantage",
        table(t["seat_tests"], ["players", "games", "wins_p", "wins_significant", "score_p"]),
    ]
    parts += destination_parts(t["destinations"])
    if not t["variants"].empty:
        significant = t["variants"][t["variants"]["significant"]]
        parts += [
            "## Significant variant effects",
            table(
                significant,
                [
                    "variant",
                    "players",
                    "metric",
                    "base",
                    "value",
                    "difference",
                    "ci_low",
                    "ci_high",
                ],
            )
            if not significant.empty
            else "None of the variants differs significantly.",
        ]
    return "\n\n".join(parts) + "\n"
