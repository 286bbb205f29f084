"""Readable English narration of a game record, turn by turn (`cardgame play`, `replay`).

A pure function of the record and the catalogue. The verbose view shows what the record does
not hold (hands, yards, circulation piles after each turn) by re-executing the record through
the engine, so give it only a record that replays (``record.replay``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .cards import CARD_NAMES, colour_name
from .catalogue import Catalogue
from .record import Table, record_catalogue, turn_tables


def plural(count: int, word: str) -> str:
    """``1 card``, ``2 cards``, ``1 locomotive``, ``3 locomotives``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _card_count(count: int, name: str) -> str:
    return plural(count, name) if name == "locomotive" else f"{count} {name}"


def _cards(names: Iterable[str]) -> str:
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(_card_count(n, name) for name, n in counts.items()) or "nothing"


def pile_text(counts: list[int], names: tuple[str, ...] = CARD_NAMES) -> str:
    """A pile's counts in words (``names``: the game's card kinds, ``Catalogue.card_names``)."""
    if len(names) != len(counts):  # a game of other colours, its names not at hand
        names = (*(colour_name(c) for c in range(len(counts) - 1)), "locomotive")
    return ", ".join(_card_count(n, names[c]) for c, n in enumerate(counts) if n) or "nothing"


def destination(dest_id: int, catalogue: Catalogue) -> str:
    """``#24 Denver-El Paso (7)``: id, cities and points."""
    d = catalogue.destination(dest_id)
    return f"#{d.id} {d.city_a}-{d.city_b} ({d.points})"


def _destinations(ids: Iterable[int], catalogue: Catalogue) -> str:
    return "; ".join(destination(d, catalogue) for d in ids) or "none"


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
        locos = f" + {plural(action['locos'], 'locomotive')}" if action["locos"] else ""
        return f"places a column of {action['wagons']} {action['colour']}{locos} in the yard"
    if kind == "place_three":
        return "places 1 each of " + ", ".join(action["colours"]) + " in the yard"
    if kind == "draw_destinations":
        drawn = turn["destinations"]["drawn"]
        kept = turn["destinations"]["kept"]
        return (
            f"draws {plural(len(drawn), 'destination')} ({_destinations(drawn, catalogue)}) "
            f"and keeps {_destinations(kept, catalogue)}"
        )
    return "passes (no legal action)"


def _tables(table: Table, names: tuple[str, ...] = CARD_NAMES) -> Iterator[str]:
    """Each seat's hand, yard columns and circulation pile (the verbose view)."""
    for seat, hand in enumerate(table.hands):
        yard = [
            f"{names[c]} {table.yard_wagons[c]}"
            + (f" + {plural(table.yard_locos[c], 'locomotive')}" if table.yard_locos[c] else "")
            for c in range(len(names) - 1)
            if table.yard_owner[c] == seat
        ]
        yield (
            f"      seat {seat}: hand {pile_text(list(hand), names)}; "
            f"yard {', '.join(yard) or 'empty'}; "
            f"circulation {pile_text(list(table.circulation[seat]), names)}"
        )


def narrate(
    record: dict[str, Any], catalogue: Catalogue | None = None, verbose: bool = False
) -> Iterator[str]:
    """Yield the lines of a narration of ``record``; ``verbose`` adds each seat's cards."""
    catalogue = record_catalogue(record, catalogue)
    players = record["players"]
    names = record["strategies"]
    yield f"Ticket to Ride: The Card Game - {players} players, seed {record['seed']}"
    yield "Seats: " + ", ".join(f"{s} ({names[s]})" for s in range(players))
    for seat, kept in enumerate(record["setup"]["kept"]):
        dealt = len(record["setup"]["dealt"][seat])
        yield (
            f"Setup: seat {seat} keeps {len(kept)} of {plural(dealt, 'destination')}: "
            f"{_destinations(kept, catalogue)}"
        )
    rounds = {r["round"]: r for r in record["rounds"]}
    resolutions = {r["round"]: r for r in record["resolutions"]}
    tables = iter(turn_tables(record, catalogue)) if verbose else None
    kinds = catalogue.card_names
    current_round = 0
    in_final = False
    for turn in record["turns"]:
        if turn["round"] != current_round:
            if current_round in resolutions:
                yield from resolution_lines(resolutions[current_round], catalogue)
            current_round = turn["round"]
            in_final = False
            start = rounds[current_round]
            row = ", ".join(str(c) for c in start["face_up"])
            yield f"--- Round {current_round}: face-up row {row}"
            if verbose:
                for seat, hand in enumerate(start["hands"]):
                    yield f"      seat {seat} is dealt {_cards(hand)}"
        if turn["final_round"] and not in_final:
            in_final = True
            yield "*** The train deck is empty: final round, each seat plays one more turn (R15)"
        yield turn_line(turn, catalogue)
        if tables is not None:
            yield from _tables(next(tables), kinds)
    if current_round in resolutions:
        yield from resolution_lines(resolutions[current_round], catalogue)
    yield from _final_table(record)


def turn_line(turn: dict[str, Any], catalogue: Catalogue) -> str:
    step1 = turn["step1"]
    moved = f"moves {_cards(step1)} to circulation; " if step1 else ""
    line = f"Turn {turn['turn']:3d} seat {turn['seat']}: {moved}{_action(turn, catalogue)}"
    if "steal" in turn:
        steal = turn["steal"]
        lost = steal["discarded"]["wagons"] + steal["discarded"]["locos"]
        line += (
            f"; seat {steal['victim']} discards its {steal['colour']} column "
            f"({plural(lost, 'card')})"
        )
    return line


def resolution_lines(resolution: dict[str, Any], catalogue: Catalogue) -> Iterator[str]:
    yield f"--- Round {resolution['round']} resolution (R16)"
    for seat in resolution["seats"]:
        got = seat["reached"]
        points = sum(catalogue.destination(d).points for d in got)
        yield (
            f"  seat {seat['seat']}: reaches {_destinations(got, catalogue)} "
            f"({plural(points, 'point')}); not reached: "
            f"{_destinations(seat['unreached'], catalogue)}"
        )


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
    yield (
        f"Seat {' and '.join(str(s) for s in won)} {verb} after {plural(result['turns'], 'turn')}."
    )
