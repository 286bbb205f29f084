"""Actions a seat can take (R5, R10-R14) as small immutable values, and which are legal.

Every possible action object is built once at import and shared, so that enumerating the
legal actions allocates nothing but the list (the Monte Carlo enumerates millions).

Legality is a pure function of what the seat to move may know (R9): the public table plus
its own hand and offer. ``legal_actions`` and ``problem`` take exactly those fields, so the
game state and a seat's view (``observation.SeatView``) share one implementation. A game's
colours are its hand's counts but the last, the locomotive's (``len(hand) - 1``), so the
same code serves an edition of any colours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from itertools import combinations
from types import MappingProxyType
from typing import Any, NamedTuple

from .cards import (
    COLOURS,
    LOCO,
    MAX_COLOURS,
    MAX_LOCOMOTIVES,
    MAX_WAGONS_PER_COLOUR,
    card_names,
    colour_name,
)
from .layout import MAX_FACE_UP, MIN_COLUMN, NO_CARD, NOBODY
from .value import Value


class Phase(IntEnum):
    """Which decision the state waits for."""

    SETUP_KEEP = 0  # a seat chooses which dealt destinations to keep (R5)
    TURN = 1  # step 2 of a turn: choose the action (R10-R14)
    # one train card, then the turn ends: the second of a draw (R10, R11), or the whole of
    # the first seat's first turn under the lever first_turn = "one_card" (docs/rules.md)
    SECOND_PICK = 2
    KEEP_DRAWN = 3  # keep some of the destinations just drawn (R13)
    OVER = 4


# Module-level aliases: a global lookup is ten times cheaper than Phase.X on the hot path.
SETUP_KEEP, TURN, SECOND_PICK, KEEP_DRAWN, OVER = (
    Phase.SETUP_KEEP,
    Phase.TURN,
    Phase.SECOND_PICK,
    Phase.KEEP_DRAWN,
    Phase.OVER,
)


class _DrawDeckFields(NamedTuple):
    pass


class DrawDeck(Value, _DrawDeckFields):
    """Take the top card of the train deck (R10)."""

    __slots__ = ()

    def __str__(self) -> str:
        return "draw from the deck"


class _DrawFaceUpFields(NamedTuple):
    slot: int


class DrawFaceUp(Value, _DrawFaceUpFields):
    """Take the face-up card in ``slot`` (R10); a locomotive only as a first pick."""

    __slots__ = ()

    def __str__(self) -> str:
        return f"draw face-up slot {self.slot}"


class _PlaceColumnFields(NamedTuple):
    colour: int
    wagons: int
    locos: int


class PlaceColumn(Value, _PlaceColumnFields):
    """Place a column of one colour: ``wagons`` of ``colour`` plus ``locos`` (R12a)."""

    __slots__ = ()

    @property
    def size(self) -> int:
        return self.wagons + self.locos

    def __str__(self) -> str:
        extra = f" + {self.locos} locomotive(s)" if self.locos else ""
        return f"place {self.wagons} {colour_name(self.colour)}{extra}"


class _PlaceThreeFields(NamedTuple):
    colours: tuple[int, int, int]


class PlaceThree(Value, _PlaceThreeFields):
    """Place exactly three wagons of three different colours (R12b)."""

    __slots__ = ()

    def __str__(self) -> str:
        return "place 1 each of " + ", ".join(colour_name(c) for c in self.colours)


class _DrawDestinationsFields(NamedTuple):
    pass


class DrawDestinations(Value, _DrawDestinationsFields):
    """Draw the top destination cards (R13); the keep comes as the next decision."""

    __slots__ = ()

    def __str__(self) -> str:
        return "draw destinations"


class _KeepDestinationsFields(NamedTuple):
    ids: tuple[int, ...]


class KeepDestinations(Value, _KeepDestinationsFields):
    """Keep these destination ids from the offer (setup R5, or after a draw R13)."""

    __slots__ = ()

    def __str__(self) -> str:
        return "keep destinations " + (", ".join(f"#{i}" for i in self.ids) or "none")


class _PassFields(NamedTuple):
    pass


class Pass(Value, _PassFields):
    """No action is legal (R14)."""

    __slots__ = ()

    def __str__(self) -> str:
        return "pass"


Action = (
    DrawDeck | DrawFaceUp | PlaceColumn | PlaceThree | DrawDestinations | KeepDestinations | Pass
)

DRAW_DECK = DrawDeck()
DRAW_DESTINATIONS = DrawDestinations()
PASS = Pass()
DRAW_FACE_UP: tuple[DrawFaceUp, ...] = tuple(DrawFaceUp(s) for s in range(MAX_FACE_UP))
# COLUMNS[colour][wagons][locos], up to the largest deck a game may have (cardgame/layout.py)
COLUMNS: tuple[tuple[tuple[PlaceColumn, ...], ...], ...] = tuple(
    tuple(
        tuple(PlaceColumn(c, w, lo) for lo in range(MAX_LOCOMOTIVES + 1))
        for w in range(MAX_WAGONS_PER_COLOUR + 1)
    )
    for c in range(MAX_COLOURS)
)
THREES: Mapping[tuple[int, int, int], PlaceThree] = MappingProxyType(
    {combo: PlaceThree(combo) for combo in combinations(range(MAX_COLOURS), 3)}
)


def to_dict(action: Action, colours: tuple[str, ...] = COLOURS) -> dict[str, Any]:
    """The action as JSON-ready data (record format, docs/record-format.md); ``colours``:
    the game's colour names (``Catalogue.colours``)."""
    match action:
        case DrawDeck():
            return {"type": "draw_deck"}
        case DrawFaceUp(slot):
            return {"type": "draw_face_up", "slot": slot}
        case PlaceColumn(colour, wagons, locos):
            return {
                "type": "place_column",
                "colour": colours[colour],
                "wagons": wagons,
                "locos": locos,
            }
        case PlaceThree(three):
            return {"type": "place_three", "colours": [colours[c] for c in three]}
        case DrawDestinations():
            return {"type": "draw_destinations"}
        case KeepDestinations(ids):
            return {"type": "keep_destinations", "ids": list(ids)}
        case Pass():
            return {"type": "pass"}
    raise TypeError(f"not an action: {action!r}")


def from_dict(data: dict[str, Any], colours: tuple[str, ...] = COLOURS) -> Action:
    """Parse an action written by ``to_dict``; raises ValueError naming the problem."""
    kind = data.get("type")
    index = {name: i for i, name in enumerate(colours)}
    try:
        if kind == "draw_deck":
            return DRAW_DECK
        if kind == "draw_face_up":
            return DRAW_FACE_UP[int(data["slot"])]
        if kind == "place_column":
            return COLUMNS[index[data["colour"]]][int(data["wagons"])][int(data["locos"])]
        if kind == "place_three":
            combo = tuple(sorted(index[c] for c in data["colours"]))
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


# ------------------------------------------------------------------ legality
# The arguments are what the seat to move may know: ``hand`` and ``offer`` are its own;
# ``deck`` and ``dest_deck`` are only tested for being non-empty (a list or a size).
Ruling = tuple[str, str]  # (ruling, reason)


def legal_actions(
    phase: int,
    seat: int,
    hand: Sequence[int],
    owner: Sequence[int],
    yard_wagons: Sequence[int],
    yard_locos: Sequence[int],
    face_up: Sequence[int],
    deck: object,
    dest_deck: object,
    offer: Sequence[int],
    min_keep: int,
) -> list[Action]:
    """Every action the seat to move may take, in a fixed order."""
    if phase == TURN:
        return turn_actions(seat, hand, owner, yard_wagons, yard_locos, face_up, deck, dest_deck)
    if phase == SECOND_PICK:
        return second_picks(face_up, deck, len(hand) - 1)
    if phase == SETUP_KEEP:
        return keep_subsets(offer, min_keep)
    if phase == KEEP_DRAWN:
        return keep_subsets(offer, 0)
    return []


def turn_actions(
    seat: int,
    hand: Sequence[int],
    owner: Sequence[int],
    yard_wagons: Sequence[int],
    yard_locos: Sequence[int],
    face_up: Sequence[int],
    deck: object,
    dest_deck: object,
) -> list[Action]:
    out: list[Action] = []
    if deck:
        out.append(DRAW_DECK)
    slots = DRAW_FACE_UP
    for slot, card in enumerate(face_up):
        if card != NO_CARD:
            out.append(slots[slot])
    out.extend(placements(seat, hand, owner, yard_wagons, yard_locos))
    if dest_deck:
        out.append(DRAW_DESTINATIONS)
    if not out:
        out.append(PASS)  # R14
    return out


def second_picks(face_up: Sequence[int], deck: object, loco: int = LOCO) -> list[Action]:
    """``loco``: the game's locomotive kind (its colours' count)."""
    out: list[Action] = [DRAW_DECK] if deck else []
    slots = DRAW_FACE_UP
    for slot, card in enumerate(face_up):
        if card != NO_CARD and card != loco:  # R10: face-up locomotive first pick only
            out.append(slots[slot])
    return out


def placements(
    seat: int,
    hand: Sequence[int],
    owner: Sequence[int],
    yard_wagons: Sequence[int],
    yard_locos: Sequence[int],
) -> list[Action]:
    """Columns (R12a) and three-colour plays (R12b) from the hand of the seat to move."""
    colours = len(hand) - 1
    locos = hand[colours]
    out: list[Action] = []
    free: list[int] = []
    columns = COLUMNS
    for c in range(colours):
        have = hand[c]
        if not have:
            continue
        holder = owner[c]
        if holder == seat:
            continue  # R12: own colour banned
        if holder == NOBODY:
            free.append(c)
            need = MIN_COLUMN
        else:
            need = cards_to_beat(yard_wagons[c] + yard_locos[c])
        table = columns[c]
        for w in range(1, have + 1):
            start = need - w if need > w else 0
            if start <= locos:
                row = table[w]
                out.extend(row[start : locos + 1])
    if len(free) >= 3:
        threes = THREES
        out.extend(threes[combo] for combo in combinations(free, 3))
    return out


def keep_subsets(offer: Sequence[int], minimum: int) -> list[Action]:
    out: list[Action] = []
    for size in range(len(offer), minimum - 1, -1):
        out.extend(KeepDestinations(ids) for ids in combinations(offer, size))
    return out


def problem(
    action: object,
    phase: int,
    seat: int,
    hand: Sequence[int],
    owner: Sequence[int],
    yard_wagons: Sequence[int],
    yard_locos: Sequence[int],
    face_up: Sequence[int],
    deck: object,
    dest_deck: object,
    offer: Sequence[int],
    min_keep: int,
) -> Ruling | None:
    """(ruling, reason) if ``action`` is illegal for the seat to move, else None.

    Any object may come in (a strategy's answer): its shape is checked first, so a wrong type
    or an out-of-range field is refused with ``("", "bad action: ...")`` and never raises.
    """
    kind = type(action)
    colours = len(hand) - 1  # the game's colours; the locomotive is the last count
    # shape first; the common well-formed cases inline (this runs on every checked action)
    if kind is DrawFaceUp:
        slot = getattr(action, "slot", None) if tuple.__len__(action) == 1 else None  # type: ignore[arg-type]
        if type(slot) is not int or not 0 <= slot < BIG:
            return _bad(action, colours)
    elif kind is PlaceColumn:
        if tuple.__len__(action) != 3:  # type: ignore[arg-type]
            return _bad(action, colours)
        c = getattr(action, "colour", None)
        w = getattr(action, "wagons", None)
        lo = getattr(action, "locos", None)
        if not (
            type(c) is int
            and type(w) is int
            and type(lo) is int
            and 0 <= c < colours
            and -BIG < w < BIG
            and -BIG < lo < BIG
        ):
            return _bad(action, colours)
    elif (kind is not DrawDeck or tuple.__len__(action)) and malformed(action, colours) is not None:  # type: ignore[arg-type]
        return _bad(action, colours)
    if phase == TURN:
        if kind is DrawDeck:
            return None if deck else ("R11", "the train deck is empty")
        if kind is PlaceColumn or kind is PlaceThree:
            return placement_problem(action, seat, hand, owner, yard_wagons, yard_locos)  # type: ignore[arg-type]
        if kind is DrawFaceUp:
            slot = action.slot  # type: ignore[attr-defined]
            if _face_up_card(face_up, slot) == NO_CARD:
                return ("R11", f"face-up slot {slot} is empty")
            return None
        if kind is DrawDestinations:
            return None if dest_deck else ("R13", "the destination deck is empty")
        if kind is Pass:
            legal = turn_actions(
                seat, hand, owner, yard_wagons, yard_locos, face_up, deck, dest_deck
            )
            if legal != [PASS]:
                return ("R14", "passing is allowed only when no action is legal")
            return None
        return ("R13", "no destinations are on offer")  # KeepDestinations
    if phase == SECOND_PICK:
        if kind is DrawDeck:
            return None if deck else ("R11", "the train deck is empty")
        if kind is DrawFaceUp:
            slot = action.slot  # type: ignore[attr-defined]
            card = _face_up_card(face_up, slot)
            if card == NO_CARD:
                return ("R11", f"face-up slot {slot} is empty")
            if card == colours:
                return ("R10", "a face-up locomotive can only be the first pick of a draw")
            return None
        return ("R10", "one train card is expected (a draw's second, or a one-card first turn)")
    if phase == OVER:
        return ("R17", "the game is over")
    ruling = "R5" if phase == SETUP_KEEP else "R13"
    if kind is not KeepDestinations:
        return (ruling, "a destination keep is expected now")
    ids = action.ids  # type: ignore[attr-defined]
    if len(set(ids)) != len(ids) or not set(ids) <= set(offer):
        return (ruling, f"can keep only destinations offered ({list(offer)})")
    minimum = min_keep if phase == SETUP_KEEP else 0
    if len(ids) < minimum:
        return (ruling, f"must keep at least {minimum}")
    return None


def _bad(action: object, colours: int) -> Ruling:
    return ("", f"bad action: {malformed(action, colours)}")


def _face_up_card(face_up: Sequence[int], slot: int) -> int:
    return face_up[slot] if 0 <= slot < len(face_up) else NO_CARD


def cards_to_beat(column: int) -> int:
    """R12: the fewest cards that beat a rival's column of ``column`` cards (its locomotives
    count): strictly more. The one statement of the threshold in the Python engine; the
    strategies ask it too (the native core's twin: ``cards_to_beat`` in ``_core.pxd``)."""
    return column + 1


def placement_problem(
    action: PlaceColumn | PlaceThree,
    seat: int,
    hand: Sequence[int],
    owner: Sequence[int],
    yard_wagons: Sequence[int],
    yard_locos: Sequence[int],
) -> Ruling | None:
    """Why a well-formed placement breaks R12, or None."""
    names = card_names(COLOURS) if len(hand) == LOCO + 1 else card_names(_unnamed(len(hand) - 1))
    if type(action) is PlaceThree:
        colours = action.colours
        if len(set(colours)) != 3:
            return ("R12", "a three-colour play needs three different colours")
        for c in colours:
            if hand[c] < 1:
                return ("R12", f"no {names[c]} wagon in hand")
            if owner[c] == seat:
                return ("R12", f"{names[c]} is already in the seat's own yard")
            if owner[c] != NOBODY:
                return ("R12", f"1 {names[c]} card cannot beat a rival's column")
        return None
    c, w, lo = action.colour, action.wagons, action.locos  # type: ignore[union-attr]
    if w < 1 or lo < 0 or w + lo < MIN_COLUMN:
        return ("R12", "a column needs 2 or more cards, at least one a wagon")
    if hand[c] < w or hand[-1] < lo:
        return ("R12", f"hand lacks {w} {names[c]} and {lo} locomotive(s)")
    holder = owner[c]
    if holder == seat:
        return ("R12", f"{names[c]} is already in the seat's own yard")
    if holder != NOBODY:
        rival = yard_wagons[c] + yard_locos[c]
        if w + lo < cards_to_beat(rival):
            return (
                "R12",
                f"seat {holder}'s {names[c]} column has {rival}: must place strictly more",
            )
    return None


# ------------------------------------------------------------------ shape of an action
_NO_FIELDS = (DrawDeck, DrawDestinations, Pass)
# each exact action class's number of fields (``malformed`` checks it before reading any)
_ARITY: dict[type, int] = {
    kind: len(kind._fields)
    for kind in (DrawFaceUp, PlaceColumn, PlaceThree, KeepDestinations, *_NO_FIELDS)
}
_MISSING = object()
BIG = 10**9  # no count, slot or id comes near: larger values are refused as malformed


def _unnamed(colours: int) -> tuple[str, ...]:
    """Names for the colours of a game the legality check knows only by their count."""
    return tuple(f"colour {c}" for c in range(colours))


def malformed(action: object, n_colours: int = MAX_COLOURS) -> str | None:
    """What is wrong with the shape of ``action`` (type, field types, field ranges), or None.

    Only the exact action classes count (a subclass could override anything); ``bool`` is not
    a whole number here. Nothing of the object is called, so a hostile object cannot raise:
    its length is checked before any field is read (``tuple.__new__`` makes one of any
    length, whose missing fields would raise on reading).
    The well-formed common cases return first: this runs on every checked action.
    ``n_colours``: the game's colours (a colour index is below it), else the engines' bound.
    """
    kind = type(action)
    if kind in _ARITY and tuple.__len__(action) != _ARITY[kind]:  # type: ignore[arg-type]
        fields = _ARITY[kind]
        found = tuple.__len__(action)  # type: ignore[arg-type]
        return f"{kind.__name__} must have {fields} field{'s' * (fields != 1)}, got {found}"
    if kind is DrawFaceUp:
        slot = getattr(action, "slot", _MISSING)
        if type(slot) is int and 0 <= slot < BIG:
            return None
        return _whole("DrawFaceUp.slot", slot, 0, BIG)
    if kind is PlaceColumn:
        c = getattr(action, "colour", _MISSING)
        w = getattr(action, "wagons", _MISSING)
        lo = getattr(action, "locos", _MISSING)
        if (
            type(c) is int
            and type(w) is int
            and type(lo) is int
            and 0 <= c < n_colours
            and -BIG < w < BIG
            and -BIG < lo < BIG
        ):
            return None
        return (
            _whole("PlaceColumn.colour", c, 0, n_colours - 1)
            or _whole("PlaceColumn.wagons", w, -BIG, BIG)
            or _whole("PlaceColumn.locos", lo, -BIG, BIG)
        )
    if kind in _NO_FIELDS:
        return None
    if kind is PlaceThree:
        colours = getattr(action, "colours", _MISSING)
        if type(colours) is not tuple or len(colours) != 3:
            return f"PlaceThree.colours must be a tuple of 3 colour indexes, got {_show(colours)}"
        for c in colours:
            bad = _whole("PlaceThree.colours", c, 0, n_colours - 1)
            if bad is not None:
                return bad
        return None
    if kind is KeepDestinations:
        ids = getattr(action, "ids", _MISSING)
        if type(ids) is not tuple:
            return f"KeepDestinations.ids must be a tuple of destination ids, got {_show(ids)}"
        for dest_id in ids:
            bad = _whole("KeepDestinations.ids", dest_id, -BIG, BIG)
            if bad is not None:
                return bad
        return None
    return f"not an action: {_show(action)}"


def _whole(field: str, value: object, low: int, high: int) -> str | None:
    """Why ``value`` is not a whole number in ``low..high`` (bool excluded), or None."""
    if type(value) is not int:
        return f"{field} must be a whole number, got {_show(value)}"
    if not low <= value <= high:
        return f"{field} must be in {low}..{high}, got {_show(value)}"
    return None


def _show(value: object) -> str:
    """A short one-line description of any value that never raises."""
    kind = type(value)
    if value is _MISSING:
        return "nothing"
    if kind is int:  # str() of a huge int raises (and would be too long anyway)
        return str(value) if -BIG < value < BIG else "a huge number"  # type: ignore[operator]
    if kind in (bool, float, str, type(None)):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return f"a {kind.__name__}"
