"""What a report says about its study: its name and description, the question it asks (which
decides the order of the sections), the strategies' intents, the rulings it cites (quoted),
and what the simulated players know.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from .skill import search_labels

# Short quotes from the project's rules digest (docs/rules/rulings.md), by ruling number:
# every ruling the report cites is quoted in it (a reader should not need the digest at hand).
RULINGS = {
    6: 'Seat 0 starts (the rulebook\'s "youngest player"); play goes clockwise (seat order).',
    9: "Perfect recall: the circulation pile is face down, hidden from everyone including its "
    "owner (the rulebook lets beginners look at their own pile), but its content follows from "
    "public moves, so the engine may expose it to every observer.",
    12: "A colour in a rival's yard can be played only with strictly more cards than the "
    "rival's column of that colour; the rival then discards that whole column.",
    15: "The moment the train deck becomes empty the final round is triggered. The current "
    "turn finishes; then every player, the one who emptied the deck included, plays exactly "
    "one more turn, in seat order starting with the next seat.",
    16: "A destination is reached when its exact colour multiset is covered [by the "
    "circulation pile]; each card covers one requirement only; a locomotive covers any colour.",
    18: "[4 players] After the first resolution each player scores the destinations reached "
    "and sets them aside. Players keep their unreached destinations and the train cards in hand.",
    19: "[4 players] Every other train card is shuffled into a new train deck. Deal 4 cards to "
    "each player, turn 5 face up... When the deck is exhausted again, R15 and R16 apply once "
    "more, then the game ends.",
    20: "Score = points of all destinations reached, minus points of every destination still "
    "held unreached at the end of the game.",
    21: "Big cities: for each of the 6 cities, the player(s) with the most reached destinations "
    "naming that city (at least 1) score that city's bonus; ties all score.",
    22: "Winner: highest score; ties broken by most destinations reached, then by most big-city "
    "bonuses won; a tie still standing is a shared win.",
}

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
        ["players", "seats", "convergence", "points", "cities", "destinations"],
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


def _builtin_description(name: str) -> str:
    """The description of the built-in study of that name ('' for any other study): the
    results manifest does not carry it."""
    from sims import study
    from sims.errors import SimsError

    if name not in study.builtin_studies():
        return ""
    try:
        return study.load_study(name).description
    except SimsError:  # e.g. a strategy this install lacks: the results still report
        return ""


def study_info(study: dict, seats: pd.DataFrame) -> StudyInfo:
    """Name, description and question of the study behind a results folder."""
    name = str(study.get("name") or "study")
    description = str(study.get("description") or "") or _builtin_description(name)
    if name in QUESTIONS:
        kind = name
    elif study.get("sweeps"):
        kind = "sweeps"
    elif len(study.get("variants") or {}) > 1:
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


def cited_rulings(text: str) -> list[int]:
    """Every ruling number cited in a text (R9, R18-R19, R20-R22 ...), ranges expanded, with
    the rulings their own quotes cite."""
    found = set(_cited(text))
    for number in list(found):
        found.update(_cited(RULINGS.get(number, "")))
    return sorted(found)


def quoted_rulings(text: str) -> list[tuple[int, str]]:
    """Every ruling a text cites that ``RULINGS`` quotes, with its quote, in number order."""
    return [(n, RULINGS[n]) for n in cited_rulings(text) if n in RULINGS]


def _cited(text: str) -> list[int]:
    found: set[int] = set()
    for first, last in re.findall(r"\bR(\d+)(?:\s*-\s*R?(\d+))?\b", text):
        low = int(first)
        high = int(last) if last else low
        found.update(range(low, high + 1))
    return sorted(found)


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


def knowledge_sentence(seats: pd.DataFrame, specs: dict | None = None) -> str:
    """What the simulated players know, and what follows from it; ``specs`` (the study's
    configured strategies) names the seats with a human-like memory and the search seats."""
    present = set(seats["strategy"]) if "strategy" in seats else set()
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
            values = out[column]
            if values.dropna().eq(values.dropna().round()).all():
                out[column] = values.round().astype("Int64")
    return out
