"""Readable English narration of a game record, turn by turn (for `cardgame play`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .catalogue import Catalogue, default_catalogue


def _cards(names: list[str]) -> str:
    if not names:
        return "nothing"
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{n} {name}" for name, n in counts.items())


def _action(turn: dict[str, Any], catalogue: Catalogue) -> str:
    action = turn["action"]
    kind = action["type"]
    if kind in ("draw_deck", "draw_face_up"):
        parts = []
        for pick in turn.get("picks", []):
            if pick["from"] == "deck":
                parts.append(f"{pick['card']} from the deck")
            else:
                refill = pick["refill"] or "nothing (deck empty)"
                parts.append(f"face-up {pick['card']} (slot {pick['slot']}, refilled {refill})")
        return "draws " + " and ".join(parts)
    if kind == "place_column":
        locos = f" + {action['locos']} locomotive" if action["locos"] else ""
        return f"places a column of {action['wagons']} {action['colour']}{locos} in the yard"
    if kind == "place_three":
        return "places 1 each of " + ", ".join(action["colours"]) + " in the yard"
    if kind == "draw_destinations":
        drawn = turn["destinations"]["drawn"]
        kept = turn["destinations"]["kept"]
        kept_text = ", ".join(catalogue.destination(d).label() for d in kept) or "none"
        return f"draws {len(drawn)} destinations and keeps {kept_text}"
    return "passes (no legal action)"


def narrate(record: dict[str, Any], catalogue: Catalogue | None = None) -> Iterator[str]:
    """Yield the lines of a narration of ``record``."""
    catalogue = catalogue or default_catalogue()
    players = record["players"]
    names = record["strategies"]
    yield f"Ticket to Ride: The Card Game - {players} players, seed {record['seed']}"
    yield "Seats: " + ", ".join(f"{s} ({names[s]})" for s in range(players))
    for seat, kept in enumerate(record["setup"]["kept"]):
        labels = "; ".join(catalogue.destination(d).label() for d in kept)
        dealt = len(record["setup"]["dealt"][seat])
        yield f"Setup: seat {seat} keeps {len(kept)} of {dealt} destinations: {labels}"
    rounds = {r["round"]: r for r in record["rounds"]}
    resolutions = {r["round"]: r for r in record["resolutions"]}
    current_round = 0
    in_final = False
    for turn in record["turns"]:
        if turn["round"] != current_round:
            if current_round in resolutions:
                yield from _resolution(resolutions[current_round], catalogue)
            current_round = turn["round"]
            in_final = False
            row = ", ".join(str(c) for c in rounds[current_round]["face_up"])
            yield f"--- Round {current_round}: face-up row {row}"
        if turn["final_round"] and not in_final:
            in_final = True
            yield "*** The train deck is empty: final round, each seat plays one more turn (R15)"
        step1 = turn["step1"]
        moved = f"moves {_cards(step1)} to circulation; " if step1 else ""
        line = f"Turn {turn['turn']:3d} seat {turn['seat']}: {moved}{_action(turn, catalogue)}"
        if "steal" in turn:
            steal = turn["steal"]
            lost = steal["discarded"]["wagons"] + steal["discarded"]["locos"]
            line += f"; seat {steal['victim']} discards its {steal['colour']} column ({lost} cards)"
        yield line
    if current_round in resolutions:
        yield from _resolution(resolutions[current_round], catalogue)
    yield from _final_table(record)


def _resolution(resolution: dict[str, Any], catalogue: Catalogue) -> Iterator[str]:
    yield f"--- Round {resolution['round']} resolution (R16)"
    for seat in resolution["seats"]:
        got = seat["reached"]
        points = sum(catalogue.destination(d).points for d in got)
        reached = ", ".join(f"#{d}" for d in got) or "none"
        missed = ", ".join(f"#{d}" for d in seat["unreached"]) or "none"
        yield f"  seat {seat['seat']}: reaches {reached} ({points} pts); not reached: {missed}"


def _final_table(record: dict[str, Any]) -> Iterator[str]:
    result = record["result"]
    yield "--- Final scores (R20-R22)"
    yield (
        f"  {'seat':<5}{'strategy':<16}{'reached':>8}{'dest pts':>9}{'penalty':>9}"
        f"{'bonus':>7}{'total':>7}  big cities"
    )
    for score in result["scores"]:
        seat = score["seat"]
        yield (
            f"  {seat:<5}{record['strategies'][seat]:<16}{score['reached']:>8}"
            f"{score['destination_points']:>9}{-score['penalties']:>9}{score['bonus_points']:>7}"
            f"{score['total']:>7}  {', '.join(score['big_city_bonuses']) or '-'}"
        )
    won = result["winners"]
    verb = "wins" if len(won) == 1 else "share the win"
    yield f"Seat {' and '.join(str(s) for s in won)} {verb} after {result['turns']} turns."
