"""What a report says about its study: its name and description, the question it asks (which
decides the order of the sections), the strategies' intents and what the simulated players
know.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .skill import search_labels

# docs/rules/cardgame-rulebook-fr.txt: the circulation pile is hidden even from its owner
RULEBOOK_HIDDEN = "restent cachées de tous, y compris du joueur qui les a mises en circulation"

# The question each built-in study asks and the section keys that answer it, first.
QUESTIONS = {
    "strategy-ladder": (
        "Which strategy is strongest at each player count, and does the seat order matter?",
        ["strongest", "convergence", "seats", "points", "players", "destinations", "cities"],
    ),
    "player-counts": (
        "How does the game change from 2 to 3 to 4 players when every seat plays well?",
        ["players", "quality", "seats", "convergence", "points", "cities", "destinations"],
    ),
    "destinations": (
        "Which destination cards are out of line with cards of their printed points and trains?",
        ["destinations", "cities", "strongest", "convergence", "seats", "points", "players"],
    ),
    "variants": (
        "What does each rule variant change against the printed game?",
        ["variants", "strongest", "convergence", "seats", "players", "points"],
    ),
    "sweeps": (
        "What does each swept value change against the printed game?",
        ["sweeps", "variants", "seats", "strongest", "convergence", "players", "points"],
    ),
    "skill": (
        "How far apart are the players, from random through the heuristics to search, how "
        "much of a game is skill, and what is memory worth?",
        ["skill", "strongest", "convergence", "points", "seats", "players"],
    ),
}


@dataclass(frozen=True)
class StudyInfo:
    name: str
    description: str
    kind: str  # a built-in study's name, or the closest kind for a custom study
    question: str
    order: list[str]


def study_info(study: dict, seats: pd.DataFrame, description: str = "") -> StudyInfo:
    """Name, description (the plan's) and question of the study behind a results folder."""
    name = str(study.get("name") or "study")
    description = str(study.get("description") or "") or description
    if name in QUESTIONS:
        kind = name
    elif study.get("sweeps"):
        kind = "sweeps"
    elif isinstance(study.get("variants"), dict) and len(study["variants"]) > 1:
        kind = "variants"
    elif _seats_search(study, seats):
        kind = "skill"
    elif alone_everywhere(seats):
        kind = "player-counts"
    else:
        kind = "strategy-ladder"
    question, order = QUESTIONS[kind]
    return StudyInfo(name, description, kind, question, order)


def _seats_search(study: dict, seats: pd.DataFrame) -> bool:
    """A custom study seating a search player beside others asks the skill question."""
    from .skill import applies

    return applies(study, seats)


def alone_everywhere(seats: pd.DataFrame) -> bool:
    """True when every table seats one strategy only: no strategy meets another."""
    per_game = seats.groupby(["cell", "game_index"])["strategy"].nunique()
    return bool(len(per_game)) and bool((per_game == 1).all())


def order_sections(sections: list, order: list[str]) -> list:
    """The sections answering the study's question first (in that order); every other
    section keeps its place after them."""
    rank = {key: i for i, key in enumerate(order)}
    return sorted(sections, key=lambda s: rank.get(getattr(s, "key", ""), len(order)))


def strategy_intents(strategies: list[str], specs: dict | None = None) -> dict[str, str]:
    """Each strategy's intent (its class's ``intent``); a configured label names its base."""
    from sims.strategy import registered

    classes = registered()
    out = {}
    for label in strategies:
        base = ((specs or {}).get(label) or {}).get("base", label)
        intent = getattr(classes.get(base), "intent", "") or "no intent given"
        out[label] = intent if base == label else f"{intent} (based on {base})"
    return out


def completion_rates(seats: pd.DataFrame) -> dict[int, float]:
    """Share of the destinations kept that were reached, per player count."""
    sums = seats.groupby("players")[["reached", "kept"]].sum()
    sums = sums[sums["kept"] > 0]
    return {int(p): float(r["reached"] / r["kept"]) for p, r in sums.iterrows()}


def adaptation_sentence(adaptations: tuple[Mapping[str, Any], ...]) -> str:
    """Whose knobs were adapted to which design before the games, and what each gained held
    out ('' when the study adapted none: sims/adapt.py)."""
    if not adaptations:
        return ""
    parts = [
        f"{a['label']} on {a['variant']} {a['start_share']:.0%} -> {a['adapted_share']:.0%}"
        + ("" if a["used"] else " (not better: its study knobs stayed)")
        for a in adaptations
    ]
    return (
        " The scripted players were adapted to each design before the games (docs/"
        "strategies.md: a search of their knobs against the study's other seats, kept only "
        "where it won more held-out games than the study's knobs): held-out win share "
        + "; ".join(parts)
        + ". The verdicts here are for these adapted players."
    )


def knowledge_sentence(seats: pd.DataFrame, specs: dict | None = None) -> str:
    """What the simulated players know, and what follows from it; ``specs`` (the study's
    configured strategies) names the seats with a human-like memory and the search seats."""
    present = set(seats["strategy"].unique()) if "strategy" in seats else set()
    specs = specs or {}
    forgetful = {
        label: (spec.get("knobs") or {})
        for label, spec in specs.items()
        if label in present and (spec.get("knobs") or {}).get("memory") == "human"
    }
    searchers = sorted(search_labels(present, specs))  # the skill section's own rule
    recall_seats = seats[~seats["strategy"].isin(list(forgetful))] if forgetful else seats
    rates = completion_rates(recall_seats)
    shown = ", ".join(f"{100 * r:.0f}% at {p} players" for p, r in rates.items())
    if forgetful:
        models = "; ".join(
            f"{label}: each card reaching its pile recalled with probability "
            f"{knobs.get('recall', 0.7):g}"
            for label, knobs in sorted(forgetful.items())
        )
        recall = (
            f"every seat sees everything public (R9); all but {', '.join(sorted(forgetful))} "
            "have perfect recall of their own circulation pile, and those play with a "
            f"human-like memory of it ({models}; docs/strategies.md). "
        )
    else:
        recall = (
            "every seat has perfect recall of its own circulation pile and of everything "
            "public (R9). "
        )
    search = (
        f" {', '.join(searchers)} also remember{'s' if len(searchers) == 1 else ''} the "
        "game's public history (cards rivals took face up and have not played since, how "
        "many destinations each kept) and search worlds consistent with it (docs/search.md); "
        "the other strategies decide from what they see at each decision."
        if searchers
        else ""
    )
    return (
        "What the simulated players know: "
        + recall
        + "The printed rulebook hides that pile even from its owner: the cards "
        f'"{RULEBOOK_HIDDEN}" (docs/rules/cardgame-rulebook-fr.txt). '
        "Players who know exactly which train cards they have in circulation rarely keep a "
        "destination they cannot reach"
        + (f": here they completed {shown} of the destinations they kept" if shown else "")
        + ". Human players, who must remember their pile, are likely to complete fewer and lose "
        "more to penalties: the completion rates of perfect recall are an upper bound for people."
        + search
    )
