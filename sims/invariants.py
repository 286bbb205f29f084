"""The rules' invariants, checked on a finished game before it counts as a result.

A strategy cannot reach the state through its view, but determined introspection (gc,
frames) can: a game whose cards, yards, destinations or scores do not add up is a failed
game ("invariant broken: ..."), never a row of the results. The check reads the state once,
after the last decision (a few percent of a game's time; even the card count alone after
every decision would cost about 10%).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from cardgame import Catalogue, GameState, Phase
from cardgame.scoring import winners

NO_CARD = -1
NOBODY = -1


def invariant_problem(state: GameState) -> str | None:
    """What is broken in ``state`` (one line), or None; never raises."""
    try:
        for check in (_cards, _yards, _destinations, _scores):
            problem = check(state)
            if problem is not None:
                return problem
    except Exception as exc:  # a state mangled beyond reading is broken too
        return f"state unreadable ({type(exc).__name__}: {exc})"
    return None


def _is_count(value: object) -> bool:
    return type(value) is int and value >= 0


def _pile(name: str, counts: object, kinds: int) -> str | None:
    if type(counts) is not list or len(counts) != kinds:
        return f"{name} is not a list of {kinds} counts"
    for card, n in enumerate(counts):
        if not _is_count(n):
            return f"{name} holds {n!r} of card {card}"
    return None


def _cards(state: GameState) -> str | None:
    """Every pile a list of whole counts >= 0; each card kind exactly as the game's deck
    holds it (R1: the catalogue's deck, printed 10 of each colour and 16 locomotives)."""
    catalogue = state.game.catalogue  # the game's colours, and the locomotive last
    kinds, loco = catalogue.kinds, catalogue.loco
    totals = [0] * kinds
    piles: list[tuple[str, object]] = [("discard", state.discard)]
    piles += [(f"seat {s}'s hand", h) for s, h in enumerate(state.hands)]
    piles += [(f"seat {s}'s circulation", c) for s, c in enumerate(state.circulation)]
    for name, counts in piles:
        problem = _pile(name, counts, kinds)
        if problem is not None:
            return problem
        for card, n in enumerate(cast(list[int], counts)):  # a list of counts: _pile checked
            totals[card] += n
    for name, cards in (("deck", state.deck), ("face-up row", state.face_up)):
        for card in cards:
            if type(card) is not int or not NO_CARD <= card < kinds:
                return f"the {name} holds {card!r}"
            if card == NO_CARD and name == "deck":
                return "the deck holds an empty slot"
            if card != NO_CARD:
                totals[card] += 1
    for c in range(loco):
        totals[c] += state.yard_wagons[c]
        totals[loco] += state.yard_locos[c]
    deck = catalogue.deck
    if sum(totals) != sum(deck):
        return f"{sum(totals)} train cards on the table, expected {sum(deck)}"
    for card, n in enumerate(totals):
        if n != deck[card]:
            return f"{n} cards of kind {card} ({catalogue.card_names[card]}), expected {deck[card]}"
    return None


def _yards(state: GameState) -> str | None:
    """One owner per colour (R12); an owned column has a wagon, an empty one no owner."""
    owners, wagons, locos = state.yard_owner, state.yard_wagons, state.yard_locos
    colours = state.game.catalogue.loco
    if not all(type(x) is list and len(x) == colours for x in (owners, wagons, locos)):
        return "the yards are not one entry per colour"
    for c in range(colours):
        owner, w, lo = owners[c], wagons[c], locos[c]
        if not (_is_count(w) and _is_count(lo)) or type(owner) is not int:
            return f"yard of colour {c} holds {owner!r}, {w!r}, {lo!r}"
        if owner == NOBODY and (w or lo):
            return f"colour {c} has {w + lo} cards in no one's yard"
        if owner != NOBODY and (not 0 <= owner < state.players or w < 1):
            return f"colour {c}: seat {owner}'s yard has {w} wagons and {lo} locomotives"
    return None


def _destinations(state: GameState) -> str | None:
    """Every destination card in exactly one place: deck, an offer, held or reached."""
    places: list[tuple[str, Iterable[object]]] = [("deck", state.dest_deck)]
    for seat in range(state.players):
        places += [(f"seat {seat}'s offer", state.offers[seat])]
        places += [(f"seat {seat}'s held", state.held[seat])]
        places += [(f"seat {seat}'s reached", state.reached[seat])]
    seen: dict[object, str] = {}
    for name, ids in places:
        for dest_id in ids:
            if dest_id in seen:
                return f"destination {dest_id!r} both in {seen[dest_id]} and {name}"
            seen[dest_id] = name
    expected = {d.id for d in state.game.catalogue.destinations}
    if set(seen) != expected:
        odd = sorted(map(repr, set(seen) ^ expected))[:3]
        return f"destinations do not add up (e.g. {', '.join(odd)})"
    return None


def _scores(state: GameState) -> str | None:
    """The final scores and winners follow from who reached and holds what (R20-R22).

    Recomputed here from the destinations (not by calling the engine's scoring again): a
    scoring function replaced at runtime would agree with itself.
    """
    if state.phase != Phase.OVER:
        return "the game is not over"
    catalogue = state.game.catalogue
    points = {d.id: d.points for d in catalogue.destinations}
    bonus = {b.city: b.points for b in catalogue.big_cities}
    scores = state.scores
    if len(scores) != state.players:
        return f"{len(scores)} scores for {state.players} seats"
    won: list[set[str]] = [set() for _ in range(state.players)]
    for city, ids in _city_ids(catalogue).items():
        counts = [len(ids.intersection(reached)) for reached in state.reached]
        top = max(counts)
        for seat, n in enumerate(counts):
            if top >= 1 and n == top:
                won[seat].add(city)
    for seat, score in enumerate(scores):
        reached, held = state.reached[seat], state.held[seat]
        expected = (
            seat,
            sum(points[d] for d in reached),
            sum(points[d] for d in held),
            won[seat],
            sum(bonus[c] for c in won[seat]),
            len(reached),
        )
        actual = (
            score.seat,
            score.destination_points,
            score.penalties,
            set(score.big_cities),
            score.bonus_points,
            score.reached,
        )
        if actual != expected:
            return f"seat {seat}'s score does not follow from its destinations"
        if sum(state.round_points[seat]) != expected[1]:
            return f"seat {seat}'s round points do not add up to its destinations reached"
    if tuple(winners(scores)) != tuple(state.winners):
        return "the winners do not follow from the scores"
    return None


_CITY_IDS: dict[int, tuple[Catalogue, dict[str, frozenset[int]]]] = {}


def _city_ids(catalogue: Catalogue) -> dict[str, frozenset[int]]:
    """Per big city, the ids of the destinations naming it (cached per catalogue)."""
    cached = _CITY_IDS.get(id(catalogue))
    if cached is None or cached[0] is not catalogue:
        ids = {
            city: frozenset(d.id for d in catalogue.destinations if city in (d.city_a, d.city_b))
            for city in catalogue.big_city_names
        }
        cached = _CITY_IDS[id(catalogue)] = (catalogue, ids)
    return cached[1]
