"""Whether the study's answers hold for other players: its checks (``sims.plan.Plan.
check_plans``) replayed the games with other players, and each summary answer of the study is
set beside the same answer read off a check's games.

- ``knobs``: where the players were adapted to each design (sims/adapt.py), the very same
  games (cells and deals) with the study's own knobs. An answer that differs there is one the
  adaptation changed: a verdict for players who did not notice the edit would be another.
- ``search``: every seat the search player (ISMCTS), which reads every rule and card value
  through the engine, on the check's deals of every design. It answers everything but which
  strategy is strongest (every seat plays the same).

An answer *holds* when the check gives the same verdict (its sizes aside: "yes: +3.1 points"
and "yes: +4.0 points" agree), *differs* when both are settled and disagree, and is *not yet
known* when either is not settled (an amber answer, or a check's answer with no light: "none
found" is no evidence of absence): a check of few deals says so rather than overturn a
settled answer. A plain measurement (turns per player) is shown, not judged.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .analysis import Analysis
from .answers import (
    AMBER,
    GREEN,
    RED,
    SWEEP_METRICS,
    VARIANT_METRICS,
    Answer,
    Cell,
    every_answer,
)
from .document import Section, Table
from .margins import DIFFERENT, EQUAL

HOLDS, DIFFERS, UNKNOWN, UNCHECKED, SHOWN = (
    "holds",
    "differs",
    "not yet known",
    "not checked",
    "shown",
)


@dataclass(frozen=True)
class CheckKind:
    """How a check is named on the page."""

    title: str  # "for players who search"
    players: str  # who played the check's games, in a clause
    unchecked: tuple[str, ...] = ()  # answers the check cannot give, by label


KINDS = {
    "knobs": CheckKind(
        "with the study's own knobs",
        "the same deals played with the study's own knobs instead of the adapted ones",
    ),
    "search": CheckKind(
        "for players who search",
        "the search player (ISMCTS) in every seat, which reads every rule and card value "
        "through the engine",
        unchecked=("Strongest strategy",),
    ),
}


def verdict_answers(analysis: Analysis) -> list[Answer]:
    """The summary's answers, with each variant and sweep value judged metric by metric (the
    summary shows a variant's biggest change only: a check that settles another change first
    would seem to disagree)."""
    judged = [
        answer for answer in every_answer(analysis) if answer.key not in ("variants", "sweeps")
    ]
    variants = analysis.tables.get("variants", pd.DataFrame())
    if len(variants):
        rows = variants[variants["metric"].isin(VARIANT_METRICS)]
        for (variant, metric), group in rows.groupby(["variant", "metric"], sort=True):
            label, scale, unit = VARIANT_METRICS[metric]
            judged.append(_metric_answer(f"{variant}: {label}", group, scale, unit))
    for sweep in analysis.sweeps:
        for metric, frame in analysis.sweep_tables.items():
            if metric not in SWEEP_METRICS or "strategy" in frame:
                continue
            rows = frame[(frame["sweep"] == sweep.name) & ~frame["printed"]]
            label, scale, unit = SWEEP_METRICS[metric]
            for value, group in rows.groupby("value", sort=False):
                judged.append(
                    _metric_answer(f"{sweep.name} = {value}: {label}", group, scale, unit)
                )
    return judged


def _metric_answer(label: str, rows: pd.DataFrame, scale: float, unit: str) -> Answer:
    """One metric's change at each player count: different (with its sign), practically
    equal, or not yet known."""
    answer = Answer(label, "checks")
    for _, row in rows.iterrows():
        shown = f"{row['difference'] * scale:+.1f}{unit}"
        if row["verdict"] == DIFFERENT:
            cell = Cell(shown, GREEN, key="up" if row["difference"] > 0 else "down")
        elif row["verdict"] == EQUAL:
            cell = Cell(f"no change ({shown})", GREEN, key="no change")
        else:
            cell = Cell(f"not yet known ({shown})", AMBER)
        answer.cells[f"{int(row['players'])} players"] = cell
    return answer


def compare(study: list[Answer], check: list[Answer], kind: CheckKind) -> pd.DataFrame:
    """One row per answer and player count of the study: its answer, the check's, and whether
    it holds there."""
    theirs = {answer.label: answer.cells for answer in check}
    rows = []
    for answer in study:
        for column, cell in answer.cells.items():
            other = theirs.get(answer.label, {}).get(column)
            rows.append(
                {
                    "answer": answer.label,
                    "players": column,
                    "study": cell.text,
                    "check": other.text if other is not None else "",
                    "holds": _holds(answer.label, cell, other, kind),
                }
            )
    return pd.DataFrame(rows, columns=["answer", "players", "study", "check", "holds"])


def _holds(label: str, mine: Cell, theirs: Cell | None, kind: CheckKind) -> str:
    if label in kind.unchecked or theirs is None:
        return UNCHECKED
    if not mine.light:
        return SHOWN
    if AMBER in (mine.light, theirs.light) or not theirs.light:  # the check settles nothing
        return UNKNOWN
    return HOLDS if mine.verdict == theirs.verdict else DIFFERS


def comparisons(analysis: Analysis) -> dict[str, pd.DataFrame]:
    """Each check the study played, compared with the study's answers."""
    mine = verdict_answers(analysis)
    return {
        name: compare(mine, verdict_answers(check), KINDS[name])
        for name, check in analysis.checks.items()
        if name in KINDS
    }


def summary_rows(checked: dict[str, pd.DataFrame]) -> list[Answer]:
    """A summary row per check (``comparisons``): per player count, whether every judged
    answer holds, which differ, or which are not yet known."""
    out = []
    for name, table in checked.items():
        answer = Answer(f"Holds {KINDS[name].title}", "checks")
        for column, rows in table.groupby("players", sort=False):
            differs = list(rows.loc[rows["holds"] == DIFFERS, "answer"])
            unknown = rows["holds"] == UNKNOWN
            if differs:
                answer.cells[column] = Cell(f"differs: {_short(differs)}", RED)
            elif unknown.any():
                answer.cells[column] = Cell(
                    f"not yet known: {_short(list(rows.loc[unknown, 'answer']))}", AMBER
                )
            elif (rows["holds"] == HOLDS).any():
                answer.cells[column] = Cell("all hold", GREEN)
        if answer.cells:
            out.append(answer)
    return out


def _short(labels: list[str]) -> str:
    shown = ", ".join(label.lower() if label[:1].isupper() else label for label in labels[:2])
    return shown + (f" +{len(labels) - 2}" if len(labels) > 2 else "")


def robustness_section(analysis: Analysis, tables: dict[str, pd.DataFrame]) -> Section | None:
    """The page's section: per check (``comparisons``), what it played and how each answer
    fares there."""
    if not tables:
        return None
    lines, shown = [], []
    for name, table in tables.items():
        kind, check = KINDS[name], analysis.checks[name]
        judged = table[table["holds"].isin([HOLDS, DIFFERS, UNKNOWN])]
        counts = judged["holds"].value_counts()
        differs = judged[judged["holds"] == DIFFERS]
        held = counts.get(HOLDS, 0)
        sentence = (
            f"{kind.title.capitalize()} ({len(check.games):,} games: {kind.players}): "
            f"{held} of {len(judged)} answers {'holds' if held == 1 else 'hold'}"
        )
        if len(differs):
            sentence += "; differs: " + "; ".join(
                f"{row.answer} at {row.players} ({row.study} in the study, {row.check} here)"
                for row in differs.itertuples()
            )
        if counts.get(UNKNOWN, 0):
            sentence += f"; {counts[UNKNOWN]} not yet known (one side not settled)"
        lines.append(sentence + ".")
        shown.append(Table(f"check_{name}", table))
    intro = (
        "The study's answers, replayed with other players on their own games: an answer holds "
        "when the check gives the same verdict (its sizes aside), differs when both are "
        "settled and disagree, and is not yet known when either is not settled. " + " ".join(lines)
    )
    return Section(
        key="checks",
        title="Do the answers hold for other players?",
        intro=intro,
        tables=shown,
        summary=[" ".join(lines)],
    )
