"""Card edits: the printed numbers a study may change (a designer's what-if).

A variant or a sweep names edits to the card data beside its rule settings:
``destinations = { 24 = { points = 10 } }`` (a ticket's points, by id),
``big_cities = { Chicago = 10 }`` (a big city's bonus) and ``deck = { red = 12,
locomotive = 14 }`` (how many train cards of a kind the deck holds, R1). Edits apply to a
catalogue (the printed one, or a folder given with ``--cards``) and give another catalogue,
which both engines read like the printed one. ``CardEdits.from_dict`` is the boundary: an
unknown id, city or card kind, a value that is not a whole number or is out of a card's
range (1-99 points, 1-50 for a bonus, 0-20 cards of a colour, 0-40 locomotives) is refused in
one line naming the key. Whether a deck can deal a player count depends on the rules too:
``Game`` and the study loader check that (``Rules.deal_problem``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .cards import CARD_NAMES
from .catalogue import MAX_BIG_CITY_POINTS, MAX_POINTS, Catalogue, deck_bounds
from .errors import RulesError
from .value import Value

KINDS = ("destinations", "big_cities", "deck")


class _CardEditsFields(NamedTuple):
    destinations: tuple[tuple[int, int], ...] = ()  # (id, points), sorted by id
    big_cities: tuple[tuple[str, int], ...] = ()  # (city, bonus points), sorted by city
    deck: tuple[tuple[int, int], ...] = ()  # (card kind, count), sorted by kind


class CardEdits(Value, _CardEditsFields):
    """What a variant changes in the card data; empty: the cards as loaded."""

    __slots__ = ()

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], catalogue: Catalogue, where: str = "cards"
    ) -> CardEdits:
        """Parse ``{"destinations": {id: {"points": n}}, "big_cities": {city: n},
        "deck": {kind: n}}`` against the catalogue it will edit (ids and cities must exist
        there; kinds are the colours and ``locomotive``)."""
        where = f"{where}." if where else ""  # "": keys named from the edit's own top
        unknown = sorted(set(data) - set(KINDS))
        if unknown:
            raise RulesError(f"{where}{unknown[0]}: unknown card edit (known: {', '.join(KINDS)})")
        destinations = _destinations(data.get("destinations", {}), catalogue, where)
        cities = _big_cities(data.get("big_cities", {}), catalogue, where)
        deck = _deck(data.get("deck", {}), where, catalogue)
        # a value the card already has is no edit: a variant differs only where it edits
        bonus = {b.city: b.points for b in catalogue.big_cities}
        return cls(
            tuple(
                sorted(
                    (i, p) for i, p in destinations.items() if p != catalogue.destination(i).points
                )
            ),
            tuple(sorted((c, p) for c, p in cities.items() if p != bonus[c])),
            tuple(sorted((k, n) for k, n in deck.items() if n != catalogue.deck[k])),
        )

    def __bool__(self) -> bool:
        return bool(self.destinations or self.big_cities or self.deck)

    def apply(self, catalogue: Catalogue) -> Catalogue:
        """The catalogue with these edits (the same object when there are none)."""
        if not self:
            return catalogue
        points = dict(self.destinations)
        bonus = dict(self.big_cities)
        counts = dict(self.deck)
        return Catalogue(
            tuple(d._replace(points=points.get(d.id, d.points)) for d in catalogue.destinations),
            tuple(b._replace(points=bonus.get(b.city, b.points)) for b in catalogue.big_cities),
            tuple(counts.get(k, n) for k, n in enumerate(catalogue.deck)),
            f"{catalogue.name}, edited",
            catalogue.colours,
        )

    def to_dict(self, names: tuple[str, ...] = CARD_NAMES) -> dict[str, Any]:
        """As a study file writes them (TOML keys are strings); empty kinds left out.
        ``names``: the edited edition's card kinds (``Catalogue.card_names``)."""
        out: dict[str, Any] = {}
        if self.destinations:
            out["destinations"] = {str(i): {"points": p} for i, p in self.destinations}
        if self.big_cities:
            out["big_cities"] = dict(self.big_cities)
        if self.deck:
            out["deck"] = {names[k]: n for k, n in self.deck}
        return out

    def describe(self, names: tuple[str, ...] = CARD_NAMES) -> list[str]:
        """Short phrases a report can show: ``#24 points 10``, ``Chicago bonus 10``,
        ``red cards 12``, ``locomotives 14`` (``names``: the edition's card kinds)."""
        return (
            [f"#{i} points {p}" for i, p in self.destinations]
            + [f"{c} bonus {p}" for c, p in self.big_cities]
            + [
                f"locomotives {n}" if k == len(names) - 1 else f"{names[k]} cards {n}"
                for k, n in self.deck
            ]
        )


NO_EDITS = CardEdits()


def _whole(value: object, key: str, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{key}: must be a whole number, got {value!r}")
    if not 1 <= value <= high:  # what a card folder allows
        raise RulesError(f"{key}: must be between 1 and {high}, got {value}")
    return value


def _destinations(data: object, catalogue: Catalogue, where: str) -> dict[int, int]:
    if not isinstance(data, Mapping):
        raise RulesError(f"{where}destinations: must be a table of ids, got {data!r}")
    ids = {d.id for d in catalogue.destinations}
    out: dict[int, int] = {}
    for key, edit in data.items():
        text = str(key).strip()
        if not (text.isascii() and text.isdigit()) or int(text) not in ids:
            raise RulesError(
                f"{where}destinations.{key}: unknown destination id (ids {min(ids)}-{max(ids)})"
            )
        dest_id = int(text)
        if dest_id in out:
            raise RulesError(f"{where}destinations.{key}: destination {dest_id} given twice")
        if isinstance(edit, Mapping):
            extra = sorted(set(edit) - {"points"})
            if extra:
                raise RulesError(
                    f"{where}destinations.{key}.{extra[0]}: unknown (a destination edit "
                    "changes points only)"
                )
            if "points" not in edit:
                raise RulesError(f"{where}destinations.{key}: give points = N")
            edit = edit["points"]
            key = f"{key}.points"
        out[dest_id] = _whole(edit, f"{where}destinations.{key}", MAX_POINTS)
    return out


def _big_cities(data: object, catalogue: Catalogue, where: str) -> dict[str, int]:
    if not isinstance(data, Mapping):
        raise RulesError(f"{where}big_cities: must be a table of cities, got {data!r}")
    names = catalogue.big_city_names
    out: dict[str, int] = {}
    for city, edit in data.items():
        if city not in names:
            raise RulesError(
                f"{where}big_cities.{city}: unknown big city (known: {', '.join(names)})"
            )
        if isinstance(edit, Mapping):
            extra = sorted(set(edit) - {"points"})
            if extra or "points" not in edit:
                raise RulesError(f"{where}big_cities.{city}: give a number, or points = N")
            edit = edit["points"]
        out[city] = _whole(edit, f"{where}big_cities.{city}", MAX_BIG_CITY_POINTS)
    return out


def _deck(data: object, where: str, catalogue: Catalogue) -> dict[int, int]:
    if not isinstance(data, Mapping):
        raise RulesError(f"{where}deck: must be a table of card kinds, got {data!r}")
    out: dict[int, int] = {}
    for name, count in data.items():
        names = catalogue.card_names
        kind = names.index(name) if isinstance(name, str) and name in names else None
        if kind is None:
            raise RulesError(f"{where}deck.{name}: unknown card kind (known: {', '.join(names)})")
        key = f"{where}deck.{name}"
        if isinstance(count, bool) or not isinstance(count, int):
            raise RulesError(f"{key}: must be a whole number, got {count!r}")
        most = deck_bounds(catalogue.loco)[kind]
        if not 0 <= count <= most:
            raise RulesError(f"{key}: must be between 0 and {most}, got {count}")
        out[kind] = count
    return out
