"""The Markdown writer of the report model (reports/sections.py): a summary for pasting into
an issue or a forum post."""

from __future__ import annotations

import re

import pandas as pd

from . import answers
from .analysis import Analysis
from .document import Block, Heading, Report, StudyFacts, Table
from .numbers import INTERVAL_NOTE, shown
from .rulings import quoted_rulings
from .sections import build
from .study_kinds import order_sections


def table(frame: pd.DataFrame, columns: list[str], name: str = "") -> str:
    """A GitHub-flavoured Markdown table of ``columns`` of the table ``name``, its numbers as
    a reader sees them (reports/numbers.py)."""
    cells = shown(frame, name, columns)
    head = "| " + " | ".join(cells.columns) + " |"
    rule = "| " + " | ".join("---" for _ in cells.columns) + " |"
    rows = [
        "| " + " | ".join(str(v).replace("|", "/") for v in row) + " |" for row in cells.to_numpy()
    ]
    return "\n".join([head, rule, *rows])


def blocks(summary: list[Block]) -> list[str]:
    """A section's summary as Markdown paragraphs."""
    out = []
    for block in summary:
        if isinstance(block, Heading):
            out.append(f"{'#' * block.level} {block.text}")
        elif isinstance(block, Table):
            out.append(table(block.frame, block.columns or list(block.frame.columns), block.name))
        else:
            out.append(block)
    return out


def _method(facts: StudyFacts) -> str:
    return (
        f"Study `{facts.name}`: {facts.games:,} games, "
        f"{facts.failures} failed. The game is the unit: rates are over games (Wilson 95% "
        "intervals), seat means are clustered by game, seat tests blocked by game; a pairwise "
        "comparison is a test of the difference over a stated family, its verdict read off "
        "the family's Bonferroni-corrected interval against a practical margin (different, "
        "practically equal by TOST, or not yet known); the `p_adjusted` beside it is "
        "Bonferroni-adjusted over the same family (below the level exactly when that interval "
        "excludes 0), while `p_holm` and the head-to-head and seat tests are Holm-adjusted. "
        "`n_games`, `n_seats`, `n_tables` and "
        f"`n_deals` say what each count counts. {INTERVAL_NOTE} Win shares and other shares "
        "of games are percentages, changes of them percentage points (pts). Seat 0 plays "
        "first (R6)."
    )


def render(analysis: Analysis) -> str:
    """The summary of an analysis."""
    return summary(build(analysis))


LIGHTS = {"green": "🟢", "amber": "🟡", "red": "🔴"}


def slug(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    kept = re.sub(r"[^\w\- ]", "", title.lower())
    return kept.replace(" ", "-")


def answers_table(summary: answers.Summary, anchors: dict[str, str]) -> list[str]:
    """The answers at the top as Markdown: the question, a table with a light per cell, the
    legend."""
    head = "| | " + " | ".join(summary.columns) + " |"
    rule = "| --- |" + " --- |" * len(summary.columns)
    rows = []
    for answer in summary.answers:
        label = (
            f"[{answer.label}](#{anchors[answer.key]})" if answer.key in anchors else answer.label
        )
        cells = []
        for column in summary.columns:
            cell = answer.cells.get(column)
            text = (
                "-"
                if cell is None
                else (f"{LIGHTS[cell.light]} {cell.text}" if cell.light else cell.text)
            )
            cells.append(text.replace("|", "/"))
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    legend = ", ".join(f"{LIGHTS[k]} {v}" for k, v in summary.lights.items())
    return [f"**{summary.question}**", "\n".join([head, rule, *rows]), f"{legend}. {summary.note}"]


def _demoted(blocks_: list[Block], title: str) -> list[Block]:
    """A section's summary under its title: its own level-2 heading of the same words is
    dropped, the others go one level down."""
    out: list[Block] = []
    for block in blocks_:
        if isinstance(block, Heading):
            if block.level == 2 and block.text == title:
                continue
            out.append(Heading(block.text, block.level + 1))
        else:
            out.append(block)
    return out


def summary(report: Report) -> str:
    """The summary of a report: the answers first (## Summary), then the study, the findings
    in full and every section's summary in the page's order, and the rulings it cites."""
    sections = [s for s in order_sections(report.sections, report.order) if s.summary]
    anchors = {s.key: slug(s.title) for s in sections}
    parts = [
        f"# {report.title}",
        "## Summary",
        *answers_table(report.summary, anchors),
        *([f"**{report.partial_note}**"] if report.partial_note else []),
        "Contents: " + " · ".join(f"[{s.title}](#{anchors[s.key]})" for s in sections),
        "## About this study",
        *([f"*{report.description}*"] if report.description else []),
        f"**Question:** {report.question}",
        "\n".join(f"- `{name}`: {text}" for name, text in sorted(report.intents.items())),
        report.knowledge,
        _method(report.facts),
        "## Findings in full",
        "\n".join(f"- {line}" for line in report.findings),
    ]
    for section in sections:
        parts += [f"## {section.title}", *blocks(_demoted(section.summary, section.title))]
    cited = quoted_rulings("\n".join(parts))
    if cited:
        parts += [
            "## Rulings cited",
            "From the project's rules digest (docs/rules/rulings.md):",
            "\n".join(f"- **R{n}**: {quote}" for n, quote in cited),
        ]
    return "\n\n".join(parts) + "\n"
