"""Load and validate the card data shipped as package data (R1, R2).

The data are files, not code, so that a corrected edition can be swapped in; a broken file
is refused with one line naming the file, the line and the problem.

Two levels of checks (documented in data/SOURCES.md): every folder must hold a possible
edition of the game (46 tickets with ids 1-46, 1-5 circles of known colours, 1-99 points, a
big city on each ticket, the six big cities once; a train deck of the nine card kinds once
each, 0-20 cards of a colour and 0-40 locomotives, or no deck file: the printed deck). The
copy shipped in the package must also match the facts the transcription was checked against
(circles per colour, total face value, each ticket's points in the band printed for its
circles, the printed deck), so a corrupted installation is caught; a user's folder may be a
corrected edition or a designer's, and is not held to them.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from .cards import CARD_NAMES, COLOUR_INDEX, COLOURS, KIND_INDEX, BigCity, Destination
from .errors import DataError
from .layout import CARD_KINDS, DESTINATIONS, MAX_LOCOMOTIVES, MAX_WAGONS_PER_COLOUR
from .value import Value

EXPECTED_DESTINATIONS = DESTINATIONS  # R1
BIG_CITY_NAMES = ("Seattle", "Los Angeles", "Chicago", "Dallas", "New York", "Miami")
# Points printed for a ticket of n circles (SOURCES.md: the bands never overlap).
POINT_BANDS: Mapping[int, tuple[int, int]] = MappingProxyType(
    {1: (5, 5), 2: (6, 10), 3: (11, 15), 4: (16, 20), 5: (21, 22)}
)
MAX_BIG_CITY_POINTS = 50  # the printed bonuses are 8-15; far beyond is a typo
# A design may leave the printed bands (a ticket worth 18 on three circles): any folder's
# points need only be 1..99; the bands are a fact of the shipped copy.
MAX_POINTS = 99
# Facts the shipped transcription was checked against (SOURCES.md), shipped copy only.
SHIPPED_CIRCLES: Mapping[str, int] = MappingProxyType(
    {
        "yellow": 17,
        "blue": 18,
        "white": 17,
        "purple": 16,
        "orange": 16,
        "black": 16,
        "red": 16,
        "green": 16,
    }
)
SHIPPED_FACE_VALUE = 581
# R1: the printed train deck, 10 wagons of each colour and 16 locomotives (CARD_NAMES order):
# what a folder without deck.csv plays with, and what the shipped deck.csv must hold
SHIPPED_DECK: tuple[int, ...] = (10,) * len(COLOURS) + (16,)
# the most cards of one kind a deck may hold: the engines' array bounds (cardgame/layout.py)
MAX_DECK_COUNTS: tuple[int, ...] = (MAX_WAGONS_PER_COLOUR,) * len(COLOURS) + (MAX_LOCOMOTIVES,)
DESTINATION_COLUMNS = ("id", "city_a", "city_b", "points", "colors")
BIG_CITY_COLUMNS = ("city", "points", "home_color")
DECK_COLUMNS = ("kind", "count")
DECK_FILE = "deck.csv"


class _CatalogueFields(NamedTuple):
    destinations: tuple[Destination, ...]
    big_cities: tuple[BigCity, ...]
    # the destinations by id (None where no id): what seat views carry, and the engine's
    # lookup; the cards are immutable, so one table serves both
    view_table: tuple[Destination | None, ...]
    # the train deck (R1): how many cards of each kind, 8 colours then locomotives
    deck: tuple[int, ...]


class Catalogue(Value, _CatalogueFields):
    """All the printed cards of the game: destinations by id, big cities, the train deck.

    Truly immutable (cardgame.value), like the cards it holds: a strategy that reaches the
    catalogue (``default_catalogue()`` is public) cannot change what the engine scores with.
    ``deck`` defaults to the printed deck (``SHIPPED_DECK``); a deck given is checked as
    ``deck.csv`` is (nine whole counts within the engines' bounds).
    """

    __slots__ = ()

    def __new__(
        cls,
        destinations: tuple[Destination, ...],
        big_cities: tuple[BigCity, ...],
        deck: tuple[int, ...] = SHIPPED_DECK,
    ) -> Catalogue:
        destinations, big_cities, deck = tuple(destinations), tuple(big_cities), tuple(deck)
        problem = deck_problem(deck)
        if problem is not None:
            raise DataError(f"deck: {problem}")
        table: list[Destination | None] = [None] * (
            max((d.id for d in destinations), default=0) + 1
        )
        for d in destinations:
            table[d.id] = d
        return _CatalogueFields.__new__(cls, destinations, big_cities, tuple(table), deck)

    def __getnewargs__(
        self,
    ) -> tuple[tuple[Destination, ...], tuple[BigCity, ...], tuple[int, ...]]:
        return (self.destinations, self.big_cities, self.deck)

    def destination(self, dest_id: int) -> Destination:
        table = self.view_table
        found = table[dest_id] if 0 <= dest_id < len(table) else None
        if found is None:
            raise KeyError(dest_id)
        return found

    @property
    def big_city_names(self) -> tuple[str, ...]:
        return tuple(b.city for b in self.big_cities)


def _rows(text: str, name: str, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text))
    rows = []
    try:
        if reader.fieldnames is None or tuple(reader.fieldnames) != columns:
            raise DataError(f"{name}, line 1: expected columns {','.join(columns)}")
        for row in reader:
            line = reader.line_num
            if None in row or any(v is None for v in row.values()):
                raise DataError(f"{name}, line {line}: expected {len(columns)} fields")
            rows.append((line, {k: v.strip() for k, v in row.items()}))
    except csv.Error as exc:
        raise DataError(f"{name}, line {reader.line_num}: not valid CSV: {exc}") from None
    return rows


def _int_in(
    value: str, name: str, line: int, field: str, low: int, high: int, why: str = ""
) -> int:
    """A whole number in ``low..high`` (checked on the text first: no huge conversions)."""
    text = value.strip()
    digits = text.lstrip("+-")
    if not digits.isdigit() or not digits.isascii():
        raise DataError(f"{name}, line {line}: {field} {value[:20]!r} is not a whole number")
    if low >= 1 and (text.startswith("-") or not digits.strip("0")):
        raise DataError(f"{name}, line {line}: {field} must be > 0, got {text[:12]}")
    if len(digits) > 9 or not low <= int(text) <= high:
        shown = text if len(text) <= 12 else text[:9] + "..."
        raise DataError(f"{name}, line {line}: {field} {shown} is outside {low}..{high}{why}")
    return int(text)


def _positive_int(value: str, name: str, line: int, field: str) -> int:
    return _int_in(value, name, line, field, 1, 10**9 - 1)


def parse_big_cities(text: str, name: str = "big_cities.csv") -> tuple[BigCity, ...]:
    cities = []
    for line, row in _rows(text, name, BIG_CITY_COLUMNS):
        if row["city"] not in BIG_CITY_NAMES:
            raise DataError(f"{name}, line {line}: unknown big city {row['city']!r}")
        if row["home_color"] not in COLOUR_INDEX:
            raise DataError(f"{name}, line {line}: unknown colour {row['home_color']!r}")
        points = _int_in(row["points"], name, line, "points", 1, MAX_BIG_CITY_POINTS)
        cities.append(BigCity(row["city"], points, row["home_color"]))
    if sorted(c.city for c in cities) != sorted(BIG_CITY_NAMES):
        raise DataError(f"{name}: expected each of {', '.join(BIG_CITY_NAMES)} exactly once")
    return tuple(cities)


def deck_problem(deck: tuple[int, ...]) -> str | None:
    """Why ``deck`` (nine counts, CARD_NAMES order) is no possible train deck, or None."""
    if len(deck) != CARD_KINDS:
        return f"expected {CARD_KINDS} counts ({', '.join(CARD_NAMES)}), got {len(deck)}"
    for name, count, most in zip(CARD_NAMES, deck, MAX_DECK_COUNTS, strict=True):
        if type(count) is not int:
            return f"{name} must be a whole number, got {count!r}"
        if not 0 <= count <= most:
            return f"{name} must be between 0 and {most}, got {count}"
    return None


def parse_deck(text: str, name: str = DECK_FILE) -> tuple[int, ...]:
    """The train deck (R1): one row per card kind (the eight colours and ``locomotive``),
    each once, with how many cards of it the deck holds."""
    counts: dict[int, int] = {}
    for line, row in _rows(text, name, DECK_COLUMNS):
        kind = KIND_INDEX.get(row["kind"])
        if kind is None:
            known = ", ".join(CARD_NAMES)
            raise DataError(f"{name}, line {line}: unknown kind {row['kind']!r} (known: {known})")
        if kind in counts:
            raise DataError(f"{name}, line {line}: {row['kind']} given twice")
        counts[kind] = _int_in(
            row["count"], name, line, "count", 0, MAX_DECK_COUNTS[kind], " (the engines' bound)"
        )
    missing = [CARD_NAMES[k] for k in range(CARD_KINDS) if k not in counts]
    if missing:
        raise DataError(f"{name}: no count for {', '.join(missing)}")
    return tuple(counts[k] for k in range(CARD_KINDS))


def parse_destinations(
    text: str, big_cities: tuple[str, ...], name: str = "destinations.csv"
) -> tuple[Destination, ...]:
    destinations: list[Destination] = []
    lines: dict[int, int] = {}  # id -> line
    for line, row in _rows(text, name, DESTINATION_COLUMNS):
        dest_id = _positive_int(row["id"], name, line, "id")
        if dest_id in lines:
            raise DataError(f"{name}, line {line}: duplicate id {dest_id}")
        lines[dest_id] = line
        if not row["city_a"] or not row["city_b"] or row["city_a"] == row["city_b"]:
            raise DataError(f"{name}, line {line}: needs two different cities")
        for column in ("city_a", "city_b"):
            if not row[column].isprintable():
                raise DataError(f"{name}, line {line}: {column} {row[column]!r} is not printable")
        colours = _colours(row["colors"], name, line)
        points = _int_in(row["points"], name, line, "points", 1, MAX_POINTS)
        if not ({row["city_a"], row["city_b"]} & set(big_cities)):
            raise DataError(f"{name}, line {line}: names no big city")
        destinations.append(
            Destination(dest_id, row["city_a"], row["city_b"], points, tuple(sorted(colours)))
        )
    if len(destinations) != EXPECTED_DESTINATIONS:
        raise DataError(
            f"{name}: expected {EXPECTED_DESTINATIONS} destinations, found {len(destinations)}"
        )
    for dest in destinations:  # 46 unique ids all within 1..46: exactly 1..46
        if dest.id > EXPECTED_DESTINATIONS:
            line = lines[dest.id]
            raise DataError(f"{name}, line {line}: id {dest.id} is outside 1..{len(lines)}")
    return tuple(destinations)


def _colours(text: str, name: str, line: int) -> list[int]:
    """The circles of a ticket: 1 to 5 known colours joined by '-'."""
    names = text.split("-") if text else []
    if not 1 <= len(names) <= len(POINT_BANDS):
        raise DataError(
            f"{name}, line {line}: colors has {len(names)} circles, a ticket has 1 to 5"
        )
    for colour in names:
        if colour not in COLOUR_INDEX:
            known = ", ".join(COLOURS)
            raise DataError(
                f"{name}, line {line}: unknown colour {colour!r} in colors (known: {known})"
            )
    return [COLOUR_INDEX[c] for c in names]


def check_shipped_facts(destinations: tuple[Destination, ...], name: str) -> None:
    """The shipped copy must match the counts its transcription was checked against
    (SOURCES.md), each ticket's points in the band printed for its circles; a mismatch means
    the installed file was damaged."""
    for dest in destinations:
        low, high = POINT_BANDS[len(dest.colours)]
        if not low <= dest.points <= high:
            raise DataError(
                f"{name}: #{dest.id} has {dest.points} points, outside {low}..{high} printed "
                f"for {len(dest.colours)} circles: the installed copy is damaged, reinstall "
                "the package"
            )
    circles = Counter(COLOURS[c] for d in destinations for c in d.colours)
    if dict(circles) != SHIPPED_CIRCLES:
        found = ", ".join(f"{c} {circles[c]}" for c in SHIPPED_CIRCLES)
        raise DataError(
            f"{name}: circles per colour ({found}) differ from the shipped edition: "
            "the installed copy is damaged, reinstall the package"
        )
    total = sum(d.points for d in destinations)
    if total != SHIPPED_FACE_VALUE:
        raise DataError(
            f"{name}: total face value {total}, the shipped edition has {SHIPPED_FACE_VALUE}: "
            "the installed copy is damaged, reinstall the package"
        )


def check_shipped_deck(deck: tuple[int, ...], name: str) -> None:
    """R1: the shipped deck.csv must hold the printed deck (10 of each colour, 16
    locomotives); anything else means the installed file was damaged."""
    if deck != SHIPPED_DECK:
        found = ", ".join(f"{CARD_NAMES[k]} {n}" for k, n in enumerate(deck))
        raise DataError(
            f"{name}: {found} differ from the printed deck (10 of each colour, 16 "
            "locomotives): the installed copy is damaged, reinstall the package"
        )


def load_catalogue(folder: Path | None = None) -> Catalogue:
    """Read the card data from ``folder`` (default: the copy shipped in the package).

    A folder gets the general checks only: it may be a corrected edition. Its ``deck.csv``
    is optional: without one, the game has the printed deck.
    """
    if folder is None:
        return default_catalogue()
    return _load(lambda n: (folder / n).read_bytes(), str(folder), deck_optional=True)


@cache
def default_catalogue() -> Catalogue:
    data = resources.files("cardgame") / "data"
    catalogue = _load(lambda n: (data / n).read_bytes(), "package data", deck_optional=False)
    check_shipped_facts(catalogue.destinations, "destinations.csv (package data)")
    check_shipped_deck(catalogue.deck, f"{DECK_FILE} (package data)")
    return catalogue


def catalogue_rows(catalogue: Catalogue) -> dict[str, list[list[Any]]]:
    """The catalogue as the rows of its CSV files (what a record of an edited game carries,
    so that it replays with its own cards). The deck's rows only when it is not the printed
    deck: cards with the printed deck give the rows (and digests) they always gave."""
    rows: dict[str, list[list[Any]]] = {
        "destinations": [
            [d.id, d.city_a, d.city_b, d.points, "-".join(COLOURS[c] for c in d.colours)]
            for d in catalogue.destinations
        ],
        "big_cities": [[b.city, b.points, b.home_colour] for b in catalogue.big_cities],
    }
    if catalogue.deck != SHIPPED_DECK:
        rows["deck"] = [[CARD_NAMES[k], n] for k, n in enumerate(catalogue.deck)]
    return rows


def catalogue_from_rows(rows: dict[str, list[list[Any]]], where: str) -> Catalogue:
    """A catalogue from ``catalogue_rows``'s output, held to the checks of a card folder."""

    def text(table: list[list[Any]], columns: tuple[str, ...]) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(table)
        return out.getvalue()

    cities = parse_big_cities(text(rows["big_cities"], BIG_CITY_COLUMNS), f"{where}.big_cities")
    names = tuple(c.city for c in cities)
    destinations = parse_destinations(
        text(rows["destinations"], DESTINATION_COLUMNS), names, f"{where}.destinations"
    )
    deck = SHIPPED_DECK
    if "deck" in rows:
        deck = parse_deck(text(rows["deck"], DECK_COLUMNS), f"{where}.deck")
    return Catalogue(destinations, cities, deck)


def _load(read: Callable[[str], bytes], where: str, deck_optional: bool) -> Catalogue:
    texts = {}
    for name in ("big_cities.csv", "destinations.csv", DECK_FILE):
        try:
            raw = read(name)
        except OSError as exc:
            if name == DECK_FILE and deck_optional and isinstance(exc, FileNotFoundError):
                continue  # a folder without a deck plays with the printed one
            raise DataError(f"{name}: cannot read from {where}: {exc.strerror or exc}") from None
        try:
            texts[name] = raw.decode("utf-8-sig")  # a spreadsheet's byte-order mark is fine
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise DataError(
                f"{name}, line {line}: not UTF-8 text (byte 0x{raw[exc.start]:02x}) in {where}"
            ) from None
    cities = parse_big_cities(texts["big_cities.csv"])
    destinations = parse_destinations(texts["destinations.csv"], tuple(c.city for c in cities))
    deck = parse_deck(texts[DECK_FILE]) if DECK_FILE in texts else SHIPPED_DECK
    return Catalogue(destinations, cities, deck)
