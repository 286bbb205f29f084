"""The report as a document: its front matter and its sections, the one model that
reports/html.py and reports/markdown.py write (reports/sections.py builds it from an analysis).

A ``Report`` holds the study's front matter (title, question, the strategies' intents, what
the players know, the headline findings, the facts its method paragraph states) and its
``Section``s. A section carries the page's content (title, intro, charts with their captions,
downloadable tables) and its ``summary``: the headings, paragraphs and column-selected tables
of the Markdown summary.

Text is plain, except the findings and the summary's paragraphs, which use Markdown emphasis
(**bold**, `code`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import answers, study_kinds


@dataclass
class Chart:
    """A figure, its one-sentence caption (what it shows) and its method (how it is computed
    and on what n; folded on the page); drawn when first shown, so a summary without charts
    never pays for them."""

    draw: Callable[[], go.Figure]
    caption: str
    method: str = ""
    lead: str = ""  # a paragraph the page shows before the figure (a sweep's sentence)

    @cached_property
    def figure(self) -> go.Figure:
        return self.draw()


@dataclass
class Table:
    """A table of ``Analysis.tables`` (``name``; the page's download name) or rows of it;
    ``columns``: the columns shown, all when None."""

    name: str
    frame: pd.DataFrame
    columns: list[str] | None = None


@dataclass
class Heading:
    """A heading of the summary: level 2 opens a section, level 3 a part of one."""

    text: str
    level: int = 2


Block = Heading | Table | str  # a str is a paragraph (Markdown)


@dataclass
class StudyFacts:
    """The study behind the report, as the method paragraphs state it."""

    name: str
    games: int
    failures: int
    players: list[int]
    rotation: str
    seed: str
    variants: list[str]
    pairing: str  # how the games share deals, in one sentence
    sweeps: list[str] = field(default_factory=list)


@dataclass
class Section:
    """One question the report answers: the page's content and the summary's."""

    key: str  # the question it answers: the study decides the page's order (study_kinds)
    title: str
    intro: str
    charts: list[Chart] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    summary: list[Block] = field(default_factory=list)  # empty: not in the summary
    on_page: bool = True  # False: the page leaves it out (its summary may say why)


@dataclass
class Report:
    """Everything a report says, in the order the summary says it."""

    title: str
    description: str
    question: str
    intents: dict[str, str]  # strategy -> what it tries to do, in the report's strategy order
    knowledge: str  # what the simulated players know
    partial_note: str  # a stopped run's note, else ''
    findings: list[str]  # the findings in full (Markdown emphasis)
    summary: answers.Summary  # the answers at the top (at most 150 words)
    sections: list[Section]
    order: list[str]  # the keys of the sections that answer the study's question
    facts: StudyFacts

    @property
    def page_sections(self) -> list[Section]:
        """The sections the page shows, those answering the study's question first."""
        return study_kinds.order_sections([s for s in self.sections if s.on_page], self.order)


def for_people(frame: pd.DataFrame) -> pd.DataFrame:
    """A table as shown to a reader: counts as integers. Seats keep the one numbering used
    everywhere (command line, records, docs: seat 0 plays first, R6)."""
    out = frame.copy()
    for column in out.columns:
        is_count = column.startswith("n_") or column in (
            "offered",
            "kept",
            "games",
            "kept_games",
            "successes",
            "n",
            "needed",
            "games_unpaired",
            "deals_paired",
            "deals",
            "lineups",
            "family",
            "family_size",
        )
        if is_count and pd.api.types.is_numeric_dtype(out[column]):
            values = out[column].dropna()
            whole = np.isfinite(values.astype(float)).all() and values.eq(values.round()).all()
            if whole:  # an infinite count ("never") stays a float
                out[column] = out[column].round().astype("Int64")
    return out
