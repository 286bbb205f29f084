"""The summary at the top of a report: the study's question answered per player count in at
most 150 words, each answer with a traffic light and the section it comes from.

Every answer is read off a verdict (reports/margins.py): a strongest strategy only when it
is separated from every other (else "tied: a, b"), the first seat's edge as yes, no (the
interval inside the margin) or not yet known (with the interval), each variant's and
sweep's verdict (a variant that edits a ticket, a bonus or a seat lever says first what that
did to it: reports/edit_effects.py), the cards out of line and the game length in turns per
player. Lights: green, settled; amber, not yet known; red, a balance problem (a first-seat
edge, cards out of line, a variant that worsens the edge); none for a plain measurement and
for "no card out of line found", which is absence of evidence, said with the smallest
shortfall the study could have flagged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .analysis import Analysis
from .margins import DIFFERENT, EQUAL

GREEN, AMBER, RED = "green", "amber", "red"
LIGHTS = {GREEN: "settled", AMBER: "not yet known", RED: "a balance problem"}
# red also marks an answer that other players overturn (reports/robustness.py)
OVERTURNED = "a balance problem, or an answer other players overturn"
MAX_WORDS = 150
MAX_NAMES = 3  # names in one cell; more are counted


@dataclass
class Cell:
    """One answer at one player count."""

    text: str
    light: str = ""  # GREEN, AMBER, RED or '' (a plain measurement)
    key: str | None = None  # what the verdict is, to compare with another study's: see verdict

    @property
    def verdict(self) -> str:
        """The answer without its sizes ("yes: +3.1 points" is "yes: + points"), so that two
        studies giving the same verdict with other estimates agree; a cell whose numbers are
        the verdict (the cards out of line) says so by its ``key``."""
        return self.key if self.key is not None else re.sub(r"\d+(\.\d+)?", "", self.text)


@dataclass
class Answer:
    """One row of the summary: a question, the section that answers it, a cell per column."""

    label: str
    key: str  # the section it links to
    cells: dict[str, Cell] = field(default_factory=dict)


@dataclass
class Summary:
    question: str
    columns: list[str]  # "2 players", ...
    answers: list[Answer]
    note: str  # the margins the verdicts use, in a line
    lights: dict[str, str] = field(default_factory=lambda: dict(LIGHTS))  # the legend

    def words(self) -> int:
        """Its length in words, as a reader counts them (question, labels, cells, note)."""
        text = " ".join(
            [self.question, *self.columns, self.note, *self.lights.values()]
            + [a.label for a in self.answers]
            + [c.text for a in self.answers for c in a.cells.values()]
        )
        return len(text.split())


def _column(players) -> str:
    return f"{int(players)} players"


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:MAX_NAMES])
    return shown + (f" +{len(names) - MAX_NAMES}" if len(names) > MAX_NAMES else "")


def _points(x: float) -> str:
    return f"{100 * x:+.1f}"


# ------------------------------------------------------------------ each answer
def strongest(analysis: Analysis) -> Answer | None:
    """The strongest strategy per player count, or the strategies tied at the top."""
    leaders = analysis.tables.get("leaders", pd.DataFrame())
    rows = leaders[leaders["players"] != "pooled"] if len(leaders) else leaders
    if rows.empty:
        return None
    answer = Answer("Strongest strategy", "strongest")
    for _, row in rows.iterrows():
        names = row["leaders"].split(", ")
        if row["verdict"] == DIFFERENT:
            cell = Cell(names[0], GREEN)
        elif row["verdict"] == EQUAL:
            cell = Cell(f"tied: {_names(names)}", GREEN)
        else:
            cell = Cell(f"not yet known: {_names(names)}", AMBER)
        answer.cells[_column(row["players"])] = cell
    return answer


def seat_edge(analysis: Analysis) -> Answer | None:
    """Does seat 0 have an edge? yes, no or not yet known, with its bound."""
    edge = analysis.tables.get("seat_edge", pd.DataFrame())
    if edge.empty:
        return None
    answer = Answer("First-seat edge", "seats")
    for _, row in edge.iterrows():
        if row["verdict"] == DIFFERENT:
            cell = Cell(f"yes: {_points(row['difference'])} points", RED)
        elif row["verdict"] == EQUAL and (row["family_low"] > 0 or row["family_high"] < 0):
            cell = Cell(
                f"no (within ±{100 * row['margin']:g}), surely not 0: "
                f"{_points(row['difference'])} points",
                GREEN,
                key="no (within ±)",  # the same verdict as a plain "no (within ±2)"
            )
        elif row["verdict"] == EQUAL:
            cell = Cell(f"no (within ±{100 * row['margin']:g})", GREEN)
        elif np.isfinite(row["family_low"]):  # the interval the verdict is read off
            cell = Cell(
                f"not yet known ({_points(row['family_low'])} to {_points(row['family_high'])})",
                AMBER,
            )
        else:
            cell = Cell("not yet known", AMBER)
        answer.cells[_column(row["players"])] = cell
    return answer


VARIANT_METRICS = {  # what a variant changes, in a cell's words
    "first_seat_win_share": ("seat 0", 100, " pts"),
    "turns": ("turns", 1, ""),
    "mean_score": ("score", 1, ""),
}


def _change_cell(rows: pd.DataFrame, edge: pd.Series | None) -> Cell:
    """A variant (or a sweep's value) at one player count: its biggest settled change in
    margins, whether it fixes the first seat's edge, else no change or not yet known."""
    if edge is not None and edge["change"] in ("fixes", "reduces", "worsens"):
        return Cell(f"{edge['change']} seat edge", RED if edge["change"] == "worsens" else GREEN)
    moved = rows[rows["verdict"] == DIFFERENT]
    if len(moved):
        size = (moved["difference"].abs() / moved["margin"]).astype(float)
        top = moved.loc[size.idxmax()]
        label, scale, unit = VARIANT_METRICS[top["metric"]]
        return Cell(f"{label} {top['difference'] * scale:+.1f}{unit}", GREEN)
    if len(rows) and (rows["verdict"] == EQUAL).all():
        return _equal_cell(rows, VARIANT_METRICS)
    return Cell("not yet known", AMBER)


NOT_ZERO = "practically equal, surely not 0:"


def _equal_cell(rows: pd.DataFrame, metrics: Mapping[str, tuple[str, float, str]]) -> Cell:
    """Every metric practically equal: "no change", unless some change is surely not zero
    (its family interval excludes 0), which is then named beside the verdict: a small real
    change is not no change."""
    low, high = ("family_low", "family_high") if "family_low" in rows else ("ci_low", "ci_high")
    if {low, high} <= set(rows):
        sure = rows[(rows[low] > 0) | (rows[high] < 0)]
        if len(sure):
            top = sure.loc[(sure["difference"].abs() / sure["margin"]).astype(float).idxmax()]
            label, scale, unit = metrics[top["metric"]]
            return Cell(f"{NOT_ZERO} {label} {top['difference'] * scale:+.1f}{unit}", GREEN)
    return Cell("no change", GREEN)


def _touched_cell(rows: pd.DataFrame) -> Cell:
    """What a variant's edits touched at one player count (reports/edit_effects.py): per
    edited ticket, bonus or seat lever its biggest settled change in margins ("#4 kept +19
    pts"), "unchanged" when every metric is practically equal, else "not yet known"; two
    things at most, more are counted."""
    from .edit_effects import METRICS

    parts, lights = [], []
    for item, mine in rows.groupby("item", sort=False):
        kind = mine["kind"].iloc[0]
        name = item.split()[0] if kind == "ticket" else "seats" if kind == "seat" else item
        moved = mine[mine["verdict"] == DIFFERENT]
        if len(moved):
            top = moved.loc[(moved["difference"].abs() / moved["margin"]).astype(float).idxmax()]
            _, label, scale, _ = METRICS[top["metric"]]
            unit = " pts" if scale == 100 else ""
            who = f" {top['who']}" if top["who"] else ""
            if top["kind"] == "seat":
                name, who = str(top["who"]), ""
            parts.append(f"{name} {label}{who} {top['difference'] * scale:+.1f}{unit}")
            lights.append(GREEN)
        elif (mine["verdict"] == EQUAL).all():
            parts.append(f"{name} unchanged")
            lights.append(GREEN)
        else:
            parts.append(f"{name} not yet known")
            lights.append(AMBER)
    text = ", ".join(parts[:MAX_TOUCHED])
    if len(parts) > MAX_TOUCHED:
        text += f" +{len(parts) - MAX_TOUCHED}"
    return Cell(text, AMBER if AMBER in lights else GREEN)


MAX_TOUCHED = 2  # edited things named in one cell
HEADLINE_WORDS = {"no change": "game unchanged", "not yet known": "game not yet known"}


def _headline(text: str) -> str:
    """A variant's headline after what its edits touched: "game unchanged", "game
    practically equal, surely not 0: score +0.3", ..."""
    if text.startswith(NOT_ZERO):
        return "game " + text
    return HEADLINE_WORDS.get(text, text)


def _with_touched(headline: Cell, touched: Cell) -> Cell:
    """A variant's cell that says what its edits touched first, then the game's headline
    change: an edit that moves its ticket is never "no change"."""
    text = f"{touched.text}; {_headline(headline.text)}"
    lights = {headline.light, touched.light}
    light = RED if RED in lights else AMBER if AMBER in lights else GREEN
    return Cell(text, light)


def variants(analysis: Analysis) -> list[Answer]:
    """Each rule variant's verdict per player count where it is played; a variant that edits
    a ticket, a bonus or a seat lever says first what that did to it."""
    table = analysis.tables.get("variants", pd.DataFrame())
    if table.empty:
        return []
    changes = analysis.tables.get("variant_edge_changes", pd.DataFrame())
    touched = analysis.tables.get("edit_effects", pd.DataFrame())
    answers = []
    for variant in sorted(set(table["variant"])):
        answer = Answer(variant, "variants")
        mine = table[(table["variant"] == variant) & table["metric"].isin(VARIANT_METRICS)]
        for players, rows in mine.groupby("players", sort=True):
            edge = changes[(changes["variant"] == variant) & (changes["players"] == players)]
            cell = _change_cell(rows, edge.iloc[0] if len(edge) else None)
            if len(touched):
                edits = touched[(touched["variant"] == variant) & (touched["players"] == players)]
                if len(edits):
                    cell = _with_touched(cell, _touched_cell(edits))
            answer.cells[_column(players)] = cell
        answers.append(answer)
    return answers


SWEEP_METRICS = {  # a sweep's metrics in a cell's words: label, scale, unit
    "first_seat_edge": ("seat 0", 100, " pts"),
    "turns": ("turns", 1, ""),
    "mean_score": ("score", 1, ""),
    "margin": ("margin", 1, ""),
    "keep_rate": ("card kept", 100, " pts"),
    "completion": ("card done", 100, " pts"),
    "points_per_game": ("card net", 1, ""),
}


def sweeps(analysis: Analysis) -> list[Answer]:
    """Each sweep per player count: its biggest settled change (at which value), no change
    beyond the margins, or not yet known."""
    answers = []
    for sweep in analysis.sweeps:
        answer = Answer(f"Sweep {sweep.name}", "sweeps")
        frames = {
            metric: frame[(frame["sweep"] == sweep.name) & ~frame["printed"]]
            for metric, frame in analysis.sweep_tables.items()
            if metric in SWEEP_METRICS
        }
        counts = sorted({int(p) for f in frames.values() for p in f["players"].unique()})
        for players in counts:
            rows = pd.concat(
                [f[f["players"] == players].assign(metric=m) for m, f in frames.items()],
                ignore_index=True,
            )
            moved = rows[rows["verdict"] == DIFFERENT]
            if len(moved):
                size = (moved["difference"].abs() / moved["margin"]).astype(float)
                top = moved.loc[size.idxmax()]
                label, scale, unit = SWEEP_METRICS[top["metric"]]
                text = f"{label} {top['difference'] * scale:+.1f}{unit} at {top['value']}"
                answer.cells[_column(players)] = Cell(text, GREEN)
            elif len(rows) and (rows["verdict"] == EQUAL).all():
                answer.cells[_column(players)] = _equal_cell(rows, SWEEP_METRICS)
            else:
                answer.cells[_column(players)] = Cell("not yet known", AMBER)
        answers.append(answer)
    return answers


def detectable(group: pd.DataFrame) -> float:
    """The net points when kept by which a typical tested card (the median over them) would
    have to fall short of its class to be flagged with 80% power (reports/destinations.py,
    ``detectable_net``); infinite when most could not be flagged however far below."""
    return float(group["detectable_below"].fillna(np.inf).median())


def cards(analysis: Analysis) -> Answer | None:
    """The destination cards out of line per player count, by number; "none found" is
    absence of evidence, not a settled answer: it carries no light and says the smallest
    deviation the study could have found."""
    table = analysis.tables.get("destinations", pd.DataFrame())
    if table.empty:
        return None
    answer = Answer("Cards out of line", "destinations")
    for players, group in table.groupby("players", sort=True):
        if not players:
            continue
        flagged = group[group["flag"] != ""].sort_values("p_holm")
        if group["tested"].sum() < 5:
            cell = Cell("too few games", AMBER)
        elif flagged.empty:
            below = detectable(group[group["tested"]])
            seen = (
                f"would flag {below:.1f} net pts below class"
                if np.isfinite(below)
                else "too few games to tell"
            )
            cell = Cell(f"none found; {seen}", key="none found")
        else:
            ids = [f"#{int(i)}" for i in flagged["destination_id"]]
            cell = Cell(_names(ids), RED, key=", ".join(sorted(ids)))
        answer.cells[_column(players)] = cell
    return answer if answer.cells else None


def length(analysis: Analysis) -> Answer | None:
    """Game length in each player's own turns."""
    table = analysis.tables.get("game_length", pd.DataFrame())
    rows = table[table["metric"] == "turns_per_player"] if len(table) else table
    if rows.empty:
        return None
    answer = Answer("Turns per player", "players")
    for _, row in rows.iterrows():
        answer.cells[_column(row["players"])] = Cell(f"{row['mean']:.0f}")
    return answer


def skill(analysis: Analysis) -> list[Answer]:
    """The skill ladder's two answers: how much of the score is skill, what memory is worth."""
    out = []
    share = analysis.tables.get("skill_share", pd.DataFrame())
    share = share[share["scope"] == "without random"] if len(share) else share
    if len(share):
        answer = Answer("Score variance from skill", "skill")
        for _, row in share.iterrows():
            answer.cells[_column(row["players"])] = Cell(f"{100 * row['share']:.0f}%")
        out.append(answer)
    memory = analysis.tables.get("memory_value", pd.DataFrame())
    if len(memory):
        memory = memory[(memory["measure"] == "win_share difference") & memory["p_value"].notna()]
    if len(memory):
        from .margins import judge

        judged = judge(
            memory.assign(df=memory["n"] - 1.0),
            analysis.margins["win_share"],
            [],
            estimate="value",
            df="df",
            n="n",
            family_name="the player counts together",
        )
        answer = Answer("Perfect memory's edge", "skill")
        for _, row in judged.iterrows():
            if row["verdict"] == DIFFERENT:
                cell = Cell(f"{_points(row['value'])} pts", GREEN)
            elif row["verdict"] == EQUAL:
                cell = Cell(f"none (within ±{100 * row['margin']:g})", GREEN)
            else:
                cell = Cell("not yet known", AMBER)
            answer.cells[_column(row["players"])] = cell
        out.append(answer)
    return out


# ------------------------------------------------------------------ the summary
def every_answer(analysis: Analysis) -> list[Answer]:
    """Every answer the analysis gives, in the summary's default order."""
    return [
        a
        for a in [
            strongest(analysis),
            seat_edge(analysis),
            *variants(analysis),
            *sweeps(analysis),
            *skill(analysis),
            cards(analysis),
            length(analysis),
        ]
        if a is not None and a.cells
    ]


def summary(
    analysis: Analysis, question: str, order: list[str], extra: list[Answer] | None = None
) -> Summary:
    """The answers to the study's question, those its question asks first; ``extra`` rows
    (whether the answers hold for other players: reports/robustness.py) come last."""
    answers = every_answer(analysis)
    rank = {key: i for i, key in enumerate(order)}
    answers.sort(key=lambda a: rank.get(a.key, len(order)))
    answers += extra or []
    counts = sorted({int(p) for p in analysis.seats["players"].unique()})
    m = analysis.margins
    note = (
        f"Margins: ±{100 * m['win_share']:g} points of win share, ±{m['log_odds']:g} "
        f"log-odds, ±{m['score']:g} score, ±{m['turns']:g} turn."
    )
    lights = dict(LIGHTS)
    if any(cell.light == RED for a in extra or [] for cell in a.cells.values()):
        lights[RED] = OVERTURNED
    return Summary(question, [_column(p) for p in counts], answers, note, lights)
