from pathlib import Path

import pytest

from cardgame import DataError, default_catalogue, load_catalogue
from cardgame.cards import COLOURS
from cardgame.catalogue import EditionError, check_shipped_facts

DATA = Path(__file__).parents[1] / "cardgame" / "data"


def test_r1_catalogue_has_46_destinations_and_6_big_cities():
    catalogue = default_catalogue()
    assert len(catalogue.destinations) == 46
    assert len({d.id for d in catalogue.destinations}) == 46
    assert catalogue.big_city_names == (
        "Seattle",
        "Los Angeles",
        "Chicago",
        "Dallas",
        "New York",
        "Miami",
    )


def test_r2_destination_needs_a_colour_multiset():
    la_pittsburgh = default_catalogue().destination(39)
    assert (la_pittsburgh.city_a, la_pittsburgh.city_b) == ("Los Angeles", "Pittsburgh")
    assert la_pittsburgh.points == 18
    need = dict(zip(COLOURS, la_pittsburgh.need, strict=True))
    assert need["white"] == 1 and need["blue"] == 2 and need["purple"] == 1
    assert sum(la_pittsburgh.need) == 4


def test_catalogue_matches_sources_consistency_checks():
    catalogue = default_catalogue()
    circles = [c for d in catalogue.destinations for c in d.colours]
    assert len(circles) == 132
    assert sum(d.points for d in catalogue.destinations) == 581


def _copy_with(tmp_path: Path, destinations: str) -> Path:
    (tmp_path / "big_cities.csv").write_text((DATA / "big_cities.csv").read_text())
    (tmp_path / "destinations.csv").write_text(destinations)
    return tmp_path


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda t: t.replace("yellow-green", "yellow-teal", 1),
            "line 4, column colors: unknown colour 'teal'",
        ),
        (
            lambda t: t.replace(",6,yellow-green", ",-6,yellow-green", 1),
            "line 4, column points: points must be > 0",
        ),
        (lambda t: t.replace("\n3,Chicago", "\n2,Chicago", 1), "line 4, column id: duplicate id 2"),
        (
            lambda t: t.replace("Chicago,Dallas", "Boston,Dallas", 1).replace(
                "3,Boston,Dallas", "3,Boston,Denver", 1
            ),
            "line 4: names no big city",
        ),
    ],
)
def test_broken_data_file_names_file_line_and_problem(tmp_path, edit, message):
    text = edit((DATA / "destinations.csv").read_text())
    folder = _copy_with(tmp_path, text)
    with pytest.raises(DataError, match=message) as info:
        load_catalogue(folder)
    assert "destinations.csv" in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_data_file_is_one_clear_error(tmp_path):
    with pytest.raises(DataError, match="big_cities.csv: cannot read"):
        load_catalogue(tmp_path)


# ------------------------------------------------------------------ a corrected edition refused
def _edited(tmp_path: Path, old: str, new: str, file: str = "destinations.csv") -> Path:
    for name in ("big_cities.csv", "destinations.csv"):
        text = (DATA / name).read_text()
        if name == file:
            assert old in text
            text = text.replace(old, new, 1)
        (tmp_path / name).write_text(text)
    return tmp_path


def _refused(folder: Path, *parts: str) -> str:
    with pytest.raises(DataError) as info:
        load_catalogue(folder)
    message = str(info.value)
    assert "\n" not in message
    for part in parts:
        assert part in message
    return message


@pytest.mark.parametrize("file", ["destinations.csv", "big_cities.csv"])
def test_non_utf8_file_is_one_line_naming_the_file(tmp_path, file):
    for name in ("big_cities.csv", "destinations.csv"):
        (tmp_path / name).write_bytes((DATA / name).read_bytes())
    raw = (tmp_path / file).read_bytes().replace(b"Chicago", "Chicagö".encode("latin-1"), 1)
    (tmp_path / file).write_bytes(raw)
    _refused(tmp_path, file, "not UTF-8", "0xf6")


def test_a_byte_order_mark_is_accepted(tmp_path):
    for name in ("big_cities.csv", "destinations.csv"):
        (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + (DATA / name).read_bytes())
    assert len(load_catalogue(tmp_path).destinations) == 46


def test_a_nul_byte_is_one_line(tmp_path):
    folder = _edited(tmp_path, "1,Chicago", "1,Chi\0cago")
    _refused(folder, "destinations.csv", "line 2, column city_a:", "not printable")


TWELVE = "-".join(["yellow"] * 12)


FIRST_TICKET = "1,Chicago,New York,5,yellow"


@pytest.mark.parametrize(
    ("new", "parts"),
    [
        (f"1,Chicago,New York,5,{TWELVE}", ("colors has 12 circles", "1 to 5")),
        ("1,Chicago,New York,5,yellow-yellow-yellow-blue-blue-red", ("colors has 6 circles",)),
        ("1,Chicago,New York,100,yellow", ("points 100 is outside 1..99",)),
        (
            "1,Chicago,New York,100000000000000000000,yellow",
            ("points 100000000...", "outside 1..99"),
        ),
        ("1,Chicago,New York,0,yellow", ("points must be > 0",)),
        ("1,Chicago,New York,-3,yellow", ("points must be > 0",)),
        ("1,Chicago,New York,5.0,yellow", ("points '5.0' is not a whole number",)),
        ("201,Chicago,New York,5,yellow", ("id 201 is outside 1..200",)),
        ("1e3,Chicago,New York,5,yellow", ("id '1e3' is not a whole number",)),
        ("1,Chicago,New York,5,", ("colors has 0 circles",)),
        ("1,Chicago,New York,5,gold", ("unknown colour 'gold'",)),
    ],
)
def test_tickets_are_checked_beyond_structure(tmp_path, new, parts):
    _refused(_edited(tmp_path, FIRST_TICKET, new), "destinations.csv", "line 2, column", *parts)


@pytest.mark.parametrize(
    ("old", "new", "parts"),
    [
        ("Seattle,8,black", "Seattle,100000000000000000000,black", ("line 2, column points:",)),
        ("Seattle,8,black", "Seattle,0,black", ("line 2, column points:", "must be > 0")),
        ("Seattle,8,black", "Seattle,8,teal", ("line 2, column home_color:", "unknown colour")),
        ("Miami,8,red", "Seattle,8,red", ("line 7, column city:", "given twice (line 2)")),
    ],
)
def test_big_cities_are_checked(tmp_path, old, new, parts):
    _refused(_edited(tmp_path, old, new, "big_cities.csv"), "big_cities.csv", *parts)


# A corrected edition or a designer's: different colours and points, still a card set.
EDITIONS = [
    ("1,Chicago,New York,5,yellow", "1,Chicago,New York,5,blue"),  # a changed colour
    ("3,Chicago,Dallas,6,yellow-green", "3,Chicago,Dallas,7,yellow-green"),  # points in band
    ("24,Miami,Boston,12,blue-red-orange", "24,Miami,Boston,18,blue-red-orange"),  # beyond it
]


@pytest.mark.parametrize(
    ("old", "new", "found"),
    [
        ("1,Chicago,New York,5,yellow", "1,Chicago,New York,6,yellow", "#1 has 6 points"),
        ("3,Chicago,Dallas,6,yellow-green", "3,Chicago,Dallas,11,yellow-green", "outside 6..10"),
    ],
)
def test_the_shipped_copy_keeps_the_printed_point_bands(tmp_path, old, new, found):
    destinations = load_catalogue(_edited(tmp_path, old, new)).destinations
    with pytest.raises(DataError, match="damaged") as info:
        check_shipped_facts(destinations, "destinations.csv (package data)")
    assert found in str(info.value)


@pytest.mark.parametrize(("old", "new"), EDITIONS)
def test_a_users_folder_may_be_a_corrected_edition(tmp_path, old, new):
    assert len(load_catalogue(_edited(tmp_path, old, new)).destinations) == 46


@pytest.mark.parametrize(("old", "new"), EDITIONS)
def test_the_shipped_copy_must_match_the_sources_facts(tmp_path, old, new):
    """The checks default_catalogue() adds: a damaged installed copy is caught."""
    destinations = load_catalogue(_edited(tmp_path, old, new)).destinations
    with pytest.raises(DataError, match="damaged") as info:
        check_shipped_facts(destinations, "destinations.csv (package data)")
    assert "destinations.csv" in str(info.value) and "\n" not in str(info.value)
    check_shipped_facts(default_catalogue().destinations, "shipped")  # the real one passes


def test_the_shipped_copy_keeps_its_46_tickets_and_six_big_cities(tmp_path):
    """A folder may hold any number of tickets; the shipped copy must hold the printed ones."""
    from cardgame.catalogue import check_shipped_big_cities

    folder = _edited(tmp_path, "46,", "47,")
    catalogue = load_catalogue(folder)
    assert max(d.id for d in catalogue.destinations) == 47
    with pytest.raises(DataError, match="ids 1-46.*damaged"):
        check_shipped_facts(catalogue.destinations, "destinations.csv (package data)")
    cities = default_catalogue().big_cities
    moved = (*cities[:-1], cities[-1]._replace(city="Denver"))
    with pytest.raises(DataError, match="damaged"):
        check_shipped_big_cities(moved, "big_cities.csv (package data)")


def test_one_pass_names_every_problem_by_file_line_and_column(tmp_path):
    text = (DATA / "destinations.csv").read_text()
    text = text.replace("yellow-green", "yellow-teal", 1).replace(",5,blue", ",0,blue", 1)
    (tmp_path / "destinations.csv").write_text(text)
    (tmp_path / "big_cities.csv").write_text(
        (DATA / "big_cities.csv").read_text().replace("Seattle,8,black", "Seattle,8,pink")
    )
    deck = (DATA / "deck.csv").read_text().replace("red,10", "red,99")
    (tmp_path / "deck.csv").write_text(deck.replace("locomotive,16\n", ""))
    with pytest.raises(EditionError) as info:
        load_catalogue(tmp_path)
    problems = info.value.problems
    assert problems == [
        "big_cities.csv, line 2, column home_color: unknown colour 'pink' (known: "
        + ", ".join(COLOURS)
        + ")",
        "destinations.csv, line 3, column points: points must be > 0, got 0",
        "destinations.csv, line 4, column colors: unknown colour 'teal' in colors (known: "
        + ", ".join(COLOURS)
        + ")",
        "deck.csv, line 8, column count: count 99 is outside 0..20 (the engines' bound)",
        "deck.csv: no count for locomotive",
    ]
    assert str(info.value).startswith(problems[0]) and "and 4 more problems" in str(info.value)
    assert "\n" not in str(info.value)
