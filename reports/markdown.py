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
    flagged = t["destinations"][t["destinations"]["flag"] != ""]
    if not flagged.empty:
        parts += [
            "## Destination cards out of line",
            table(
                flagged,
                [
                    "destination_id",
                    "points",
                    "cards",
                    "kept",
                    "completion",
                    "net_mean",
                    "trend",
                    "residual_z",
                    "flag",
                ],
            ),
        ]
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
