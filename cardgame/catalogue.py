"""Load and validate the card data shipped as package data (R1, R2).

The data are files, not code, so that a corrected edition can be swapped in; a broken file
is refused with one line naming the file, the line and the problem.

Two levels of checks (documented in data/SOURCES.md and docs/editions.md): every folder must
hold a possible edition of the game (tickets with unique ids within 1..MAX_DESTINATIONS,
1-5 circles of the deck's colours, 1-99 points, two different cities of which one at least
is a big city; 1..MAX_BIG_CITIES big cities, each once; a train deck of 1..MAX_COLOURS
colours and the locomotive, each once, 0-20 cards of a colour and 0-40 locomotives, or no
deck file: the printed deck), every
problem of a folder found in one pass (``EditionError.problems``: file, line, column). The
copy shipped in the package must also match the facts the transcription was checked against
(the 46 tickets and six big cities, circles per colour, total face value, each ticket's
points in the band printed for its circles, the printed deck), so a corrupted installation
is caught; a user's folder may be a corrected edition or a designer's, and is not held to
them.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from .cards import CARD_NAMES, COLOURS, LOCOMOTIVE, BigCity, Destination, card_names
from .errors import DataError
from .layout import (
    MAX_BIG_CITIES,
    MAX_CIRCLES,
    MAX_COLOURS,
    MAX_DESTINATIONS,
    MAX_LOCOMOTIVES,
    MAX_WAGONS_PER_COLOUR,
)
from .value import Value

# The printed edition (R1): 46 tickets, ids 1..46, and these six big cities. Facts of the
# shipped copy only: an edition of one's own has any number within the engines' bounds.
PRINTED_NAME = "printed"
PRINTED_DESTINATIONS = 46
PRINTED_BIG_CITIES = ("Seattle", "Los Angeles", "Chicago", "Dallas", "New York", "Miami")
# Points printed for a ticket of n circles (SOURCES.md: the bands never overlap).
POINT_BANDS: Mapping[int, tuple[int, int]] = MappingProxyType(
    {1: (5, 5), 2: (6, 10), 3: (11, 15), 4: (16, 20), 5: (21, 22)}
)
MAX_BIG_CITY_POINTS = 50  # the printed bonuses are 8-15; far beyond is a typo
# A design may leave the printed bands (a ticket worth 18 on three circles): any folder's
# points need only be 1..99; the bands are a fact of the shipped copy.
MAX_POINTS = 99
MAX_NAME = 60  # a city's name, in characters
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
MAX_COLOUR_NAME = 20  # a new colour's name, in characters


def deck_bounds(colours: int) -> tuple[int, ...]:
    """The most cards of each kind a deck of ``colours`` colours may hold."""
    return (MAX_WAGONS_PER_COLOUR,) * colours + (MAX_LOCOMOTIVES,)


DESTINATION_COLUMNS = ("id", "city_a", "city_b", "points", "colors")
BIG_CITY_COLUMNS = ("city", "points", "home_color")
DECK_COLUMNS = ("kind", "count")
DECK_FILE = "deck.csv"
CARD_FILES = ("destinations.csv", "big_cities.csv", DECK_FILE)


class Problems:
    """Every problem of one validation pass, in file order: a folder is checked whole, so a
    designer fixes all its mistakes at once (``cardgame edition check`` prints them all)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        # the big cities' names as given, even on a row with another problem: the tickets
        # are checked against them, so one bad bonus does not flag every ticket
        self.big_city_names: tuple[str, ...] = ()

    def header_failed(self, since: int) -> bool:
        """Whether a file's header was refused among the problems after ``since``."""
        return any(", line 1: expected columns" in line for line in self.lines[since:])

    def add(self, where: str, line: int | None, column: str | None, text: str) -> None:
        place = where if line is None else f"{where}, line {line}"
        if column is not None:
            place += f", column {column}"
        self.lines.append(f"{place}: {text}")

    def raise_any(self) -> None:
        if self.lines:
            raise EditionError(self.lines)


class EditionError(DataError):
    """Card files with problems: ``problems`` lists every one; the message is the first,
    on one line, with how many more there are."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        more = len(problems) - 1
        text = problems[0]
        if more:
            plural = "s" if more > 1 else ""
            text += f" (and {more} more problem{plural}: cardgame edition check lists them)"
        super().__init__(text)


class _CatalogueFields(NamedTuple):
    destinations: tuple[Destination, ...]
    big_cities: tuple[BigCity, ...]
    # the destinations by id (None where no id): what seat views carry, and the engine's
    # lookup; the cards are immutable, so one table serves both
    view_table: tuple[Destination | None, ...]
    # the train deck (R1): how many cards of each kind, the colours then locomotives
    deck: tuple[int, ...]
    # the edition's name: a label (its folder's name, "printed"), not part of its content
    name: str
    # the deck's colours by index (the printed eight, or an edition's own, up to MAX_COLOURS)
    colours: tuple[str, ...]


class Catalogue(Value, _CatalogueFields):
    """All the cards of an edition: destinations by id, big cities, the train deck.

    Truly immutable (cardgame.value), like the cards it holds: a strategy that reaches the
    catalogue (``default_catalogue()`` is public) cannot change what the engine scores with.
    ``deck`` defaults to the printed deck (``SHIPPED_DECK``); a deck given is checked as
    ``deck.csv`` is (a whole count per colour of ``colours``, then the locomotives', within
    the engines' bounds). Two catalogues are equal
    when their cards are: the name is a label, ``digest`` the content's identity.
    """

    __slots__ = ()

    def __new__(
        cls,
        destinations: tuple[Destination, ...],
        big_cities: tuple[BigCity, ...],
        deck: tuple[int, ...] = SHIPPED_DECK,
        name: str = PRINTED_NAME,
        colours: tuple[str, ...] = COLOURS,
    ) -> Catalogue:
        destinations, big_cities, deck = tuple(destinations), tuple(big_cities), tuple(deck)
        colours = COLOURS if tuple(colours) == COLOURS else tuple(colours)
        problem = deck_problem(deck, colours)
        if problem is not None:
            raise DataError(f"deck: {problem}")
        if len(destinations) > MAX_DESTINATIONS or len(big_cities) > MAX_BIG_CITIES:
            raise DataError(
                f"an edition holds at most {MAX_DESTINATIONS} tickets and {MAX_BIG_CITIES} "
                f"big cities, got {len(destinations)} and {len(big_cities)}"
            )
        table: list[Destination | None] = [None] * (
            max((d.id for d in destinations), default=0) + 1
        )
        for d in destinations:
            if d.colours and not 0 <= d.colours[0] <= d.colours[-1] < len(colours):
                raise DataError(f"ticket #{d.id}: a circle outside the deck's colours")
            table[d.id] = d
        return _CatalogueFields.__new__(
            cls, destinations, big_cities, tuple(table), deck, str(name), colours
        )

    def __getnewargs__(
        self,
    ) -> tuple[tuple[Destination, ...], tuple[BigCity, ...], tuple[int, ...], str, tuple[str, ...]]:
        return (self.destinations, self.big_cities, self.deck, self.name, self.colours)

    def _content(self) -> tuple[Any, ...]:
        return (*self[:4], self.colours)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._content() == other._content()

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self._content())

    @property
    def loco(self) -> int:
        """The locomotive's card kind: after the colours (the printed game's 8)."""
        return len(self.colours)

    @property
    def kinds(self) -> int:
        """How many counts a hand or pile of this edition's game holds."""
        return len(self.colours) + 1

    @property
    def card_names(self) -> tuple[str, ...]:
        """The card kinds by name: the colours, then ``locomotive``."""
        return card_names(self.colours)

    def destination(self, dest_id: int) -> Destination:
        table = self.view_table
        found = table[dest_id] if 0 <= dest_id < len(table) else None
        if found is None:
            raise KeyError(dest_id)
        return found

    @property
    def big_city_names(self) -> tuple[str, ...]:
        return tuple(b.city for b in self.big_cities)

    @property
    def digest(self) -> str:
        """The content's identity: ``sha256:`` of the cards' rows (``catalogue_rows``), the
        same for the same cards whatever the folder or name."""
        return _digest(self)

    def renamed(self, name: str) -> Catalogue:
        """The same cards under another name."""
        return Catalogue(self.destinations, self.big_cities, self.deck, name, self.colours)


@cache
def _digest(catalogue: Catalogue) -> str:
    rows = catalogue_rows(catalogue)
    text = json.dumps(rows, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _rows(
    text: str, name: str, columns: tuple[str, ...], found: Problems
) -> list[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text))
    rows = []
    try:
        if reader.fieldnames is None or tuple(reader.fieldnames) != columns:
            found.add(name, 1, None, f"expected columns {','.join(columns)}")
            return []
        for row in reader:
            line = reader.line_num
            if None in row or any(v is None for v in row.values()):
                found.add(name, line, None, f"expected {len(columns)} fields")
                continue
            rows.append((line, {k: v.strip() for k, v in row.items()}))
    except csv.Error as exc:
        found.add(name, reader.line_num, None, f"not valid CSV: {exc}")
    return rows


def _int_in(value: str, field: str, low: int, high: int, why: str = "") -> int:
    """A whole number in ``low..high`` (checked on the text first: no huge conversions)."""
    text = value.strip()
    digits = text.lstrip("+-")
    if not digits.isdigit() or not digits.isascii():
        raise DataError(f"{field} {value[:20]!r} is not a whole number")
    if low >= 1 and (text.startswith("-") or not digits.strip("0")):
        raise DataError(f"{field} must be > 0, got {text[:12]}")
    if len(digits) > 9 or not low <= int(text) <= high:
        shown = text if len(text) <= 12 else text[:9] + "..."
        raise DataError(f"{field} {shown} is outside {low}..{high}{why}")
    return int(text)


def _field(
    found: Problems, name: str, line: int, column: str, read: Callable[..., Any], *args: Any
) -> Any:
    """``read(*args)``, or None with its problem noted against the file, line and column."""
    try:
        return read(*args)
    except DataError as exc:
        found.add(name, line, column, str(exc))
        return None


def _city(text: str, column: str) -> str:
    if not text:
        raise DataError(f"{column} is empty")
    if not text.isprintable():
        raise DataError(f"{column} {text!r} is not printable")
    if len(text) > MAX_NAME:
        raise DataError(f"{column} is longer than {MAX_NAME} characters")
    return text


def parse_big_cities(
    text: str,
    name: str = "big_cities.csv",
    found: Problems | None = None,
    colours: tuple[str, ...] = COLOURS,
) -> tuple[BigCity, ...]:
    """The big-city bonus cards (R21): each city once, 1 to MAX_BIG_CITIES of them."""
    own = found is None
    found = Problems() if found is None else found
    cities: list[BigCity] = []
    lines: dict[str, int] = {}
    for line, row in _rows(text, name, BIG_CITY_COLUMNS, found):
        city = _field(found, name, line, "city", _city, row["city"], "city")
        if city is not None and city in lines:
            found.add(name, line, "city", f"{city} is given twice (line {lines[city]})")
            city = None
        colour = row["home_color"]
        if colour not in colours:
            known = ", ".join(colours)
            found.add(name, line, "home_color", f"unknown colour {colour!r} (known: {known})")
        points = _field(
            found,
            name,
            line,
            "points",
            _int_in,
            row["points"],
            "points",
            1,
            MAX_BIG_CITY_POINTS,
        )
        if city is not None:
            lines[city] = line
            if points is not None and colour in colours:
                cities.append(BigCity(city, points, colour))
    found.big_city_names = tuple(lines)
    if not lines and not found.lines:
        found.add(name, None, None, "no big city: an edition needs at least one")
    if len(lines) > MAX_BIG_CITIES:
        found.add(
            name,
            None,
            None,
            f"{len(lines)} big cities, the engines hold at most {MAX_BIG_CITIES}",
        )
    if own:
        found.raise_any()
    return tuple(cities)


def deck_problem(deck: tuple[int, ...], colours: tuple[str, ...] = COLOURS) -> str | None:
    """Why ``deck`` (a count per colour of ``colours``, then the locomotives) is no possible
    train deck, or None."""
    if not 1 <= len(colours) <= MAX_COLOURS:
        return f"{len(colours)} colours, the engines hold 1 to {MAX_COLOURS} (MAX_COLOURS)"
    if len(set(colours)) != len(colours) or LOCOMOTIVE in colours:
        return f"colours {', '.join(colours)}: each once, none named {LOCOMOTIVE}"
    names = card_names(colours)
    if len(deck) != len(names):
        return f"expected {len(names)} counts ({', '.join(names)}), got {len(deck)}"
    for name, count, most in zip(names, deck, deck_bounds(len(colours)), strict=True):
        if type(count) is not int:
            return f"{name} must be a whole number, got {count!r}"
        if not 0 <= count <= most:
            return f"{name} must be between 0 and {most}, got {count}"
    return None


def _colour_name(text: str) -> str:
    """A new colour's name: what a ticket's circles can join with '-'."""
    if not text or len(text) > MAX_COLOUR_NAME:
        raise DataError(f"a colour's name has 1 to {MAX_COLOUR_NAME} characters, got {text!r}")
    if not all(ch.isascii() and (ch.isalnum() or ch == "_") for ch in text):
        raise DataError(f"colour {text!r}: letters, digits and _ only")
    return text


def parse_deck(text: str, name: str = DECK_FILE, found: Problems | None = None) -> tuple[int, ...]:
    """The train deck's counts (``parse_deck_kinds``), for a deck of the printed colours."""
    return parse_deck_kinds(text, name, found)[1]


def parse_deck_kinds(
    text: str, name: str = DECK_FILE, found: Problems | None = None
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The train deck (R1): one row per card kind (its colours and ``locomotive``), each
    once, with how many cards of it the deck holds; its colours and the counts (the
    colours' then the locomotives'). The printed colours it names come first, in the printed
    order, then its new ones in the file's order: a deck of the printed colours in any
    order is the printed game's."""
    own = found is None
    found = Problems() if found is None else found
    counts: dict[str, int] = {}
    lines: dict[str, int] = {}
    before = len(found.lines)
    for line, row in _rows(text, name, DECK_COLUMNS, found):
        kind = row["kind"]
        if kind not in CARD_NAMES:
            kind = _field(found, name, line, "kind", _colour_name, kind)
            if kind is None:
                continue
        if kind in lines:
            found.add(name, line, "kind", f"{kind} given twice")
            continue
        lines[kind] = line
        count = _field(
            found,
            name,
            line,
            "count",
            _int_in,
            row["count"],
            "count",
            0,
            MAX_LOCOMOTIVES if kind == LOCOMOTIVE else MAX_WAGONS_PER_COLOUR,
            " (the engines' bound)",
        )
        if count is not None:
            counts[kind] = count
    header_failed = found.header_failed(before)
    colours = tuple(c for c in COLOURS if c in lines) + tuple(
        c for c in lines if c not in CARD_NAMES
    )
    if LOCOMOTIVE not in lines and not header_failed:
        found.add(name, None, None, f"no count for {LOCOMOTIVE}")
    if not colours and not header_failed:
        found.add(name, None, None, "no colour: a deck needs at least one")
    if len(colours) > MAX_COLOURS:
        extra = colours[MAX_COLOURS]
        found.add(
            name,
            lines[extra],
            "kind",
            f"{len(colours)} colours ({extra} is colour {MAX_COLOURS + 1}), the engines hold "
            f"at most {MAX_COLOURS} (MAX_COLOURS)",
        )
    if own:
        found.raise_any()
    return colours, tuple(counts.get(k, 0) for k in (*colours, LOCOMOTIVE))


def parse_destinations(
    text: str,
    big_cities: tuple[str, ...],
    name: str = "destinations.csv",
    found: Problems | None = None,
    colours: tuple[str, ...] = COLOURS,
) -> tuple[Destination, ...]:
    """The tickets (R2): unique ids in 1..MAX_DESTINATIONS, two different cities of which
    one at least is a big city, 1-99 points, 1 to 5 circles of known colours."""
    own = found is None
    found = Problems() if found is None else found
    destinations: list[Destination] = []
    lines: dict[int, int] = {}  # id -> line
    for line, row in _rows(text, name, DESTINATION_COLUMNS, found):
        problems = len(found.lines)
        dest_id = _field(
            found,
            name,
            line,
            "id",
            _int_in,
            row["id"],
            "id",
            1,
            MAX_DESTINATIONS,
            " (the engines' bound)",
        )
        if dest_id is not None and dest_id in lines:
            found.add(name, line, "id", f"duplicate id {dest_id} (line {lines[dest_id]})")
        elif dest_id is not None:
            lines[dest_id] = line
        city_a = _field(found, name, line, "city_a", _city, row["city_a"], "city_a")
        city_b = _field(found, name, line, "city_b", _city, row["city_b"], "city_b")
        if city_a is not None and city_a == city_b:
            found.add(name, line, "city_b", "needs two different cities")
        elif city_a is not None and city_b is not None and not {city_a, city_b} & set(big_cities):
            found.add(name, line, None, "names no big city")
        points = _field(
            found,
            name,
            line,
            "points",
            _int_in,
            row["points"],
            "points",
            1,
            MAX_POINTS,
        )
        circles = _field(found, name, line, "colors", _colours, row["colors"], colours)
        if len(found.lines) == problems:
            destinations.append(
                Destination(dest_id, city_a, city_b, points, tuple(sorted(circles)))
            )
    if not lines and not found.lines:
        found.add(name, None, None, "no ticket: an edition needs at least one")
    if len(lines) > MAX_DESTINATIONS:
        found.add(
            name, None, None, f"{len(lines)} tickets, the engines hold at most {MAX_DESTINATIONS}"
        )
    if own:
        found.raise_any()
    return tuple(destinations)


def _colours(text: str, colours: tuple[str, ...] = COLOURS) -> list[int]:
    """The circles of a ticket: 1 to 5 of the deck's colours joined by '-'."""
    names = text.split("-") if text else []
    if not 1 <= len(names) <= MAX_CIRCLES:
        raise DataError(f"colors has {len(names)} circles, a ticket has 1 to {MAX_CIRCLES}")
    for colour in names:
        if colour not in colours:
            known = ", ".join(colours)
            raise DataError(f"unknown colour {colour!r} in colors (known: {known})")
    return [colours.index(c) for c in names]


def check_shipped_facts(destinations: tuple[Destination, ...], name: str) -> None:
    """The shipped copy must match the counts its transcription was checked against
    (SOURCES.md): the 46 tickets with ids 1-46, each ticket's points in the band printed for
    its circles; a mismatch means the installed file was damaged. An edition of one's own is
    not held to these."""
    ids = sorted(d.id for d in destinations)
    if ids != list(range(1, PRINTED_DESTINATIONS + 1)):
        raise DataError(
            f"{name}: {len(ids)} tickets, the printed edition has ids 1-{PRINTED_DESTINATIONS}: "
            "the installed copy is damaged, reinstall the package"
        )
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


def check_shipped_big_cities(cities: tuple[BigCity, ...], name: str) -> None:
    """The shipped copy holds the six printed big cities, each once."""
    if sorted(c.city for c in cities) != sorted(PRINTED_BIG_CITIES):
        raise DataError(
            f"{name}: expected each of {', '.join(PRINTED_BIG_CITIES)} exactly once: the "
            "installed copy is damaged, reinstall the package"
        )


def check_shipped_deck(
    deck: tuple[int, ...], name: str, colours: tuple[str, ...] = COLOURS
) -> None:
    """R1: the shipped deck.csv must hold the printed deck (10 of each colour, 16
    locomotives); anything else means the installed file was damaged."""
    if deck != SHIPPED_DECK or colours != COLOURS:
        found = ", ".join(f"{CARD_NAMES[k]} {n}" for k, n in enumerate(deck))
        raise DataError(
            f"{name}: {found} differ from the printed deck (10 of each colour, 16 "
            "locomotives): the installed copy is damaged, reinstall the package"
        )


def load_catalogue(folder: Path | None = None, name: str | None = None) -> Catalogue:
    """Read the card data from ``folder`` (default: the copy shipped in the package).

    A folder gets the general checks only: it may be a corrected edition or a new one. Its
    ``deck.csv`` is optional: without one, the game has the printed deck. The edition is
    named ``name``, else after its folder. Every problem of the folder is found in one pass
    (``EditionError.problems``).
    """
    if folder is None:
        return default_catalogue()
    if not Path(folder).is_dir():
        raise DataError(f"{folder}: no such folder of card files")
    label = name if name is not None else (Path(folder).resolve().name or str(folder))
    return _load(lambda n: (folder / n).read_bytes(), str(folder), True, label)


@cache
def default_catalogue() -> Catalogue:
    data = resources.files("cardgame") / "data"
    catalogue = _load(lambda n: (data / n).read_bytes(), "package data", False, PRINTED_NAME)
    check_shipped_facts(catalogue.destinations, "destinations.csv (package data)")
    check_shipped_big_cities(catalogue.big_cities, "big_cities.csv (package data)")
    check_shipped_deck(catalogue.deck, f"{DECK_FILE} (package data)", catalogue.colours)
    return catalogue


def is_printed(catalogue: Catalogue) -> bool:
    """Whether these are the printed cards (whatever the edition is called)."""
    return catalogue is default_catalogue() or catalogue == default_catalogue()


def catalogue_rows(catalogue: Catalogue) -> dict[str, list[list[Any]]]:
    """The catalogue as the rows of its CSV files (what a record of an edited game carries,
    so that it replays with its own cards). The deck's rows only when it is not the printed
    deck: cards with the printed deck give the rows (and digests) they always gave."""
    names = catalogue.colours
    rows: dict[str, list[list[Any]]] = {
        "destinations": [
            [d.id, d.city_a, d.city_b, d.points, "-".join(names[c] for c in d.colours)]
            for d in catalogue.destinations
        ],
        "big_cities": [[b.city, b.points, b.home_colour] for b in catalogue.big_cities],
    }
    if catalogue.deck != SHIPPED_DECK or names != COLOURS:
        kinds = catalogue.card_names
        rows["deck"] = [[kinds[k], n] for k, n in enumerate(catalogue.deck)]
    return rows


def csv_text(table: list[list[Any]], columns: tuple[str, ...]) -> str:
    """Rows as the text of a card file (header first)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(table)
    return out.getvalue()


def catalogue_from_rows(
    rows: dict[str, list[list[Any]]], where: str, name: str = "edited"
) -> Catalogue:
    """A catalogue from ``catalogue_rows``'s output, held to the checks of a card folder."""
    found = Problems()
    if not isinstance(rows, dict) or not all(
        isinstance(rows.get(k), list) for k in ("destinations", "big_cities")
    ):
        raise DataError(f"{where}: must hold the destinations' and big cities' rows")
    try:
        deck, colours = SHIPPED_DECK, COLOURS
        deck_found = Problems()
        if "deck" in rows:
            colours, deck = parse_deck_kinds(
                csv_text(rows["deck"], DECK_COLUMNS), f"{where}.deck", deck_found
            )
        cities = parse_big_cities(
            csv_text(rows["big_cities"], BIG_CITY_COLUMNS), f"{where}.big_cities", found, colours
        )
        names = found.big_city_names
        destinations = parse_destinations(
            csv_text(rows["destinations"], DESTINATION_COLUMNS),
            names,
            f"{where}.destinations",
            found,
            colours,
        )
        found.lines.extend(deck_found.lines)
    except (TypeError, csv.Error) as exc:
        raise DataError(f"{where}: not rows of card files: {exc}") from None
    found.raise_any()
    return Catalogue(destinations, cities, deck, name, colours)


def _load(read: Callable[[str], bytes], where: str, deck_optional: bool, name: str) -> Catalogue:
    texts = {}
    found = Problems()
    for file in ("big_cities.csv", "destinations.csv", DECK_FILE):
        try:
            raw = read(file)
        except OSError as exc:
            if file == DECK_FILE and deck_optional and isinstance(exc, FileNotFoundError):
                continue  # a folder without a deck plays with the printed one
            found.add(file, None, None, f"cannot read from {where}: {exc.strerror or exc}")
            continue
        try:
            texts[file] = raw.decode("utf-8-sig")  # a spreadsheet's byte-order mark is fine
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            found.add(file, line, None, f"not UTF-8 text (byte 0x{raw[exc.start]:02x}) in {where}")
    # the deck first (its colours are what the tickets' circles may name); its problems
    # are listed after the other files', in file order
    deck_found = Problems()
    colours, deck = COLOURS, SHIPPED_DECK
    if DECK_FILE in texts:
        colours, deck = parse_deck_kinds(texts[DECK_FILE], found=deck_found)
    cities: tuple[BigCity, ...] = ()
    if "big_cities.csv" in texts:
        cities = parse_big_cities(texts["big_cities.csv"], found=found, colours=colours)
    destinations: tuple[Destination, ...] = ()
    if "destinations.csv" in texts:
        names = found.big_city_names
        destinations = parse_destinations(
            texts["destinations.csv"], names, found=found, colours=colours
        )
    found.lines.extend(deck_found.lines)
    found.raise_any()
    return Catalogue(destinations, cities, deck, name, colours)
