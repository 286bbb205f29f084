"""Game records: JSON that replays a game without the engine's RNG (docs/record-format.md).

A record holds every shuffle's result, so replay feeds those orders back to the engine,
re-applies the recorded decisions, and compares each turn with what was recorded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import actions as A
from .cards import CARD_NAMES
from .catalogue import Catalogue, default_catalogue
from .errors import CardgameError, IllegalActionError, RecordError
from .game import Game
from .rules import Rules
from .scoring import final_scores, winners
from .shuffling import RecordedShuffles
from .state import GameState, Phase

FORMAT = "ttr-cardgame-record"
VERSION = 1
_CARD_INDEX = {name: i for i, name in enumerate(CARD_NAMES)}


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


def load(path: Path) -> list[dict[str, Any]]:
    """Read one record (JSON) or many (JSON Lines) from ``path``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        pass  # several objects: JSON Lines
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path}, line {number}: not valid JSON ({exc.msg})") from None
    if not records or not all(isinstance(r, dict) for r in records):
        raise RecordError(f"{path}: holds no game record")
    return records


@dataclass(frozen=True)
class ReplayResult:
    """The outcome of a replay: ``ok`` when every turn and the final scores match."""

    ok: bool
    turns: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    divergence: str | None = None


def _shuffle_orders(record: dict[str, Any]) -> list[tuple[str, list[int]]]:
    orders = []
    for entry in record["shuffles"]:
        order = entry["order"]
        if entry["kind"].startswith("train"):
            order = [_CARD_INDEX[name] for name in order]
        orders.append((entry["kind"], [int(c) for c in order]))
    return orders


def _decisions(turn: dict[str, Any]) -> Iterator[A.Action]:
    """The decisions a recorded turn was made of, in order."""
    yield A.from_dict(turn["action"])
    picks = turn.get("picks", [])
    for pick in picks[1:]:
        yield A.DRAW_DECK if pick["from"] == "deck" else A.DRAW_FACE_UP[int(pick["slot"])]
    if "destinations" in turn:
        yield A.KeepDestinations(tuple(turn["destinations"]["kept"]))


def _first_difference(expected: dict[str, Any], actual: dict[str, Any]) -> str:
    for key in sorted(set(expected) | set(actual)):
        if expected.get(key) != actual.get(key):
            return f"{key}: recorded {expected.get(key)!r}, replayed {actual.get(key)!r}"
    return "identical"


def replay(record: dict[str, Any], catalogue: Catalogue | None = None) -> ReplayResult:
    """Re-execute ``record`` and check it turn by turn; never uses the engine's RNG."""
    try:
        return _replay(record, catalogue or default_catalogue())
    except RecordError:
        raise
    except CardgameError as exc:
        raise RecordError(f"record does not replay: {exc}") from None
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RecordError(f"malformed record: {type(exc).__name__} {exc}") from None


def _replay(record: dict[str, Any], catalogue: Catalogue) -> ReplayResult:
    if record.get("format") != FORMAT:
        raise RecordError(f"not a {FORMAT} (format is {record.get('format')!r})")
    if record.get("version") != VERSION:
        raise RecordError(f"record version {record.get('version')!r}; this engine reads {VERSION}")
    game = Game(
        int(record["players"]), int(record["seed"]), Rules.from_dict(record["rules"]), catalogue
    )
    state = game.new_state(record=True, shuffles=RecordedShuffles(_shuffle_orders(record)))
    for kept in record["setup"]["kept"]:
        state.apply(A.KeepDestinations(tuple(kept)))
    recorded_turns = record["turns"]
    for index, turn in enumerate(recorded_turns):
        where = f"turn {turn.get('turn', index + 1)} (seat {turn.get('seat')})"
        if state.is_over:
            return _diverged(state, f"{where}: the replayed game ended before it")
        try:
            for action in _decisions(turn):
                state.apply(action)
        except IllegalActionError as exc:
            return _diverged(state, f"{where}: {exc}")
        replayed = state.record["turns"][index]  # type: ignore[index]
        if replayed != turn:
            return _diverged(state, f"{where}: {_first_difference(turn, replayed)}")
    if not state.is_over:
        return _diverged(state, f"the record ends at turn {len(recorded_turns)}; the game goes on")
    if state.record["resolutions"] != record["resolutions"]:  # type: ignore[index]
        return _diverged(state, "destination resolution differs from the record")
    scores = tuple(s.total for s in state.scores)
    recorded = tuple(s["total"] for s in record["result"]["scores"])
    if scores != recorded or list(state.winners) != record["result"]["winners"]:
        return _diverged(state, f"final scores {scores} differ from recorded {recorded}")
    return ReplayResult(True, state.turn, scores, state.winners)


def _diverged(state: GameState, why: str) -> ReplayResult:
    scores = tuple(s.total for s in state.scores) if state.phase == Phase.OVER else ()
    return ReplayResult(False, state.turn, scores, state.winners, why)


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
