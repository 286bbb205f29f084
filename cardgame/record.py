"""Game records: JSON that replays a game without the engine's RNG (docs/record-format.md).

A record holds every shuffle's result, so replay feeds those orders back to the engine,
re-applies the recorded decisions, compares each turn with what was recorded, and at the end
compares every field of the record with the record the engine re-derives.

Two kinds of failure: a value that is not a record (bad JSON, wrong shape or types, unknown
keys, another format or version) raises ``RecordError``; a well-formed record whose content
differs from the replay gives ``ReplayResult(ok=False)`` naming the first differing field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import actions as A
from .cards import CARD_NAMES, COLOURS
from .catalogue import Catalogue, default_catalogue
from .errors import CardgameError, IllegalActionError, RecordError
from .game import Game
from .rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from .scoring import final_scores, winners
from .shuffling import (
    DESTINATION_RESHUFFLE,
    DESTINATION_SETUP,
    TRAIN_ROUND,
    TRAIN_SETUP,
    RecordedShuffles,
    SeedCheckedShuffles,
)
from .state import GameState, Phase

FORMAT = "ttr-cardgame-record"
VERSION = 1
_CARD_INDEX = {name: i for i, name in enumerate(CARD_NAMES)}
_TRAIN_KINDS = (TRAIN_SETUP, TRAIN_ROUND)
_SHUFFLE_KINDS = (TRAIN_SETUP, DESTINATION_SETUP, DESTINATION_RESHUFFLE, TRAIN_ROUND)


def to_record(state: GameState, strategies: Sequence[str] | None = None) -> dict[str, Any]:
    """The finished game as one JSON-ready object. The state must have been recorded."""
    if state.record is None:
        raise RecordError("this game was played without recording (new_state(record=True))")
    if not state.is_over:
        raise RecordError("the game is not over yet")
    game = state.game
    names = list(strategies) if strategies is not None else ["unknown"] * state.players
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": game.rules.to_dict(),
        "seed": game.seed,
        "players": state.players,
        "strategies": names,
        **state.record,
        "result": {
            "scores": [s.to_dict() for s in state.scores],
            "round_points": [list(p) for p in state.round_points],
            "winners": list(state.winners),
            "turns": state.turn,
            "steals": list(state.steals),
            "stolen_from": list(state.stolen_from),
        },
    }


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"))


def save(record: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


# ------------------------------------------------------------------------ reading files
@dataclass(frozen=True)
class Entry:
    """One game of a file: its parsed JSON value, or why its line is not JSON.

    ``line`` is None for a file holding one JSON document, else the JSON Lines line number.
    """

    line: int | None
    value: Any = None
    error: str | None = None

    @property
    def where(self) -> str:
        return f"line {self.line}" if self.line is not None else ""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a record can hold")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:30]} is too large")
    return value


def parse_json(data: bytes) -> Any:
    """Parse strict JSON from bytes; every failure is a ValueError with a one-line message."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        raise ValueError(f"not UTF-8 text (byte {byte:#04x} at offset {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ValueError("not a record: JSON nested too deeply") from None
    except ValueError as exc:  # refused constants, huge floats, ints past the digit limit
        raise ValueError(f"not valid JSON ({str(exc).splitlines()[0]})") from None


def read_entries(path: Path) -> list[Entry]:
    """The games in ``path``: one JSON document, or JSON Lines (each line parsed on its own).

    A file is read as JSON Lines only if at least one line holds a JSON object; otherwise the
    whole file is refused with one RecordError (binary data, broken JSON, an empty file).
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RecordError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not data.strip():
        raise RecordError(f"{path}: holds no game record (the file is empty)")
    try:
        return [Entry(None, parse_json(data))]
    except ValueError as exc:
        whole_error = str(exc)
    entries = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            entries.append(Entry(number, parse_json(line)))
        except ValueError as exc:
            entries.append(Entry(number, error=str(exc).removeprefix("line 1: ")))
    if not any(isinstance(e.value, dict) for e in entries):
        raise RecordError(f"{path}: {whole_error}")
    return entries


def load(path: Path) -> list[dict[str, Any]]:
    """Read one record (JSON) or many (JSON Lines) from ``path``; any bad line is an error."""
    records = []
    for entry in read_entries(path):
        if entry.error is not None:
            raise RecordError(f"{path}, {entry.where}: {entry.error}")
        if not isinstance(entry.value, dict):
            where = f", {entry.where}" if entry.line is not None else ""
            raise RecordError(f"{path}{where}: holds no game record ({_kind(entry.value)})")
        records.append(entry.value)
    return records


# ------------------------------------------------------------------------ record shape
Check = Callable[[Any, str], None]


def _kind(value: Any) -> str:
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


def _bad(path: str, message: str) -> RecordError:
    return RecordError(f"not a valid record: {path}: {message}")


def _integer(low: int | None = 0, high: int | None = None) -> Check:
    def check(value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _bad(path, f"expected a whole number, got {_kind(value)}")
        if (low is not None and value < low) or (high is not None and value > high):
            span = f"{low} to {high}" if high is not None else f"{low} or more"
            raise _bad(path, f"expected {span}, got {value}")

    return check


def _boolean(value: Any, path: str) -> None:
    if not isinstance(value, bool):
        raise _bad(path, f"expected true or false, got {_kind(value)}")


def _one_of(names: Sequence[str | None], what: str) -> Check:
    def check(value: Any, path: str) -> None:
        if value not in names or (value is not None and not isinstance(value, str)):
            shown = repr(value)[:40] if isinstance(value, str) else _kind(value)
            raise _bad(path, f"expected {what}, got {shown}")

    return check


def _text(value: Any, path: str) -> None:
    if not isinstance(value, str) or not value:
        raise _bad(path, f"expected a non-empty string, got {_kind(value)}")


def _list(item: Check, length: int | None = None) -> Check:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise _bad(path, f"expected a list, got {_kind(value)}")
        if length is not None and len(value) != length:
            raise _bad(path, f"expected {_entries(length)}, got {len(value)}")
        for index, element in enumerate(value):
            item(element, f"{path}[{index}]")

    return check


def _object(required: dict[str, Check], optional: dict[str, Check] | None = None) -> Check:
    optional = optional or {}

    def check(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise _bad(path, f"expected an object, got {_kind(value)}")
        for key in value:
            if key not in required and key not in optional:
                raise _bad(_join(path, key), "unknown key")
        for key, item in required.items():
            if key not in value:
                raise _bad(_join(path, key), "missing")
            item(value[key], _join(path, key))
        for key, item in optional.items():
            if key in value:
                item(value[key], _join(path, key))

    return check


def _entries(count: int) -> str:
    return "1 entry" if count == 1 else f"{count} entries"


def _join(path: str, key: str) -> str:
    """``path.key``; a key that is not a plain word is quoted, so a message stays one line."""
    if not (key.isidentifier() or key.isdigit()) or not key.isascii():
        return f"{path}[{json.dumps(key)}]"
    return f"{path}.{key}" if path else key


_ID = _integer()
_IDS = _list(_ID)
_CARD = _one_of(CARD_NAMES, "a card name")
_SLOT_CARD = _one_of((*CARD_NAMES, None), "a card name or null")
_COLOUR = _one_of(COLOURS, "a colour")
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
        raise _bad(path, f"expected an object, got {_kind(value)}")
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in _ACTIONS:
        shown = repr(kind)[:40] if isinstance(kind, str) else _kind(kind)
        raise _bad(f"{path}.type", f"expected one of {', '.join(_ACTIONS)}, got {shown}")
    _ACTIONS[kind](value, path)


_PICKS = {
    "deck": _object({"from": _text, "card": _CARD}),
    "face_up": _object({"from": _text, "slot": _SLOT, "card": _CARD, "refill": _SLOT_CARD}),
}


def _pick(value: Any, path: str) -> None:
    if not isinstance(value, dict):
        raise _bad(path, f"expected an object, got {_kind(value)}")
    source = value.get("from")
    if not isinstance(source, str) or source not in _PICKS:
        raise _bad(f"{path}.from", 'expected "deck" or "face_up"')
    _PICKS[source](value, path)


def _shuffle(value: Any, path: str) -> None:
    if not isinstance(value, dict):
        raise _bad(path, f"expected an object, got {_kind(value)}")
    _one_of(_SHUFFLE_KINDS, "a shuffle kind")(value.get("kind"), _join(path, "kind"))
    card = _CARD if value["kind"] in _TRAIN_KINDS else _ID
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
        "rules": lambda value, path: None,  # checked by Rules.from_dict, below
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
    }
)


def validate(record: Any) -> Rules:
    """Check that ``record`` has the shape of a version-1 record; return its rules.

    Raises RecordError naming the first field (as a path) with a wrong type, a missing or
    unknown key, or another format or version. Content is checked by ``replay``.
    """
    if not isinstance(record, dict):
        raise RecordError(f"not a valid record: the top level is {_kind(record)}, not an object")
    if record.get("format") != FORMAT:
        shown = record.get("format")
        shown = repr(shown)[:60] if isinstance(shown, str) else _kind(shown)
        raise RecordError(f"not a {FORMAT} (format is {shown})")
    version = record.get("version")
    if version != VERSION or isinstance(version, bool):
        shown = version if isinstance(version, int) else _kind(version)
        raise RecordError(f"record version {shown}; this engine reads {VERSION}")
    _BODY(record, "")
    if len(record["strategies"]) != record["players"]:
        raise _bad("strategies", f"expected one name per seat ({record['players']})")
    rules = record["rules"]
    if not isinstance(rules, dict):
        raise _bad("rules", f"expected an object, got {_kind(rules)}")
    missing = sorted(set(Rules().to_dict()) - set(rules))
    if missing:
        raise _bad(f"rules.{missing[0]}", "missing")
    try:
        return Rules.from_dict(rules)
    except CardgameError as exc:
        raise RecordError(f"not a valid record: {exc}") from None


# ------------------------------------------------------------------------ replay
@dataclass(frozen=True)
class ReplayResult:
    """The outcome of a replay: ``ok`` when every field of the record matches the replay."""

    ok: bool
    turns: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    divergence: str | None = None


def _shuffle_orders(record: dict[str, Any]) -> list[tuple[str, list[int]]]:
    orders = []
    for entry in record["shuffles"]:
        order = entry["order"]
        if entry["kind"] in _TRAIN_KINDS:
            order = [_CARD_INDEX[name] for name in order]
        orders.append((entry["kind"], list(order)))
    return orders


def _decisions(turn: dict[str, Any]) -> Iterator[A.Action]:
    """The decisions a recorded turn was made of, in order."""
    yield A.from_dict(turn["action"])
    for pick in turn.get("picks", [])[1:]:
        yield A.DRAW_DECK if pick["from"] == "deck" else A.DRAW_FACE_UP[pick["slot"]]
    if "destinations" in turn:
        yield A.KeepDestinations(tuple(turn["destinations"]["kept"]))


_MISSING: Any = object()


def _show(value: Any) -> str:
    if value is _MISSING:
        return "nothing"
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def first_difference(expected: Any, recorded: Any, path: str = "") -> str | None:
    """The first field (a path like ``result.scores[1].total``) where the two differ."""
    if isinstance(expected, dict) and isinstance(recorded, dict):
        for key in [*expected, *(k for k in recorded if k not in expected)]:
            found = first_difference(
                expected.get(key, _MISSING), recorded.get(key, _MISSING), _join(path, key)
            )
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(recorded, list):
        if len(expected) == len(recorded):
            for index, (a, b) in enumerate(zip(expected, recorded, strict=True)):
                found = first_difference(a, b, f"{path}[{index}]")
                if found:
                    return found
            return None
        return (
            f"{path}: expected {_entries(len(expected))} {_show(expected)}, "
            f"recorded {_entries(len(recorded))} {_show(recorded)}"
        )
    if type(expected) is type(recorded) and expected == recorded:
        return None
    return f"{path}: expected {_show(expected)}, recorded {_show(recorded)}"


def replay(record: Any, catalogue: Catalogue | None = None) -> ReplayResult:
    """Check ``record``'s shape, re-execute it and compare every field; never uses the RNG
    for the game (the seed is checked against the recorded shuffles, not used to play)."""
    rules = validate(record)
    try:
        return _replay(record, rules, catalogue or default_catalogue())
    except RecordError:
        raise
    except CardgameError as exc:
        raise RecordError(f"record does not replay: {exc}") from None
    except (KeyError, TypeError, ValueError, IndexError, ArithmeticError, RecursionError) as exc:
        raise RecordError(f"malformed record: {type(exc).__name__} {exc}") from None


def _replay(record: dict[str, Any], rules: Rules, catalogue: Catalogue) -> ReplayResult:
    game = Game(record["players"], record["seed"], rules, catalogue)
    shuffles = SeedCheckedShuffles(_shuffle_orders(record), record["seed"])
    state = game.new_state(record=True, shuffles=shuffles)
    for index, kept in enumerate(record["setup"]["kept"]):
        try:
            state.apply(A.KeepDestinations(tuple(kept)))
        except IllegalActionError as exc:
            return _diverged(state, f"setup.kept[{index}]: {exc}")
    if state.phase == Phase.SETUP_KEEP:
        return _diverged(state, f"setup.kept: expected {state.players} keeps, recorded fewer")
    for index, turn in enumerate(record["turns"]):
        where = f"turn {state.turn} (seat {state.seat})"
        if state.is_over:
            return _diverged(state, f"turns[{index}]: the replayed game ended before it")
        try:
            for action in _decisions(turn):
                state.apply(action)
        except IllegalActionError as exc:
            return _diverged(state, f"{where}: {exc}")
        replayed = state.record["turns"]  # type: ignore[index]
        if len(replayed) <= index:
            return _diverged(state, f"{where}: the turn's recorded decisions do not finish it")
        found = first_difference(replayed[index], turn, f"turns[{index}]")
        if found:
            return _diverged(state, f"{where}: {found}")
    if not state.is_over:
        return _diverged(state, f"turns: the record ends at turn {state.turn}; the game goes on")
    expected = to_record(state, record["strategies"])
    expected["shuffles"] = [
        {"kind": kind, "order": [CARD_NAMES[c] for c in order] if kind in _TRAIN_KINDS else order}
        for kind, order in shuffles.seeded
    ]
    found = first_difference(expected, record)
    if found:
        if found.startswith("shuffles"):
            found += f" (the recorded shuffles are not those of seed {record['seed']})"
        return _diverged(state, found)
    return ReplayResult(True, state.turn, tuple(s.total for s in state.scores), state.winners)


def _diverged(state: GameState, why: str) -> ReplayResult:
    scores = tuple(s.total for s in state.scores) if state.phase == Phase.OVER else ()
    return ReplayResult(False, state.turn, scores, state.winners, why)


@dataclass(frozen=True)
class Table:
    """Every seat's hand, yard columns and circulation pile at the end of one turn."""

    hands: tuple[tuple[int, ...], ...]
    circulation: tuple[tuple[int, ...], ...]
    yard_owner: tuple[int, ...]
    yard_wagons: tuple[int, ...]
    yard_locos: tuple[int, ...]

    @classmethod
    def of(cls, state: GameState) -> Table:
        return cls(
            tuple(tuple(h) for h in state.hands),
            tuple(tuple(c) for c in state.circulation),
            tuple(state.yard_owner),
            tuple(state.yard_wagons),
            tuple(state.yard_locos),
        )


class _TurnLog(list):  # type: ignore[type-arg]
    """The state's list of turn records: a turn is appended the moment it ends, before the
    next seat's step 1 or the round's end, so that is when its table is taken."""

    def __init__(self, state: GameState) -> None:
        super().__init__()
        self.state = state
        self.tables: list[Table] = []

    def append(self, turn: Any) -> None:
        super().append(turn)
        self.tables.append(Table.of(self.state))


def turn_tables(record: dict[str, Any], catalogue: Catalogue | None = None) -> list[Table]:
    """Re-execute a record that replays; the table at the end of each of its turns.

    For the verbose narration: hands, yards and circulation piles are not in the record.
    """
    rules = Rules.from_dict(record["rules"])
    game = Game(record["players"], record["seed"], rules, catalogue or default_catalogue())
    state = game.new_state(record=True, shuffles=RecordedShuffles(_shuffle_orders(record)))
    log = _TurnLog(state)
    state.record["turns"] = log  # type: ignore[index]
    for kept in record["setup"]["kept"]:
        state.apply(A.KeepDestinations(tuple(kept)))
    for turn in record["turns"]:
        for action in _decisions(turn):
            state.apply(action)
    if len(log.tables) != len(record["turns"]):  # the engine no longer logs turns this way
        raise RecordError("cannot rebuild the table after each turn of this record")
    return log.tables


def recompute_scores(
    record: dict[str, Any], catalogue: Catalogue | None = None
) -> tuple[list[int], list[int]]:
    """Final scores and winners from the record's resolutions alone (R20-R22, no engine)."""
    catalogue = catalogue or default_catalogue()
    players = int(record["players"])
    reached: list[list[int]] = [[] for _ in range(players)]
    for resolution in record["resolutions"]:
        for seat in resolution["seats"]:
            reached[seat["seat"]].extend(seat["reached"])
    held = [seat["unreached"] for seat in record["resolutions"][-1]["seats"]]
    scores = final_scores(reached, held, catalogue)
    return [s.total for s in scores], list(winners(scores))
