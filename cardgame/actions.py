"""Actions a seat can take (R5, R10-R14) as small immutable values.

Every possible action object is built once at import and shared, so that enumerating the
legal actions allocates nothing but the list (the Monte Carlo enumerates millions).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

from .cards import COLOUR_INDEX, COLOURS, LOCOMOTIVES, NUM_COLOURS, WAGONS_PER_COLOUR

MAX_FACE_UP = 10


@dataclass(frozen=True, slots=True)
class DrawDeck:
    """Take the top card of the train deck (R10)."""

    def __str__(self) -> str:
        return "draw from the deck"


@dataclass(frozen=True, slots=True)
class DrawFaceUp:
    """Take the face-up card in ``slot`` (R10); a locomotive only as a first pick."""

    slot: int

    def __str__(self) -> str:
        return f"draw face-up slot {self.slot}"


@dataclass(frozen=True, slots=True)
class PlaceColumn:
    """Place a column of one colour: ``wagons`` of ``colour`` plus ``locos`` (R12a)."""

    colour: int
    wagons: int
    locos: int

    @property
    def size(self) -> int:
        return self.wagons + self.locos

    def __str__(self) -> str:
        extra = f" + {self.locos} locomotive(s)" if self.locos else ""
        return f"place {self.wagons} {COLOURS[self.colour]}{extra}"


@dataclass(frozen=True, slots=True)
class PlaceThree:
    """Place exactly three wagons of three different colours (R12b)."""

    colours: tuple[int, int, int]

    def __str__(self) -> str:
        return "place 1 each of " + ", ".join(COLOURS[c] for c in self.colours)


@dataclass(frozen=True, slots=True)
class DrawDestinations:
    """Draw the top destination cards (R13); the keep comes as the next decision."""

    def __str__(self) -> str:
        return "draw destinations"


@dataclass(frozen=True, slots=True)
class KeepDestinations:
    """Keep these destination ids from the offer (setup R5, or after a draw R13)."""

    ids: tuple[int, ...]

    def __str__(self) -> str:
        return "keep destinations " + (", ".join(f"#{i}" for i in self.ids) or "none")


@dataclass(frozen=True, slots=True)
class Pass:
    """No action is legal (R14)."""

    def __str__(self) -> str:
        return "pass"


Action = (
    DrawDeck | DrawFaceUp | PlaceColumn | PlaceThree | DrawDestinations | KeepDestinations | Pass
)

DRAW_DECK = DrawDeck()
DRAW_DESTINATIONS = DrawDestinations()
PASS = Pass()
DRAW_FACE_UP: tuple[DrawFaceUp, ...] = tuple(DrawFaceUp(s) for s in range(MAX_FACE_UP))
# COLUMNS[colour][wagons][locos]
COLUMNS: tuple[tuple[tuple[PlaceColumn, ...], ...], ...] = tuple(
    tuple(
        tuple(PlaceColumn(c, w, lo) for lo in range(LOCOMOTIVES + 1))
        for w in range(WAGONS_PER_COLOUR + 1)
    )
    for c in range(NUM_COLOURS)
)
THREES: dict[tuple[int, int, int], PlaceThree] = {
    combo: PlaceThree(combo) for combo in combinations(range(NUM_COLOURS), 3)
}


def to_dict(action: Action) -> dict[str, Any]:
    """The action as JSON-ready data (record format, docs/record-format.md)."""
    match action:
        case DrawDeck():
            return {"type": "draw_deck"}
        case DrawFaceUp(slot):
            return {"type": "draw_face_up", "slot": slot}
        case PlaceColumn(colour, wagons, locos):
            return {
                "type": "place_column",
                "colour": COLOURS[colour],
                "wagons": wagons,
                "locos": locos,
            }
        case PlaceThree(colours):
            return {"type": "place_three", "colours": [COLOURS[c] for c in colours]}
        case DrawDestinations():
            return {"type": "draw_destinations"}
        case KeepDestinations(ids):
            return {"type": "keep_destinations", "ids": list(ids)}
        case Pass():
            return {"type": "pass"}
    raise TypeError(f"not an action: {action!r}")


def from_dict(data: dict[str, Any]) -> Action:
    """Parse an action written by ``to_dict``; raises ValueError naming the problem."""
    kind = data.get("type")
    try:
        if kind == "draw_deck":
            return DRAW_DECK
        if kind == "draw_face_up":
            return DRAW_FACE_UP[int(data["slot"])]
        if kind == "place_column":
            return COLUMNS[COLOUR_INDEX[data["colour"]]][int(data["wagons"])][int(data["locos"])]
        if kind == "place_three":
            combo = tuple(sorted(COLOUR_INDEX[c] for c in data["colours"]))
            return THREES[combo]  # type: ignore[index]
        if kind == "draw_destinations":
            return DRAW_DESTINATIONS
        if kind == "keep_destinations":
            return KeepDestinations(tuple(int(i) for i in data["ids"]))
        if kind == "pass":
            return PASS
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ValueError(f"malformed {kind} action: {data!r} ({exc})") from None
    raise ValueError(f"unknown action type {kind!r}")
