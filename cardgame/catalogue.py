"""Load and validate the card data shipped as package data (R1, R2).

The data are files, not code, so that a corrected edition can be swapped in; a broken file
is refused with one line naming the file, the line and the problem.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from .cards import COLOUR_INDEX, COLOURS, BigCity, Destination
from .errors import DataError

EXPECTED_DESTINATIONS = 46
BIG_CITY_NAMES = ("Seattle", "Los Angeles", "Chicago", "Dallas", "New York", "Miami")


@dataclass(frozen=True)
class Catalogue:
    """All the printed cards of the game, by id."""

    destinations: tuple[Destination, ...]
    big_cities: tuple[BigCity, ...]
    # destination by id (None where no id): immutable, so a seat view may share it
    by_id: tuple[Destination | None, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {d.id: d for d in self.destinations})
        table: list[Destination | None] = [None] * (max(self._by_id, default=0) + 1)  # type: ignore[attr-defined]
        for d in self.destinations:
            table[d.id] = d
        object.__setattr__(self, "by_id", tuple(table))

    def destination(self, dest_id: int) -> Destination:
        return self._by_id[dest_id]  # type: ignore[attr-defined]

    @property
    def big_city_names(self) -> tuple[str, ...]:
        return tuple(b.city for b in self.big_cities)


def _rows(text: str, name: str, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or tuple(reader.fieldnames) != columns:
        raise DataError(f"{name}, line 1: expected columns {','.join(columns)}")
    rows = []
    for row in reader:
        line = reader.line_num
        if None in row or any(v is None for v in row.values()):
            raise DataError(f"{name}, line {line}: expected {len(columns)} fields")
        rows.append((line, {k: v.strip() for k, v in row.items()}))
    return rows


def _positive_int(value: str, name: str, line: int, field: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise DataError(f"{name}, line {line}: {field} {value!r} is not a whole number") from None
    if number <= 0:
        raise DataError(f"{name}, line {line}: {field} must be > 0, got {number}")
    return number


def parse_big_cities(text: str, name: str = "big_cities.csv") -> tuple[BigCity, ...]:
    cities = []
    for line, row in _rows(text, name, ("city", "points", "home_color")):
        if row["city"] not in BIG_CITY_NAMES:
            raise DataError(f"{name}, line {line}: unknown big city {row['city']!r}")
        if row["home_color"] not in COLOUR_INDEX:
            raise DataError(f"{name}, line {line}: unknown colour {row['home_color']!r}")
        points = _positive_int(row["points"], name, line, "points")
        cities.append(BigCity(row["city"], points, row["home_color"]))
    if sorted(c.city for c in cities) != sorted(BIG_CITY_NAMES):
        raise DataError(f"{name}: expected each of {', '.join(BIG_CITY_NAMES)} exactly once")
    return tuple(cities)


def parse_destinations(
    text: str, big_cities: tuple[str, ...], name: str = "destinations.csv"
) -> tuple[Destination, ...]:
    destinations: list[Destination] = []
    seen: set[int] = set()
    for line, row in _rows(text, name, ("id", "city_a", "city_b", "points", "colors")):
        dest_id = _positive_int(row["id"], name, line, "id")
        if dest_id in seen:
            raise DataError(f"{name}, line {line}: duplicate id {dest_id}")
        seen.add(dest_id)
        if not row["city_a"] or not row["city_b"] or row["city_a"] == row["city_b"]:
            raise DataError(f"{name}, line {line}: needs two different cities")
        points = _positive_int(row["points"], name, line, "points")
        colours = row["colors"].split("-") if row["colors"] else []
        if not colours:
            raise DataError(f"{name}, line {line}: no colours")
        for colour in colours:
            if colour not in COLOUR_INDEX:
                known = ", ".join(COLOURS)
                raise DataError(f"{name}, line {line}: unknown colour {colour!r} (known: {known})")
        if not ({row["city_a"], row["city_b"]} & set(big_cities)):
            raise DataError(f"{name}, line {line}: names no big city")
        destinations.append(
            Destination(
                dest_id,
                row["city_a"],
                row["city_b"],
                points,
                tuple(sorted(COLOUR_INDEX[c] for c in colours)),
            )
        )
    if len(destinations) != EXPECTED_DESTINATIONS:
        raise DataError(
            f"{name}: expected {EXPECTED_DESTINATIONS} destinations, found {len(destinations)}"
        )
    return tuple(destinations)


def load_catalogue(folder: Path | None = None) -> Catalogue:
    """Read the card data from ``folder`` (default: the copy shipped in the package)."""
    if folder is None:
        return default_catalogue()
    return _load(lambda n: (folder / n).read_text(encoding="utf-8"), str(folder))


@cache
def default_catalogue() -> Catalogue:
    data = resources.files("cardgame") / "data"
    return _load(lambda n: (data / n).read_text(encoding="utf-8"), "package data")


def _load(read, where: str) -> Catalogue:
    texts = {}
    for name in ("big_cities.csv", "destinations.csv"):
        try:
            texts[name] = read(name)
        except OSError as exc:
            raise DataError(f"{name}: cannot read from {where}: {exc.strerror or exc}") from None
    cities = parse_big_cities(texts["big_cities.csv"])
    destinations = parse_destinations(texts["destinations.csv"], tuple(c.city for c in cities))
    return Catalogue(destinations, cities)
