"""The judge of a look of a study played until settled (sims/looks.py, sims/runner.py): the
summary's questions that the look leaves open.

A question is open at a player count where its summary cell is amber (not yet known). Cells
without a light are no verdict and never hold a run: a plain measurement (turns per player)
or absence of evidence ("no card out of line found", which more games never turn into a
verdict; its cell says the smallest shortfall the study could have found). The cards'
question is not read at a look at all: it is only ever red (a card out of line, settled) or
without a light. The runner finds this judge through the ``cardgame.judges`` entry point,
so the simulation layer never imports the report's.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from sims.errors import ResultsError
from sims.plan import Plan
from sims.results import load_results

from .analysis import Analysis, analyse
from .answers import AMBER, every_answer


def open_questions(folder: Path, plan: Plan) -> list[str]:
    """What ``plan``'s look leaves open in ``folder``, as "question at N players" lines."""
    results = load_results(folder, destinations=False)
    if len(results.games) != plan.total_games:
        raise ResultsError(
            f"{folder}: holds {len(results.games):,} games, its look {plan.look + 1} has "
            f"{plan.total_games:,}"
        )
    analysis = analyse(replace(results, plan=plan), plan.total_games, summary_only=True)
    return [
        f"{_question(answer.label)} at {column}"
        for answer in every_answer(analysis)
        for column, cell in answer.cells.items()
        if cell.light == AMBER
    ]


# the summary's rows whose open cells say how many games would settle them, and their tables
SCALED = {"Strongest strategy": "leaders", "First-seat edge": "seat_edge"}


def growth_needed(row: pd.Series) -> float:
    """How many times its games a comparison needs for its family interval to settle if
    its estimate stays where it is: wide intervals narrow as 1/sqrt(games), and it settles
    once the half-width is below the estimate's distance to 0 (different) or to the margin
    (practically equal), whichever is larger. NaN where the row has no interval."""
    half = (float(row["family_high"]) - float(row["family_low"])) / 2
    distance = max(abs(float(row["difference"])), float(row["margin"]) - abs(row["difference"]))
    if not (np.isfinite(half) and half > 0 and np.isfinite(distance) and distance > 0):
        return math.nan
    return (half / distance) ** 2


def looks_note(analysis: Analysis) -> str:
    """For a study played until settled: where it stopped, the level its verdicts are read
    at, and what its cap left open with the games that would settle each; else ''."""
    plan = analysis.results.plan
    if not plan.until_settled:
        return ""
    at = f"look {plan.look + 1} of {len(plan.look_factors)} ({plan.total_games:,} games)"
    level = (
        f"each look's verdicts are read at its share of the 5% level (this one's: "
        f"{analysis.alpha:.2g}), so they hold at 5% however early the run stopped"
    )
    left = [a for a in every_answer(analysis) if any(c.light == AMBER for c in a.cells.values())]
    if not left:
        return f"Played until settled: every question was answered at {at}; {level}."
    parts = []
    for answer in left:
        columns = [column for column, cell in answer.cells.items() if cell.light == AMBER]
        counts = [int(column.split()[0]) for column in columns]
        text = f"{_question(answer.label)} at {_counts(counts)} players"
        growth = _growth(analysis, answer.label, counts)
        if np.isfinite(growth):
            games = math.ceil(growth * plan.total_games / 1000) * 1000
            text += f" (about {games:,} games in all, if the estimates hold)"
        parts.append(text)
    return (
        f"Played until settled: the cap of {plan.max_games:,} games stopped it at {at}, "
        f"leaving open the {'; the '.join(parts)}; {level}."
    )


def _growth(analysis: Analysis, label: str, counts: list[int]) -> float:
    table = analysis.tables.get(SCALED.get(label, ""), pd.DataFrame())
    if table.empty:
        return math.nan
    rows = table[table["players"].astype(str).isin([str(n) for n in counts])]
    found = [growth_needed(row) for _, row in rows.iterrows()]
    found = [g for g in found if np.isfinite(g)]
    return max(found) if found else math.nan


def _question(label: str) -> str:
    """A summary row's label inside a sentence: "Strongest strategy" -> "strongest strategy"."""
    return label[:1].lower() + label[1:]


def _counts(counts: list[int]) -> str:
    shown = [str(n) for n in counts]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
