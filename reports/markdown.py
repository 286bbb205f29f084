"""The Markdown writer of the report model (reports/sections.py): a summary for pasting into
an issue or a forum post."""

from __future__ import annotations

import math

import pandas as pd

from .analysis import Analysis
from .sections import Block, Heading, Report, StudyFacts, Table, build
from .study_kinds import for_people, quoted_rulings


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


def blocks(summary: list[Block]) -> list[str]:
    """A section's summary as Markdown paragraphs."""
    out = []
    for block in summary:
        if isinstance(block, Heading):
            out.append(f"{'#' * block.level} {block.text}")
        elif isinstance(block, Table):
            out.append(table(block.frame, block.columns or list(block.frame.columns)))
        else:
            out.append(block)
    return out


def _method(facts: StudyFacts) -> str:
    return (
        f"Study `{facts.name}`: {facts.games:,} games, "
        f"{facts.failures} failed. The game is the unit: rates are over games (Wilson 95% "
        "intervals), seat means are clustered by game, seat tests blocked by game; pairwise "
        "comparisons are Holm-corrected tests of the difference. `n_games`, `n_seats` and "
        "`n_tables` say what each count counts."
    )


def render(analysis: Analysis) -> str:
    """The summary of an analysis."""
    return summary(build(analysis))


def summary(report: Report) -> str:
    """The summary of a report: front matter, headline findings, then every section's
    summary in the report's order, and the rulings it cites (strategies alphabetically)."""
    parts = [
        f"# {report.title}",
        *([f"*{report.description}*"] if report.description else []),
        f"**Question:** {report.question}",
        "\n".join(f"- `{name}`: {text}" for name, text in sorted(report.intents.items())),
        report.knowledge,
        _method(report.facts),
        *([f"**{report.partial_note}**"] if report.partial_note else []),
        "## Headline findings",
        "\n".join(f"- {line}" for line in report.findings),
    ]
    for section in report.sections:
        parts += blocks(section.summary)
    cited = quoted_rulings("\n".join(parts))
    if cited:
        parts += ["## Rulings cited", "\n".join(f"- **R{n}**: {quote}" for n, quote in cited)]
    return "\n\n".join(parts) + "\n"
