"""The shape of a game record (docs/record-format.md): what ``replay`` checks before it plays.

A value that fails here is not a record (``RecordError``, exit code 2): a wrong type, a
missing or unknown key, another format or version, a rule setting that cannot apply to the
record's player count. Whether a well-shaped record is true is ``record.replay``'s job.

The rules a record holds are exactly the settings that can change its game
(``rules_dict``): a setting that cannot (the rounds of another player count, the deal of a
round the game never has, a lever against a seat edge left off or given only to seats the
game does not have) could be edited without any replay noticing, so it has no place in a
record. A seat lever is recorded for the game's seats only (``[0, 1]`` at 2 players).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any

from . import actions as A
from .cards import CARD_NAMES, COLOURS
from .errors import CardgameError, RecordError
from .rules import MAX_PLAYERS, MIN_PLAYERS, SEAT_LEVERS, Rules
from .shuffling import DESTINATION_RESHUFFLE, DESTINATION_SETUP, TRAIN_ROUND, TRAIN_SETUP

FORMAT = "ttr-cardgame-record"
VERSION = 2
DIGEST_PREFIX = "sha256:"
TRAIN_KINDS = (TRAIN_SETUP, TRAIN_ROUND)
SHUFFLE_KINDS = (TRAIN_SETUP, DESTINATION_SETUP, DESTINATION_RESHUFFLE, TRAIN_ROUND)
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


# ------------------------------------------------------------------------ rules that apply
def _not_applying(rules: Rules, players: int, key: str) -> str | None:
    """Why setting ``key`` cannot change a ``players``-player game under ``rules``, or None."""
    if key == "round_two_deal" and rules.rounds_for(players) == 1:
        return f"a game of one round (rules.rounds.{players} is 1)"
    if key == "three_locomotive_wipe" and rules.face_up < 3:
        return f"a face-up row of {rules.face_up} (a wipe needs 3 locomotives in it)"
    if key in SEAT_LEVERS and not any(getattr(rules, key)[:players]):
        return f"a game where no seat of {players} gets {key.removeprefix('seat_')} (lever off)"
    if key == "first_turn" and rules.first_turn == "full":
        return "a game with the printed first turn (lever off)"
    return None


def rules_dict(rules: Rules, players: int) -> dict[str, Any]:
    """The settings of ``rules`` that can change a ``players``-player game: a record's
    ``rules``. ``Rules.from_dict`` reads it back (the left-out settings take their defaults,
    which this game cannot tell from any other value)."""
    data = rules.to_dict()
    data["rounds"] = {str(players): rules.rounds_for(players)}
    for key in SEAT_LEVERS:
        data[key] = data[key][:players]
    return {k: v for k, v in data.items() if _not_applying(rules, players, k) is None}


# ------------------------------------------------------------------------ checks
Check = Callable[[Any, str], None]


def kind(value: Any) -> str:
    """What a JSON value is, in words, for a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def entries(count: int) -> str:
    return "1 entry" if count == 1 else f"{count} entries"


def join(path: str, key: str) -> str:
    """``path.key``; a key that is not a plain word is quoted, so a message stays one line
    (a key that is not a string, from a Python caller's dict, is shown as its repr)."""
    if not isinstance(key, str):
        return f"{path}[{key!r}]"
    if not (key.isidentifier() or key.isdigit()) or not key.isascii():
        return f"{path}[{json.dumps(key)}]"
    return f"{path}.{key}" if path else key


def bad(path: str, message: str) -> RecordError:
    return RecordError(f"not a valid record: {path}: {message}")


def _integer(low: int | None = 0, high: int | None = None) -> Check:
    def check(value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad(path, f"expected a whole number, got {kind(value)}")
        if (low is not None and value < low) or (high is not None and value > high):
            span = f"{low} to {high}" if high is not None else f"{low} or more"
            raise bad(path, f"expected {span}, got {value}")

    return check


def _boolean(value: Any, path: str) -> None:
    if not isinstance(value, bool):
        raise bad(path, f"expected true or false, got {kind(value)}")


# the colours of its own a record's edition names in its deck's rows (``cards.deck``), while
# ``validate`` checks that record: a card or colour may be one of them too
_OWN_COLOURS: ContextVar[frozenset[str]] = ContextVar("own_colours", default=frozenset())


def _one_of(names: Sequence[str | None], what: str, named: bool = False) -> Check:
    """One of ``names``; ``named``: or a colour of the record's own edition."""

    def check(value: Any, path: str) -> None:
        if named and isinstance(value, str) and value in _OWN_COLOURS.get():
            return
        if value not in names or (value is not None and not isinstance(value, str)):
            shown = repr(value)[:40] if isinstance(value, str) else kind(value)
            raise bad(path, f"expected {what}, got {shown}")

    return check


def _own_colours(record: dict[str, Any]) -> frozenset[str]:
    """The colours the record's deck rows name beyond the printed ones (none if malformed:
    its cards are checked when the record replays)."""
    cards = record.get("cards")
    rows = cards.get("deck") if isinstance(cards, dict) else None
    if not isinstance(rows, list):
        return frozenset()
    return frozenset(
        row[0]
        for row in rows
        if isinstance(row, list) and row and isinstance(row[0], str) and row[0] not in CARD_NAMES
    )


def _text(value: Any, path: str) -> None:
    if not isinstance(value, str) or not value:
        raise bad(path, f"expected a non-empty string, got {kind(value)}")


def _digest(value: Any, path: str) -> None:
    if not isinstance(value, str) or not _DIGEST.fullmatch(value):
        shown = repr(value)[:40] if isinstance(value, str) else kind(value)
        raise bad(path, f'expected "{DIGEST_PREFIX}" and 64 lowercase hex digits, got {shown}')


def _list(item: Check, length: int | None = None) -> Check:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise bad(path, f"expected a list, got {kind(value)}")
        if length is not None and len(value) != length:
            raise bad(path, f"expected {entries(length)}, got {len(value)}")
        for index, element in enumerate(value):
            item(element, f"{path}[{index}]")

    return check


def _any(value: Any, path: str) -> None:
    """Any value: what a later check takes apart."""


def _object(required: dict[str, Check], optional: dict[str, Check] | None = None) -> Check:
    optional = optional or {}

    def check(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise bad(path, f"expected an object, got {kind(value)}")
        for key in value:
            if key not in required and key not in optional:
                raise bad(join(path, key), "unknown key")
        for key, item in required.items():
            if key not in value:
                raise bad(join(path, key), "missing")
            item(value[key], join(path, key))
        for key, item in optional.items():
            if key in value:
                item(value[key], join(path, key))

    return check


_ID = _integer()
_IDS = _list(_ID)
_CARD = _one_of(CARD_NAMES, "a card name", named=True)
_SLOT_CARD = _one_of((*CARD_NAMES, None), "a card name or null", named=True)
_COLOUR = _one_of(COLOURS, "a colour", named=True)
_COUNT = _integer()
_TOTAL = _integer(low=None)
_SEAT = _integer(0, MAX_PLAYERS - 1)
_SLOT = _integer(0, A.MAX_FACE_UP - 1)

_ACTIONS: dict[str, Check] = {
    "draw_deck": _object({"type": _text}),
    "draw_face_up": _object({"type": _text, "slot": _SLOT}),
    "place_column": _object(
        {"type": _text, "colour": _COLOUR, "wagons": _integer(0, 10), "locos": _integer(0, 16)}
    ),
    "place_three": _object({"type": _text, "colours": _list(_COLOUR, 3)}),
    "draw_destinations": _object({"type": _text}),
    "pass": _object({"type": _text}),
}


def _action(value: Any, path: str) -> None:
    if not isinstance(value, dict):
        raise bad(path, f"expected an object, got {kind(value)}")
    name = value.get("type")
    if not isinstance(name, str) or name not in _ACTIONS:
        shown = repr(name)[:40] if isinstance(name, str) else kind(name)
        raise bad(f"{path}.type", f"expected one of {', '.join(_ACTIONS)}, got {shown}")
    _ACTIONS[name](value, path)


_PICKS = {
    "deck": _object({"from": _text, "card": _CARD}),
    "face_up": _object({"from": _text, "slot": _SLOT, "card": _CARD, "refill": _SLOT_CARD}),
}


def _pick(value: Any, path: str) -> None:
    if not isinstance(value, dict):
        raise bad(path, f"expected an object, got {kind(value)}")
    source = value.get("from")
    if not isinstance(source, str) or source not in _PICKS:
        raise bad(f"{path}.from", 'expected "deck" or "face_up"')
    _PICKS[source](value, path)


def _shuffle(value: Any, path: str) -> None:
    if not isinstance(value, dict):
        raise bad(path, f"expected an object, got {kind(value)}")
    _one_of(SHUFFLE_KINDS, "a shuffle kind")(value.get("kind"), join(path, "kind"))
    card = _CARD if value["kind"] in TRAIN_KINDS else _ID
    _object({"kind": _text, "order": _list(card)})(value, path)


_TURN = _object(
    {
        "turn": _COUNT,
        "seat": _SEAT,
        "round": _COUNT,
        "final_round": _boolean,
        "step1": _list(_CARD),
        "action": _action,
    },
    {
        "picks": _list(_pick),
        "wipes": _list(_list(_SLOT_CARD)),
        "steal": _object(
            {
                "victim": _SEAT,
                "colour": _COLOUR,
                "discarded": _object({"wagons": _COUNT, "locos": _COUNT}),
            }
        ),
        "destinations": _object({"drawn": _IDS, "kept": _IDS}),
    },
)

_BODY = _object(
    {
        "format": _text,
        "version": _COUNT,
        "rules": lambda value, path: None,  # checked by _rules, below
        "seed": _integer(),
        "players": _integer(MIN_PLAYERS, MAX_PLAYERS),
        "strategies": _list(_text),
        "shuffles": _list(_shuffle),
        "rounds": _list(
            _object(
                {
                    "round": _COUNT,
                    "face_up": _list(_SLOT_CARD),
                    "hands": _list(_list(_CARD)),
                    "deck_size": _COUNT,
                }
            )
        ),
        "setup": _object({"dealt": _list(_IDS), "kept": _list(_IDS)}),
        "turns": _list(_TURN),
        "resolutions": _list(
            _object(
                {
                    "round": _COUNT,
                    "seats": _list(_object({"seat": _SEAT, "reached": _IDS, "unreached": _IDS})),
                }
            )
        ),
        "final": _object({"face_up": _list(_SLOT_CARD), "hands": _list(_list(_CARD))}),
        "result": _object(
            {
                "scores": _list(
                    _object(
                        {
                            "seat": _SEAT,
                            "total": _TOTAL,
                            "destination_points": _COUNT,
                            "penalties": _COUNT,
                            "big_city_bonuses": _list(_text),
                            "bonus_points": _COUNT,
                            "reached": _COUNT,
                        }
                    )
                ),
                "round_points": _list(_list(_COUNT)),
                "winners": _list(_SEAT),
                "turns": _COUNT,
                "steals": _list(_COUNT),
                "stolen_from": _list(_COUNT),
            }
        ),
        "digest": _digest,
    },
    # rows of the card files, checked as a card folder is (record.record_catalogue); the
    # deck's only when it is not the printed one; and the edition's name and content digest
    {
        "cards": _object(
            {"destinations": _list(_list(_any)), "big_cities": _list(_list(_any))},
            {"deck": _list(_list(_any))},
        ),
        "edition": _object({"name": _text, "digest": _digest}),
    },
)


def _rules(data: Any, players: int) -> Rules:
    """The record's rules: valid values, and exactly the settings that apply (``rules_dict``)."""
    if not isinstance(data, dict):
        raise bad("rules", f"expected an object, got {kind(data)}")
    try:
        rules = Rules.from_dict(data)
    except CardgameError as exc:
        raise RecordError(f"not a valid record: {exc}") from None
    rounds = data.get("rounds")
    if isinstance(rounds, dict):
        for key in rounds:
            if key != str(players):
                raise bad(join("rules.rounds", key), f"does not apply to a {players}-player game")
    for key in data:
        why = _not_applying(rules, players, key)
        if why is not None:
            raise bad(f"rules.{key}", f"does not apply to {why}")
        if key in SEAT_LEVERS and len(rules_dict(rules, players)[key]) != len(data[key]):
            raise bad(f"rules.{key}", f"expected one count per seat of a {players}-player game")
    for key in rules_dict(rules, players):
        if key not in data:
            raise bad(f"rules.{key}", "missing")
        if key == "rounds" and str(players) not in data["rounds"]:
            raise bad(f"rules.rounds.{players}", "missing")
    return rules


def validate(record: Any) -> Rules:
    """Check that ``record`` has the shape of a record of this version; return its rules.

    Raises RecordError naming the first field (as a path) with a wrong type, a missing or
    unknown key, a rule setting that does not apply, or another format or version. Content
    (and the digest) is checked by ``record.replay``.
    """
    if not isinstance(record, dict):
        raise RecordError(f"not a valid record: the top level is {kind(record)}, not an object")
    if record.get("format") != FORMAT:
        shown = record.get("format")
        shown = repr(shown)[:60] if isinstance(shown, str) else kind(shown)
        raise RecordError(f"not a {FORMAT} (format is {shown})")
    version = record.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and 1 <= version < VERSION:
        raise RecordError(
            f"record version {version} predates final hands and the content digest, so it "
            f"cannot be checked; this engine reads version {VERSION} (record the game again)"
        )
    if version != VERSION or isinstance(version, bool):
        shown = version if isinstance(version, int) else kind(version)
        raise RecordError(f"record version {shown}; this engine reads {VERSION}")
    token = _OWN_COLOURS.set(_own_colours(record))
    try:
        _BODY(record, "")
    finally:
        _OWN_COLOURS.reset(token)
    if len(record["strategies"]) != record["players"]:
        raise bad("strategies", f"expected one name per seat ({record['players']})")
    return _rules(record["rules"], record["players"])
