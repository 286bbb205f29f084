"""Game records: JSON that replays a game without the engine's RNG (docs/record-format.md).

A record holds every shuffle's result, so replay feeds those orders back to the engine,
re-applies the recorded decisions, compares each turn with what was recorded, and at the end
compares every field of the record with the record the engine re-derives. A content digest
covers what replay cannot re-derive (the strategy names), so any edit is detected.

Two kinds of failure: a value that is not a record (bad JSON, wrong shape or types, unknown
keys, another format or version: ``record_schema``) raises ``RecordError``; a well-formed
record whose content differs from the replay, or from its digest, gives
``ReplayResult(ok=False)`` naming the first differing field.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from . import actions as A
from .cards import CARD_NAMES, COLOURS
from .catalogue import Catalogue, catalogue_from_rows, catalogue_rows, default_catalogue
from .errors import CardgameError, DataError, IllegalActionError, RecordError
from .game import Game
from .record_schema import (
    DIGEST_PREFIX,
    FORMAT,
    TRAIN_KINDS,
    VERSION,
    entries,
    join,
    kind,
    rules_dict,
    validate,
)
from .rules import Rules
from .scoring import final_scores, winners
from .shuffling import RecordedShuffles, SeedCheckedShuffles
from .state import GameState, Phase

__all__ = [
    "FORMAT",
    "VERSION",
    "Entry",
    "ReplayResult",
    "Table",
    "decisions",
    "digest_of",
    "dumps",
    "first_difference",
    "load",
    "parse_json",
    "read_entries",
    "read_in_pieces",
    "read_record_file",
    "recompute_scores",
    "record_catalogue",
    "record_head",
    "replay",
    "save",
    "shuffle_orders",
    "to_record",
    "turn_tables",
    "validate",
]


def _names(counts: Sequence[int], names: tuple[str, ...] = CARD_NAMES) -> list[str]:
    """A hand of card counts as card names (``names``: the game's), in card order."""
    return [names[card] for card, n in enumerate(counts) for _ in range(n)]


def _content(state: GameState, strategies: Sequence[str] | None) -> dict[str, Any]:
    """Every field of the record but the digest."""
    if state.record is None:
        raise RecordError("this game was played without recording (new_state(record=True))")
    if not state.is_over:
        raise RecordError("the game is not over yet")
    game = state.game
    kinds = game.catalogue.card_names
    names = list(strategies) if strategies is not None else ["unknown"] * state.players
    return {
        **record_head(game),
        "seed": game.seed,
        "players": state.players,
        "strategies": names,
        **state.record,
        # the table at the end: what the last decisions did, which nothing later shows
        "final": {
            "face_up": [kinds[c] if c != A.NO_CARD else None for c in state.face_up],
            "hands": [_names(hand, kinds) for hand in state.hands],
        },
        "result": {
            "scores": [s.to_dict() for s in state.scores],
            "round_points": [list(p) for p in state.round_points],
            "winners": list(state.winners),
            "turns": state.turn,
            "steals": list(state.steals),
            "stolen_from": list(state.stolen_from),
        },
    }


def record_head(game: Game) -> dict[str, Any]:
    """A record's first fields, which its game fixes before any card is dealt: the format,
    the rules, and the cards when they are not the printed ones (a study's card edits,
    --cards) with the edition they are (its name and content digest)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": rules_dict(game.rules, game.players),
        **(_cards(game.catalogue) if _edited(game.catalogue) else {}),
    }


def _edited(catalogue: Catalogue) -> bool:
    return catalogue is not default_catalogue() and catalogue != default_catalogue()


def _cards(catalogue: Catalogue) -> dict[str, Any]:
    return {
        "cards": catalogue_rows(catalogue),
        "edition": {"name": catalogue.name, "digest": catalogue.digest},
    }


def record_catalogue(record: dict[str, Any], catalogue: Catalogue | None = None) -> Catalogue:
    """The cards a record was played with: its own ``cards`` when it carries them, else
    ``catalogue`` (default: the printed cards)."""
    rows = record.get("cards")
    if rows is None:
        return catalogue or default_catalogue()
    edition = record.get("edition")
    name = edition.get("name") if isinstance(edition, dict) else None
    try:
        cards = catalogue_from_rows(rows, "cards", name if isinstance(name, str) else "edited")
    except DataError as exc:
        raise RecordError(f"not a valid record: {exc}") from None
    return cards  # a stated digest that is not its cards' makes the replay diverge there


def to_record(state: GameState, strategies: Sequence[str] | None = None) -> dict[str, Any]:
    """The finished game as one JSON-ready object. The state must have been recorded."""
    record = _content(state, strategies)
    record["digest"] = digest_of(record)
    return record


def digest_of(record: dict[str, Any]) -> str:
    """``sha256:`` and the hex SHA-256 of the record without its ``digest``, as canonical
    JSON (keys sorted, no spaces, ASCII): key order and layout of a file do not matter,
    any change of a value does."""
    content = {k: v for k, v in record.items() if k != "digest"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return DIGEST_PREFIX + hashlib.sha256(text.encode("ascii")).hexdigest()


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


class _Duplicated(dict[str, Any]):
    """A JSON object that named ``duplicate`` twice (json keeps the last value silently)."""

    duplicate = ""


def _first_repeat(pairs: list[tuple[str, Any]]) -> str:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return ""


def _duplicate_path(value: Any) -> str:
    """The path of a key named twice: in the first such object met walking from the top."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _Duplicated):
            return join(path, item.duplicate)
        if isinstance(item, dict):
            stack.extend(reversed([(join(path, k), v) for k, v in item.items()]))
        elif isinstance(item, list):
            stack.extend(reversed([(f"{path}[{i}]", v) for i, v in enumerate(item)]))
    return "?"


def parse_json(data: bytes) -> Any:
    """Parse strict JSON from bytes; every failure is a ValueError with a one-line message.

    A key named twice in one object is refused: json would keep one of the two values
    silently, so the file would say two things and replay check only one.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        raise ValueError(f"not UTF-8 text (byte {byte:#04x} at offset {exc.start})") from None
    duplicated = False

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal duplicated
        value = dict(pairs)
        if len(value) == len(pairs):
            return value
        duplicated = True
        marked = _Duplicated(value)
        marked.duplicate = _first_repeat(pairs)
        return marked

    try:
        value = json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
            object_pairs_hook=unique_keys,
        )
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ValueError("not a record: JSON nested too deeply") from None
    except ValueError as exc:  # refused constants, huge floats, ints past the digit limit
        raise ValueError(f"not valid JSON ({str(exc).splitlines()[0]})") from None
    if duplicated:
        path = _duplicate_path(value)
        raise ValueError(f"not a valid record: {path}: the key appears twice in one object")
    return value


MAX_RECORD_FILE = 1 << 30  # bytes: some 100,000 games, far past a run's batch (1,000 at most)


def read_record_file(path: str | Path, opened: BinaryIO | None = None) -> bytes:
    """A record file's bytes, refused past ``MAX_RECORD_FILE`` before any is read where its
    size is known, and never read past it (a pipe): a file grown to 8 TiB of holes made every
    reader fail with a MemoryError (hostile pass 26r's odd26.py). ``opened``: the file
    already open (a caller that checked what it opened), else ``path`` is opened."""
    with open(path, "rb") if opened is None else opened as file:
        info = os.fstat(file.fileno())
        size = info.st_size
        if size > MAX_RECORD_FILE:
            data = b""
        elif stat.S_ISREG(info.st_mode):  # a read of n bytes takes n at once: its size, +1
            data = file.read(size + 1)
            if len(data) > size:  # grown meanwhile: the rest in pieces, up to the bound
                data += _read_pieces(file, MAX_RECORD_FILE + 1 - len(data))
        else:  # a pipe: in pieces, as it comes
            data = _read_pieces(file, MAX_RECORD_FILE + 1)
    if size > MAX_RECORD_FILE or len(data) > MAX_RECORD_FILE:
        found = f"{size:,} bytes, " if size > MAX_RECORD_FILE else ""
        limit = f"{MAX_RECORD_FILE >> 30} GiB"
        raise RecordError(f"{path}: {found}more than the {limit} a record file may hold")
    return data


def _read_pieces(file: BinaryIO, limit: int) -> bytes:
    """At most ``limit`` bytes of a stream with no size (a read of the whole bound at once
    reserves a GiB, a MemoryError under a memory limit: hostile pass 31r's aslimit31.sh)."""
    return b"".join(read_in_pieces(file, limit))


def read_in_pieces(file: BinaryIO, limit: int) -> Iterator[bytes]:
    """At most ``limit`` bytes of ``file``, 1 MiB at a time, never more held at once."""
    left = limit
    while left > 0 and (piece := file.read(min(left, 1 << 20))):
        yield piece
        left -= len(piece)


def read_entries(path: Path, read: Callable[[Path], bytes] = read_record_file) -> list[Entry]:
    """The games in ``path``: one JSON document, or JSON Lines (each line parsed on its own).

    A file is read as JSON Lines only if at least one line holds a JSON object; otherwise the
    whole file is refused with one RecordError (binary data, broken JSON, an empty file).
    ``read`` reads it once (a sealed results folder's check hands one over: its bytes are
    then those its seal's check hashed).
    """
    try:
        data = read(path)
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
            raise RecordError(f"{path}{where}: holds no game record ({kind(entry.value)})")
        records.append(entry.value)
    return records


# ------------------------------------------------------------------------ replay
@dataclass(frozen=True)
class ReplayResult:
    """The outcome of a replay: ``ok`` when every field of the record matches the replay."""

    ok: bool
    turns: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    divergence: str | None = None


def shuffle_orders(
    record: dict[str, Any], names: tuple[str, ...] = CARD_NAMES
) -> list[tuple[str, list[int]]]:
    """The recorded shuffles, the train cards by kind (``names``: the game's card names,
    ``Catalogue.card_names``)."""
    index = {name: i for i, name in enumerate(names)}
    orders = []
    for entry in record["shuffles"]:
        order = entry["order"]
        if entry["kind"] in TRAIN_KINDS:
            order = [index[name] for name in order]
        orders.append((entry["kind"], list(order)))
    return orders


def decisions(turn: dict[str, Any], colours: tuple[str, ...] = COLOURS) -> Iterator[A.Action]:
    """The decisions a recorded turn was made of, in order (``colours``: the game's)."""
    yield A.from_dict(turn["action"], colours)
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
                expected.get(key, _MISSING), recorded.get(key, _MISSING), join(path, key)
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
            f"{path}: expected {entries(len(expected))} {_show(expected)}, "
            f"recorded {entries(len(recorded))} {_show(recorded)}"
        )
    if type(expected) is type(recorded) and expected == recorded:
        return None
    return f"{path}: expected {_show(expected)}, recorded {_show(recorded)}"


def replay(record: Any, catalogue: Catalogue | None = None) -> ReplayResult:
    """Check ``record``'s shape, re-execute it, compare every field, then the digest; never
    uses the RNG for the game (the seed is checked against the recorded shuffles, not used
    to play). Fields first: a field's difference says more than a digest's."""
    rules = validate(record)
    try:
        return _replay(record, rules, record_catalogue(record, catalogue))
    except RecordError:
        raise
    except CardgameError as exc:
        raise RecordError(f"record does not replay: {exc}") from None
    except (KeyError, TypeError, ValueError, IndexError, ArithmeticError, RecursionError) as exc:
        raise RecordError(f"malformed record: {type(exc).__name__} {exc}") from None


def _replay(record: dict[str, Any], rules: Rules, catalogue: Catalogue) -> ReplayResult:
    game = Game(record["players"], record["seed"], rules, catalogue)
    shuffles = SeedCheckedShuffles(shuffle_orders(record, catalogue.card_names), record["seed"])
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
            for action in decisions(turn, catalogue.colours):
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
    expected = _content(state, record["strategies"])
    if "edition" not in record:  # a record of edited cards made before editions were named
        expected.pop("edition", None)
    expected["shuffles"] = [
        {
            "kind": name,
            "order": [catalogue.card_names[c] for c in order] if name in TRAIN_KINDS else order,
        }
        for name, order in shuffles.seeded
    ]
    found = first_difference(expected, {k: v for k, v in record.items() if k != "digest"})
    if found:
        if found.startswith("shuffles"):
            found += f" (the recorded shuffles are not those of seed {record['seed']})"
        return _diverged(state, found)
    # every field replay re-derives matches: the digest covers the rest (the strategy names)
    digest = digest_of(record)
    if digest != record["digest"]:
        return _diverged(
            state,
            f"digest: expected {digest}, recorded {record['digest']} (the record was edited "
            "after it was written, in a field replay cannot re-derive, such as a strategy name)",
        )
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


class _TurnLog(list[Any]):
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
    catalogue = record_catalogue(record, catalogue)
    game = Game(record["players"], record["seed"], rules, catalogue)
    state = game.new_state(
        record=True, shuffles=RecordedShuffles(shuffle_orders(record, catalogue.card_names))
    )
    log = _TurnLog(state)
    state.record["turns"] = log  # type: ignore[index]
    for kept in record["setup"]["kept"]:
        state.apply(A.KeepDestinations(tuple(kept)))
    for turn in record["turns"]:
        for action in decisions(turn, catalogue.colours):
            state.apply(action)
    if len(log.tables) != len(record["turns"]):  # the engine no longer logs turns this way
        raise RecordError("cannot rebuild the table after each turn of this record")
    return log.tables


def recompute_scores(
    record: dict[str, Any], catalogue: Catalogue | None = None
) -> tuple[list[int], list[int]]:
    """Final scores and winners from the record's resolutions alone (R20-R22, no engine)."""
    catalogue = record_catalogue(record, catalogue)
    players = int(record["players"])
    reached: list[list[int]] = [[] for _ in range(players)]
    for resolution in record["resolutions"]:
        for seat in resolution["seats"]:
            reached[seat["seat"]].extend(seat["reached"])
    held = [seat["unreached"] for seat in record["resolutions"][-1]["seats"]]
    scores = final_scores(reached, held, catalogue)
    return [s.total for s in scores], list(winners(scores))
