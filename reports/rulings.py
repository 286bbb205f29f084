"""The rulings a report cites, quoted: a reader should not need the digest at hand."""

from __future__ import annotations

import re

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
